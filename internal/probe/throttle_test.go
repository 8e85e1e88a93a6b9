package probe

import (
	"context"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/sdk"
	"github.com/cosmosdv/validate/internal/testenv"
)

// A pattern whose writes exceed the container's 400 RU/s is throttled: the SDK retries each 429
// before the probe sees a result, and the per-retry policy counts them for that pattern alone.
func TestRunPatterns_CountsThrottlingPerPattern(t *testing.T) {
	ctx := context.Background()
	// The engine's budgets are whole seconds of its clock; on this clock time stands still until a
	// 429 asks for a wait, so the burst of writes meets one budget and exceeds it on any machine.
	clk := testenv.NewThrottleClock()
	srv, err := engine.Start(ctx, engine.Options{Throttle: true, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Close bounds its own grace (engine.closeGrace) and then closes every connection; a
		// deadline of the caller's would leave connections open once a busy machine reached it.
		_ = srv.Close(context.Background())
	})
	cred, _ := azcosmos.NewKeyCredential(srv.Key())
	opts := &azcosmos.ClientOptions{}
	opts.PerRetryPolicies = []policy.Policy{sdk.ThrottlePolicy{}, clk.Policy()}
	client, err := azcosmos.NewClientWithKey(srv.URL(), cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "p"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("p")
	tp := azcosmos.NewManualThroughputProperties(400)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "Users",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/userId"}, Version: 2}},
		&azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
		t.Fatal(err)
	}
	users, _ := db.NewContainer("Users")
	docs := &fakeDocs{seeded: map[string][]map[string]any{"user": {
		{"id": "u0", "userId": "u0", "type": "user", "name": "n", "visits": 0.0},
	}}}
	if _, err := users.CreateItem(ctx, azcosmos.NewPartitionKeyString("u0"), []byte(`{"id":"u0","userId":"u0","type":"user","name":"n","visits":0}`), nil); err != nil {
		t.Fatal(err)
	}
	d := &design.Design{Name: "p", Database: "p",
		Containers: []design.Container{{Name: "Users", PartitionKey: []string{"/userId"}}},
		AccessPatterns: []design.AccessPattern{
			{ID: "read", Container: "Users", Op: design.OpRead, Sample: "user", Samples: 2},
			{ID: "burst", Container: "Users", Op: design.OpCreate, Document: "user", Samples: 150},
		}}
	pats, _, err := RunPatterns(ctx, d, map[string]*azcosmos.ContainerClient{"Users": users}, docs, Options{Samples: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(pats) != 2 {
		t.Fatalf("%d patterns", len(pats))
	}
	if pats[0].Throttled != 0 || pats[0].RetryWaitMs != 0 {
		t.Errorf("read: throttled %d (%v ms) before any burst", pats[0].Throttled, pats[0].RetryWaitMs)
	}
	burst := pats[1]
	if burst.Throttled == 0 || burst.RetryWaitMs <= 0 {
		t.Fatalf("burst of 150 creates at 400 RU/s: throttled %d, retry wait %v ms; want both > 0", burst.Throttled, burst.RetryWaitMs)
	}
	for i, ex := range burst.Executions {
		if ex.Status != 201 {
			t.Fatalf("execution %d: status %d %s (the SDK should have retried the 429)", i, ex.Status, ex.Error)
		}
	}
	if len(burst.Executions) != 150 {
		t.Errorf("%d executions, want 150", len(burst.Executions))
	}
}
