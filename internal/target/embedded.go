package target

import (
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/record"
)

// openEmbedded starts the embedded engine on loopback and connects to it. reason is the auto
// explanation, "" when embedded was asked for.
func openEmbedded(ctx context.Context, cfg Config, reason string) (*Target, error) {
	opts := cfg.Engine
	if opts.Logger == nil {
		opts.Logger = cfg.Log
	}
	srv, err := engine.Start(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("embedded engine: %w", err)
	}
	stop := func(c context.Context) error {
		if err := srv.Close(c); err != nil {
			return fmt.Errorf("stop embedded engine: %w", err)
		}
		return nil
	}
	cred, err := azcosmos.NewKeyCredential(srv.Key())
	if err != nil {
		_ = closer(stop)(ctx)
		return nil, fmt.Errorf("embedded engine key: %w", err)
	}
	copts := clientOptions(httpClient(srv.TLSConfig()), nil, nil)
	copts.PerRetryPolicies = append(copts.PerRetryPolicies, cfg.EnginePerRetry...)
	cl, err := azcosmos.NewClientWithKey(srv.URL(), cred, copts)
	if err != nil {
		_ = closer(stop)(ctx)
		return nil, fmt.Errorf("embedded engine client: %w", err)
	}
	return &Target{
		Client: cl,
		Info: record.TargetInfo{
			Kind:         record.KindEmbedded,
			Engine:       "embedded engine (in process)",
			Endpoint:     srv.URL(),
			ChargeSource: record.ChargeModel,
			SDKVersion:   SDKVersion,
		},
		Reason: reason,
		Close:  closer(func(context.Context) error { cl.Close(); return nil }, stop),
	}, nil
}
