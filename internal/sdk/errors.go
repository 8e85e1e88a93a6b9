// Package sdk is the small toolkit every stage uses on top of the azcosmos SDK: telling a target failure
// from a request failure (Infrastructure, TargetFailed), the status and the service's own message of
// an SDK error, partition keys from values, and request charges as the float64 they stand for. It
// imports nothing of this project, so any stage may import it.
package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// ErrInfrastructure marks a failure of the target itself (unreachable, refused credentials, dying),
// as opposed to a failure of one access pattern. Stages wrap such errors so that the CLI can tell them
// apart with errors.Is and give them their own exit code.
var ErrInfrastructure = errors.New("target failure")

type infraError struct {
	op  string
	err error
}

func (e *infraError) Error() string   { return e.op + ": " + e.err.Error() }
func (e *infraError) Unwrap() []error { return []error{ErrInfrastructure, e.err} }

// Infrastructure wraps err, a target failure during op, so that IsInfrastructure reports true.
func Infrastructure(op string, err error) error {
	if err == nil {
		return nil
	}
	return &infraError{op: op, err: err}
}

// IsInfrastructure reports whether err is (or wraps) a target failure.
func IsInfrastructure(err error) bool { return errors.Is(err, ErrInfrastructure) }

// TargetFailed reports whether an error returned by the SDK means the target failed rather than the
// request: a transport error (refused, reset, TLS, DNS), 401 or 403 (credentials), or 503 after the
// SDK's own retries (a target going away). Context cancellation is neither.
func TargetFailed(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		switch re.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusServiceUnavailable:
			return true
		}
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// StatusOf returns the HTTP status of an SDK error (0 when there was no response).
func StatusOf(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

// ServiceMessage returns the service's own message for an SDK error: the "message" of the error body
// when there is one, else a short description. It never includes request headers, so no key or
// token can leak through it.
func ServiceMessage(err error) string {
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return err.Error()
	}
	msg := ""
	if re.RawResponse != nil {
		if body, rerr := runtime.Payload(re.RawResponse); rerr == nil && len(body) > 0 {
			var eb struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			}
			if json.Unmarshal(body, &eb) == nil && eb.Message != "" {
				msg = eb.Message
			} else {
				msg = strings.TrimSpace(string(body))
			}
		}
	}
	// Service messages often carry a trailing diagnostics blob after a newline; keep the first lines.
	if i := strings.Index(msg, "\r\n"); i > 0 {
		msg = msg[:i]
	}
	if len(msg) > 600 {
		msg = msg[:600] + "…"
	}
	code := http.StatusText(re.StatusCode)
	if msg == "" {
		return fmt.Sprintf("%d %s", re.StatusCode, code)
	}
	return fmt.Sprintf("%d %s: %s", re.StatusCode, code, msg)
}
