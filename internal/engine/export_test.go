package engine

import "net/http"

// SetHandlerWrap makes the servers started from now on serve wrap(server) instead of the server
// itself, so that a benchmark can measure the handler's own work; restore puts the default back.
// Not safe to call while another test starts a server.
func SetHandlerWrap(wrap func(http.Handler) http.Handler) (restore func()) {
	old := handlerWrap
	handlerWrap = wrap
	return func() { handlerWrap = old }
}
