package target

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/sdk"
)

// hostRewrite is a per-retry pipeline policy that sends every request to one scheme and host. An
// emulator behind Docker's port mapping advertises its in-container address (127.0.0.1:8081) as
// the account's read and write locations, and the SDK's endpoint manager follows that address on
// every attempt; this policy runs after the SDK's own per-retry policies and puts the mapped
// address back. Request signatures cover the resource path, not the host, so they stay valid.
type hostRewrite struct {
	scheme, host string
}

func (p hostRewrite) Do(req *policy.Request) (*http.Response, error) {
	raw := req.Raw()
	if raw.URL.Host != p.host || raw.URL.Scheme != p.scheme {
		raw.URL.Scheme = p.scheme
		raw.URL.Host = p.host
		raw.Host = p.host
	}
	return req.Next()
}

// classifyingTransport wraps transport errors so that callers can tell "nothing answers" and "the
// emulator died" apart with errors.Is (ErrUnreachable, ErrEmulatorDied), without parsing text.
type classifyingTransport struct {
	base *http.Client
	// died, when set, reports a non-nil error if the backing container has stopped.
	died func(context.Context) error
}

func (t *classifyingTransport) Do(req *http.Request) (*http.Response, error) {
	resp, err := t.base.Do(req)
	if err == nil || req.Context().Err() != nil {
		return resp, err
	}
	if t.died != nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(req.Context()), 5*time.Second)
		derr := t.died(ctx)
		cancel()
		if derr != nil {
			return nil, finalError{fmt.Errorf("%w (%v)", derr, err)}
		}
	}
	if isNetworkError(err) {
		return nil, fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	return nil, err
}

// httpClient builds the HTTP client for one backend. tlsConfig nil means the system roots.
func httpClient(tlsConfig *tls.Config) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tlsConfig
	tr.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	tr.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: tr}
}

// clientOptions assembles azcosmos options: our transport, the 429 counter (sdk.ThrottlePolicy), and the host rewrite when the
// advertised address differs from the one we can reach.
func clientOptions(hc *http.Client, died func(context.Context) error, rewriteTo *url.URL) *azcosmos.ClientOptions {
	o := &azcosmos.ClientOptions{}
	o.Transport = &classifyingTransport{base: hc, died: died}
	// Every 429 is counted into the request context's counter, the ones the SDK retries too.
	o.PerRetryPolicies = append(o.PerRetryPolicies, sdk.ThrottlePolicy{})
	if rewriteTo != nil {
		o.PerRetryPolicies = append(o.PerRetryPolicies, hostRewrite{scheme: rewriteTo.Scheme, host: rewriteTo.Host})
	}
	return o
}

// finalError tells the azcore retry policy not to retry (it looks for a NonRetriable method):
// retrying a request to a container that has exited only delays the error. It is a net.Error
// that is not a timeout, so stages that classify transport failures as the target's (probe,
// seed) still do, while the Cosmos retry policy does not retry it.
type finalError struct{ error }

func (e finalError) Unwrap() error { return e.error }

// NonRetriable marks the error as final for the SDK's retry policy.
func (finalError) NonRetriable() {}

// Timeout reports false: the container stopped, nothing timed out.
func (finalError) Timeout() bool { return false }

// Temporary reports false (net.Error).
func (finalError) Temporary() bool { return false }

var _ net.Error = finalError{}
