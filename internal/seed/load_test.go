package seed

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/testenv"
)

// loadTarget starts the embedded engine and creates one container per container of d.
func loadTarget(t *testing.T, d *design.Design, eo engine.Options) map[string]*azcosmos.ContainerClient {
	t.Helper()
	// SDK-level retries off, so that 429s reach the loader's own back-off.
	opts := &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}}
	return loadTargetWith(t, d, eo, opts)
}

// loadTargetWith is loadTarget with the given client options.
func loadTargetWith(t *testing.T, d *design.Design, eo engine.Options, opts *azcosmos.ClientOptions) map[string]*azcosmos.ContainerClient {
	t.Helper()
	ctx := context.Background()
	srv, err := engine.Start(ctx, eo)
	if err != nil {
		t.Fatalf("start engine: %v", err)
	}
	t.Cleanup(func() {
		// Close bounds its own grace (engine.closeGrace) and then closes every connection; a
		// deadline of the caller's would leave connections open once a busy machine reached it.
		_ = srv.Close(context.Background())
	})
	cred, _ := azcosmos.NewKeyCredential(srv.Key())
	client, err := azcosmos.NewClientWithKey(srv.URL(), cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	out := map[string]*azcosmos.ContainerClient{}
	for _, c := range d.Containers {
		tp := azcosmos.NewManualThroughputProperties(400)
		_, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: c.Name,
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: c.PartitionKey, Version: 2},
			IndexingPolicy:         &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent, IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}},
		}, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp})
		if err != nil {
			t.Fatal(err)
		}
		out[c.Name], _ = db.NewContainer(c.Name)
	}
	return out
}

func TestLoad_CountsAndProgress(t *testing.T) {
	d := shopDesign(60)
	d.Containers[0].UniqueKeys = nil
	containers := loadTarget(t, d, engine.Options{})
	p, err := Compile(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	var prog bytes.Buffer
	res, err := Load(context.Background(), p, containers, Options{Concurrency: 4, Progress: &prog, Reservoir: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 {
		t.Fatalf("findings: %+v", res.Findings)
	}
	counts := p.Counts()
	for _, s := range res.Stats {
		if s.Documents != counts[s.Type] || s.RU <= 0 {
			t.Errorf("%s: %+v, want %d documents", s.Type, s, counts[s.Type])
		}
	}
	lines := strings.Split(strings.TrimSpace(prog.String()), "\n")
	if len(lines) != 10 || !strings.Contains(lines[9], "(100%)") {
		t.Errorf("plain progress: want 10 lines ending at 100%%, got:\n%s", prog.String())
	}
	if res.Samples.Len("user") != 8 {
		t.Errorf("reservoir holds %d users", res.Samples.Len("user"))
	}
	if doc, ok := res.Samples.Sample("order", 3); !ok || doc["userId"] == nil {
		t.Errorf("sample: %v %v", doc, ok)
	}
}

func TestLoad_BacksOffOn429(t *testing.T) {
	// 400 RU/s on one partition and ~150 writes of several RU each: the engine throttles, the loader
	// waits as told and retries, and every document lands exactly once.
	d := shopDesign(15)
	d.Containers[0].UniqueKeys = nil
	// The engine's budget windows are whole seconds of its clock. On the wall clock a run this short
	// (30 ms unthrottled) may straddle a second boundary and fit in two budgets; on this clock time
	// stands still until a 429 tells the loader to wait, so the writes meet one budget and exceed
	// it on any machine.
	clk := testenv.NewThrottleClock()
	opts := &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1},
		PerRetryPolicies: []policy.Policy{clk.Policy()}}}
	containers := loadTargetWith(t, d, engine.Options{Throttle: true, Now: clk.Now}, opts)
	p, err := Compile(d, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Load(context.Background(), p, containers, Options{Concurrency: 8})
	if err != nil {
		t.Fatal(err)
	}
	if res.Throttled == 0 {
		t.Fatal("the engine never throttled: the test does not exercise back-off")
	}
	if res.LowestConcurrency >= 8 {
		t.Errorf("writes in flight stayed at %d after %d 429s, want fewer than the 8 configured", res.LowestConcurrency, res.Throttled)
	}
	for _, f := range res.Findings {
		if f.Level != "info" {
			t.Fatalf("finding: %+v", f)
		}
	}
	n, err := CountDocuments(context.Background(), containers["UserOrders"])
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, c := range p.Counts() {
		want += c
	}
	if n != want {
		t.Fatalf("container holds %d documents, want %d", n, want)
	}
}
