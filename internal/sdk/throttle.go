package sdk

import (
	"context"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// ThrottleCounter counts the 429 (request rate too large) responses of the requests made with a
// context that carries it (WithThrottleCounter), and the waits those responses asked for
// (x-ms-retry-after-ms). The SDK retries 429s inside its pipeline before the caller sees a result,
// so only a pipeline policy (ThrottlePolicy) sees every one. The zero value is ready; it is safe
// for concurrent use.
type ThrottleCounter struct {
	n      atomic.Int64
	waitUs atomic.Int64
}

// Throttled is the number of 429 responses counted.
func (c *ThrottleCounter) Throttled() int64 {
	if c == nil {
		return 0
	}
	return c.n.Load()
}

// RetryWaitMs is the sum of the waits the counted 429 responses asked for, in milliseconds.
func (c *ThrottleCounter) RetryWaitMs() float64 {
	if c == nil {
		return 0
	}
	return float64(c.waitUs.Load()) / 1000
}

func (c *ThrottleCounter) add(retryAfterMs float64) {
	c.n.Add(1)
	if retryAfterMs > 0 {
		c.waitUs.Add(int64(retryAfterMs * 1000))
	}
}

type throttleKey struct{}

// WithThrottleCounter returns a context whose requests count their 429 responses into c (a new
// counter when c is nil), and the counter. The innermost counter of a context is the one counted.
func WithThrottleCounter(ctx context.Context, c *ThrottleCounter) (context.Context, *ThrottleCounter) {
	if c == nil {
		c = &ThrottleCounter{}
	}
	return context.WithValue(ctx, throttleKey{}, c), c
}

// ThrottlePolicy is a per-retry pipeline policy (azcore policy.ClientOptions.PerRetryPolicies) that
// counts every 429 response, including the ones the SDK's retry policies go on to retry, into the
// ThrottleCounter of the request's context. Requests without a counter pass through untouched.
type ThrottlePolicy struct{}

// Do implements policy.Policy.
func (ThrottlePolicy) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		return resp, err
	}
	if c, ok := req.Raw().Context().Value(throttleKey{}).(*ThrottleCounter); ok && c != nil {
		ms, _ := strconv.ParseFloat(resp.Header.Get("x-ms-retry-after-ms"), 64)
		c.add(max(ms, 0))
	}
	return resp, err
}
