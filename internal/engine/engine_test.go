package engine_test

import (
	"context"
	"net/http"
	"os"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/engine/enginetest"
)

func start(t testing.TB, o engine.Options) (*engine.Server, *azcosmos.Client) {
	t.Helper()
	s, client, _ := startWith(t, o)
	return s, client
}

// startWith also returns a constructor of further clients of the server with extra per-retry
// policies.
func startWith(t testing.TB, o engine.Options) (*engine.Server, *azcosmos.Client, func(...policy.Policy) (*azcosmos.Client, error)) {
	t.Helper()
	s, err := engine.Start(context.Background(), o)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	cred, err := azcosmos.NewKeyCredential(s.Key())
	if err != nil {
		t.Fatal(err)
	}
	newClient := func(perRetry ...policy.Policy) (*azcosmos.Client, error) {
		opts := &azcosmos.ClientOptions{}
		if tc := s.TLSConfig(); tc != nil {
			opts.ClientOptions = azcore.ClientOptions{Transport: &http.Client{Transport: &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 64}}}
		}
		opts.PerRetryPolicies = perRetry
		return azcosmos.NewClientWithKey(s.URL(), cred, opts)
	}
	client, err := newClient()
	if err != nil {
		t.Fatal(err)
	}
	return s, client, newClient
}

func TestConformance_Embedded(t *testing.T) {
	for _, proto := range []string{"http", "https"} {
		t.Run(proto, func(t *testing.T) {
			s, client, newClient := startWith(t, engine.Options{Protocol: proto})
			enginetest.Run(t, client, enginetest.Options{Key: s.Key(), NewClient: newClient})
		})
	}
}

// TestConformance_External runs the suite against CDV_CONFORMANCE_ENDPOINT when it is set.
func TestConformance_External(t *testing.T) {
	ep, key := os.Getenv("CDV_CONFORMANCE_ENDPOINT"), os.Getenv("CDV_CONFORMANCE_KEY")
	if ep == "" || key == "" {
		t.Skip("CDV_CONFORMANCE_ENDPOINT and CDV_CONFORMANCE_KEY are not set: no external target")
	}
	cred, err := azcosmos.NewKeyCredential(key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azcosmos.NewClientWithKey(ep, cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	newClient := func(perRetry ...policy.Policy) (*azcosmos.Client, error) {
		return azcosmos.NewClientWithKey(ep, cred, &azcosmos.ClientOptions{ClientOptions: policy.ClientOptions{PerRetryPolicies: perRetry}})
	}
	enginetest.Run(t, client, enginetest.Options{SkipCharges: true, Key: key, NewClient: newClient})
}

func TestAuth_BadKey(t *testing.T) {
	s, _ := start(t, engine.Options{})
	cred, _ := azcosmos.NewKeyCredential("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	client, err := azcosmos.NewClientWithKey(s.URL(), cred, &azcosmos.ClientOptions{ClientOptions: policy.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "x"}, nil)
	if got := enginetest.Status(err); got != http.StatusUnauthorized {
		t.Fatalf("bad key: status %d (%v), want 401", got, err)
	}
}
