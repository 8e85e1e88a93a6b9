package target

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/cosmosdv/validate/internal/sdk"
)

// Every client a target builds counts 429s (the SDK's retries included) into the request context's
// counter, with or without the host rewrite.
func TestClientOptions_CountThrottling(t *testing.T) {
	for _, rewrite := range []*url.URL{nil, {Scheme: "https", Host: "localhost:1"}} {
		o := clientOptions(&http.Client{}, nil, rewrite)
		found := false
		for _, p := range o.PerRetryPolicies {
			if _, ok := p.(sdk.ThrottlePolicy); ok {
				found = true
			}
		}
		if !found {
			t.Errorf("rewrite %v: no sdk.ThrottlePolicy among the per-retry policies %v", rewrite, o.PerRetryPolicies)
		}
	}
}
