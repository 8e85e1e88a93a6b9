package engine

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"unicode"
)

// The two gateways. The service (and the emulator, on two ports) has a routing gateway, the
// account's endpoint, and a compute gateway (the emulator's port 8903). They read an item's address
// differently, which the azcosmos v1.5.0 emulator suite holds them to (TestItemIdEncodingRoutingGW
// and TestItemIdEncodingComputeGW, emulator_cosmos_item_test.go), and which is how an SDK that
// escapes an id with url.PathEscape and signs over it unescaped (azcosmos cosmos_paths.go and
// shared_key_credential.go) fares against each:
//
//   - the routing gateway decodes the address, splits it on '/' and verifies the signature over a
//     link it decodes once more, in which '\' separates segments, '#' ends the address and trailing
//     white space is trimmed: an id that any of these changes ("Test ", "a%20", "a/b", "a\b",
//     "a#b") is answered 401, as the signature no longer matches; an address holding a control
//     character (CR, LF, tab) is answered 400;
//   - the compute gateway splits the address on '/' before decoding each segment and verifies the
//     signature over exactly those segments: every id the SDK can escape is served.
//
// (The rules are the service's behaviour as that suite records it, not documented ones: assumed.)

// ErrComputeListen is in Start's error when the compute gateway's address cannot be bound.
var ErrComputeListen = errors.New("compute gateway")

// computeGateway marks the connections of the compute gateway's listener (http.Server.ConnContext).
type computeGateway struct{}

// isCompute reports whether r came through the compute gateway.
func isCompute(r *http.Request) bool { return r.Context().Value(computeGateway{}) != nil }

// listenCompute binds the compute gateway (Options.ComputeAddr) with the routing gateway's
// protocol and certificate, and sets s.compute and s.computeURL.
func (s *Server) listenCompute(ctx context.Context, lc net.ListenConfig, o Options, advertised string) (net.Listener, error) {
	ln, err := lc.Listen(ctx, "tcp", o.ComputeAddr)
	if err != nil {
		return nil, err
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	s.computeURL = fmt.Sprintf("%s://%s/", o.Protocol, net.JoinHostPort(advertised, port))
	s.compute = &http.Server{
		Handler:           handlerWrap(s),
		ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout, WriteTimeout: writeTimeout, IdleTimeout: idleTimeout,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		ConnContext: func(ctx context.Context, _ net.Conn) context.Context {
			return context.WithValue(ctx, computeGateway{}, true)
		},
	}
	if s.http.TLSConfig != nil {
		s.compute.TLSConfig = s.http.TLSConfig.Clone()
		ln = tls.NewListener(ln, s.compute.TLSConfig)
	}
	return ln, nil
}

// requestPath is the address of r as the service reads it: its path, or, for "//dbs/..." (an
// endpoint with a trailing slash joined to "/dbs", as python3-azure-cosmos 3.1.1 sends it, which
// parses as a network path), the path it is. escaped gives it as sent rather than decoded.
func requestPath(r *http.Request, escaped bool) string {
	path := r.URL.Path
	if escaped {
		path = r.URL.EscapedPath()
	}
	if strings.HasPrefix(r.RequestURI, "//") {
		return r.URL.Host + path
	}
	return path
}

// gatewaySegments are the address segments of r as its gateway reads them.
func gatewaySegments(r *http.Request) []string {
	if !isCompute(r) {
		return pathSegments(requestPath(r, false))
	}
	segs := pathSegments(requestPath(r, true))
	for i, seg := range segs {
		if u, err := url.PathUnescape(seg); err == nil {
			segs[i] = u
		}
	}
	return segs
}

// routingLink is the link the routing gateway verifies a name-based signature over.
func routingLink(link string) string {
	if u, err := url.PathUnescape(link); err == nil {
		link = u
	}
	link = strings.ReplaceAll(link, `\`, "/")
	if i := strings.IndexByte(link, '#'); i >= 0 {
		link = link[:i]
	}
	return strings.TrimRightFunc(link, unicode.IsSpace)
}

// checkAddress answers 400 for an address the routing gateway refuses: one holding a control
// character.
func checkAddress(q *request) error {
	if isCompute(q.r) {
		return nil
	}
	for _, seg := range q.segs {
		if strings.ContainsFunc(seg, unicode.IsControl) {
			return errf(400, "The request URL is invalid: a resource address holds a control character.")
		}
	}
	return nil
}
