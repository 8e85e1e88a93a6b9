package engine_test

import (
	"context"
	"testing"

	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/engine/enginetest"
)

// TestConformance_Account runs the account suite on servers configured as `validate serve
// --consistency ... --cert-out ... --allow-aad` would start them, over HTTP and HTTPS.
func TestConformance_Account(t *testing.T) {
	for _, tc := range []struct {
		proto, level, want string
		aad                bool
	}{
		{"http", "Strong", "Strong", true},
		{"https", "bounded", "BoundedStaleness", true},
		{"http", "Session", "Session", false},
		{"https", "consistent prefix", "ConsistentPrefix", false},
	} {
		t.Run(tc.proto+"/"+tc.want, func(t *testing.T) {
			s, err := engine.Start(context.Background(), engine.Options{Protocol: tc.proto, Consistency: tc.level, AllowAAD: tc.aad})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close(context.Background()) })
			enginetest.RunAccount(t, enginetest.Account{Endpoint: s.URL(), Key: s.Key(), Consistency: tc.want,
				CertPEM: s.CertificatePEM(), AAD: tc.aad})
		})
	}
}
