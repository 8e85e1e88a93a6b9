package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/provision"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/sdk"
	"github.com/cosmosdv/validate/internal/seed"
)

func fp(v float64) *float64 { return &v }

// startEngine starts the embedded engine with four physical partitions per container, so that
// cross-partition queries really fan out, and returns a client for it.
func startEngine(t testing.TB) *azcosmos.Client {
	t.Helper()
	return startEngineWith(t, func(string, string, int) int { return 4 })
}

// startEngineWith starts the embedded engine with the given physical partitions per container
// (engine.Options.Partitions) and returns a client for it; both stop when the test ends.
func startEngineWith(t testing.TB, partitions func(db, container string, ru int) int) *azcosmos.Client {
	t.Helper()
	ctx := context.Background()
	srv, err := engine.Start(ctx, engine.Options{Partitions: partitions})
	if err != nil {
		t.Fatalf("start engine: %v", err)
	}
	t.Cleanup(func() {
		// Close bounds its own grace (engine.closeGrace) and then closes every connection; a
		// deadline of the caller's would leave connections open once a busy machine reached it.
		_ = srv.Close(context.Background())
	})
	cred, err := azcosmos.NewKeyCredential(srv.Key())
	if err != nil {
		t.Fatal(err)
	}
	client, err := azcosmos.NewClientWithKey(srv.URL(), cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return client
}

// smallDesign exercises every operation kind on a single-key container and queries on a hierarchical
// one (full key, prefix, cross-partition ORDER BY that the Go SDK cannot run).
func smallDesign() *design.Design {
	ttl := -1
	return &design.Design{
		Version: 1, Name: "small", Database: "small",
		Containers: []design.Container{
			{
				Name: "UserOrders", PartitionKey: []string{"/userId"}, DefaultTTL: &ttl,
				Throughput: design.Throughput{Manual: 400},
				UniqueKeys: [][]string{{"/email"}},
				Indexing: &design.Indexing{Mode: "consistent", Included: []string{"/*"},
					Composite: [][]design.CompositePath{{{Path: "/userId", Order: "asc"}, {Path: "/createdAt", Order: "desc"}}}},
				Documents: []design.DocType{
					{Type: "user", Count: 30, ID: "user-{seq}", Fields: design.Fields{
						{Name: "userId", Field: design.Field{Copy: "id"}},
						{Name: "type", Field: design.Field{Const: "user"}},
						{Name: "name", Field: design.Field{Gen: "fullName"}},
						{Name: "email", Field: design.Field{Gen: "email", Unique: true}},
						{Name: "visits", Field: design.Field{Gen: "int", Min: fp(0), Max: fp(10)}},
					}},
					{Type: "order", ID: "order-{uuid}", Parent: &design.Parent{Type: "user", Per: design.Per{Min: 1, Max: 4}},
						Fields: design.Fields{
							{Name: "type", Field: design.Field{Const: "order"}},
							// Unique keys are per logical partition and a missing value counts as one
							// value, so every type in the partition needs its own email.
							{Name: "email", Field: design.Field{Gen: "email", Unique: true}},
							{Name: "status", Field: design.Field{OneOf: []any{"pending", "shipped"}}},
							{Name: "total", Field: design.Field{Gen: "money", Min: fp(5), Max: fp(500)}},
							{Name: "createdAt", Field: design.Field{Gen: "isoTime"}},
						}},
				},
			},
			{
				Name: "Events", PartitionKey: []string{"/tenantId", "/deviceId"},
				Throughput: design.Throughput{Manual: 400},
				Documents: []design.DocType{
					{Type: "event", Count: 60, TargetBytes: 512, Fields: design.Fields{
						{Name: "tenantId", Field: design.Field{Gen: "code", Prefix: "T", Cardinality: 3}},
						{Name: "deviceId", Field: design.Field{Gen: "code", Prefix: "D", Cardinality: 10}},
						{Name: "temp", Field: design.Field{Gen: "decimal", Min: fp(-10), Max: fp(40)}},
						{Name: "ts", Field: design.Field{Gen: "isoTime"}},
					}},
				},
			},
		},
		AccessPatterns: []design.AccessPattern{
			{ID: "AP1", Container: "UserOrders", Op: "read", Sample: "user", ItemID: "{id}", PartitionKey: []string{"{userId}"}},
			{ID: "AP2", Container: "UserOrders", Op: "query", Sample: "user", PartitionKey: []string{"{userId}"},
				Query:  "SELECT * FROM c WHERE c.userId = @userId AND c.type = 'order' ORDER BY c.userId ASC, c.createdAt DESC",
				Params: map[string]any{"@userId": "{userId}"}},
			{ID: "AP3", Container: "UserOrders", Op: "create", Sample: "user", Document: "order"},
			{ID: "AP4", Container: "UserOrders", Op: "upsert", Document: "user"},
			{ID: "AP5", Container: "UserOrders", Op: "replace", Sample: "user", Document: "user", ItemID: "{id}", PartitionKey: []string{"{userId}"}},
			{ID: "AP6", Container: "UserOrders", Op: "patch", Sample: "user", ItemID: "{id}", PartitionKey: []string{"{userId}"},
				Patch: []design.PatchOp{{Op: "set", Path: "/name", Value: "patched"}, {Op: "incr", Path: "/visits", Value: 1}}},
			{ID: "AP7", Container: "UserOrders", Op: "delete", Sample: "user", ItemID: "{id}", PartitionKey: []string{"{userId}"}},
			{ID: "AP8", Container: "UserOrders", Op: "batch", Sample: "user", PartitionKey: []string{"{userId}"},
				Batch: []design.BatchOp{{Op: "create", Document: "order", Repeat: 2}, {Op: "read", ItemID: "{id}"}, {Op: "patch", ItemID: "{id}",
					Patch: []design.PatchOp{{Op: "set", Path: "/name", Value: "x"}}}}},
			{ID: "AP9", Container: "Events", Op: "query", Sample: "event", PartitionKey: []string{"{tenantId}", "{deviceId}"},
				Query: "SELECT * FROM c WHERE c.tenantId = @t AND c.deviceId = @d", Params: map[string]any{"@t": "{tenantId}", "@d": "{deviceId}"}},
			{ID: "AP10", Container: "Events", Op: "query", Sample: "event", PartitionKey: []string{"{tenantId}"},
				Query: "SELECT * FROM c WHERE c.tenantId = @t", Params: map[string]any{"@t": "{tenantId}"}},
			{ID: "AP11", Container: "Events", Op: "query",
				Query: "SELECT * FROM c ORDER BY c.ts DESC"},
			{ID: "AP12", Container: "UserOrders", Op: "query", Sample: "user", PartitionKey: []string{"{userId}"},
				Query:  "SELECT * FROM c WHERE c.userId = @u ORDER BY c.type ASC, c.total DESC",
				Params: map[string]any{"@u": "{userId}"}},
		},
	}
}

func TestRun_EndToEnd(t *testing.T) {
	client := startEngine(t)
	ctx := context.Background()
	d := smallDesign()
	var progress bytes.Buffer
	run, err := Run(ctx, d, client, record.TargetInfo{Kind: "embedded", ChargeSource: "model"},
		Options{Samples: 3, Progress: &progress})
	if err != nil {
		t.Fatalf("run: %v\nprogress:\n%s", err, progress.String())
	}
	for _, f := range run.Findings {
		t.Logf("finding: %s %s %s: %s", f.Stage, f.Level, f.Subject, f.Message)
		if f.Level == "error" {
			t.Errorf("unexpected error finding: %+v", f)
		}
	}
	// Seeding: counts per type match the plan.
	plan, _ := seed.Compile(d, 1)
	want := plan.Counts()
	for _, s := range run.Seeding {
		if s.Documents != want[s.Type] {
			t.Errorf("seeded %d %s, plan says %d", s.Documents, s.Type, want[s.Type])
		}
		if s.RU <= 0 || s.Bytes <= 0 {
			t.Errorf("seed stat %s has no charge or bytes: %+v", s.Type, s)
		}
	}
	if len(run.Patterns) != len(d.AccessPatterns) {
		t.Fatalf("%d patterns recorded, want %d", len(run.Patterns), len(d.AccessPatterns))
	}
	byID := map[string]record.Pattern{}
	for _, p := range run.Patterns {
		byID[p.ID] = p
		if len(p.Executions) != 3 {
			t.Errorf("%s: %d executions", p.ID, len(p.Executions))
		}
	}
	for _, id := range []string{"AP1", "AP2", "AP3", "AP4", "AP5", "AP6", "AP7", "AP8", "AP9", "AP10"} {
		for i, ex := range byID[id].Executions {
			if ex.Error != "" {
				t.Errorf("%s #%d failed: %d %s (%s)", id, i, ex.Status, ex.Error, ex.Explanation)
				continue
			}
			if ex.RU <= 0 || ex.Partitions < 1 {
				t.Errorf("%s #%d: RU %v partitions %d", id, i, ex.RU, ex.Partitions)
			}
		}
	}
	if ex := byID["AP1"].Executions[0]; ex.Results != 1 || ex.Status != 200 {
		t.Errorf("read: %+v", ex)
	}
	// Index metrics come from the warm-up, kept on the pattern; a sampled execution never asks (#41).
	if p, ex := byID["AP2"], byID["AP2"].Executions[0]; ex.Results < 1 || ex.QueryMetrics == nil || p.IndexMetrics == nil || ex.IndexMetrics != nil {
		t.Errorf("single-partition query: results %d, query metrics %v, index metrics %v (sampled: %v)", ex.Results, ex.QueryMetrics, p.IndexMetrics, ex.IndexMetrics)
	} else {
		t.Logf("AP2: %+v index %+v", ex, *p.IndexMetrics)
	}
	if ex := byID["AP10"].Executions[0]; ex.Partitions < 1 || ex.Results < 1 {
		t.Errorf("hierarchical prefix query: %+v", ex)
	}
	if ex := byID["AP9"].Executions[0]; ex.Partitions != 1 || ex.Results < 1 {
		t.Errorf("full hierarchical key: %+v", ex)
	}
	if ex := byID["AP8"].Executions[0]; ex.Results != 4 {
		t.Errorf("batch: %d results", ex.Results)
	}
	// Cross-partition ORDER BY: the design names no SDK, so it runs as an SDK with a query engine
	// runs it, through the client-side pipeline over all 4 partitions, each charged.
	if ex := byID["AP11"].Executions[0]; ex.Status != 200 || ex.Pipeline == nil || ex.Partitions != 4 || len(ex.Pipeline.Ranges) != 4 || ex.Pipeline.Hypothetical {
		t.Errorf("cross-partition ORDER BY through the pipeline: %+v %+v", ex, ex.Pipeline)
	} else {
		for _, r := range ex.Pipeline.Ranges {
			if r.RU <= 0 || r.Pages < 1 {
				t.Errorf("range %s: %+v", r.ID, r)
			}
		}
	}
	// Missing composite index: the explanation names it.
	if ex := byID["AP12"].Executions[0]; ex.Status != 400 || !strings.Contains(ex.Explanation, `{path: /type, order: asc}`) {
		t.Errorf("missing composite: status %d error %q explanation %q", ex.Status, ex.Error, ex.Explanation)
	}
	// Torn down: the database is gone.
	db, _ := client.NewDatabase("small")
	if _, err := db.Read(ctx, nil); sdk.StatusOf(err) != 404 {
		t.Errorf("database still there after teardown: %v", err)
	}
}

// TestRun_GoSDKKeepsTheRefusal: for an application on the Go SDK the cross-partition ORDER BY stays
// the gateway's 400 with the probe's explanation, and the pipeline's figure is kept as what it would
// cost from an SDK with a query engine.
func TestRun_GoSDKKeepsTheRefusal(t *testing.T) {
	client := startEngine(t)
	d := smallDesign()
	d.App = &design.App{SDK: design.SDKGo}
	run, err := Run(context.Background(), d, client, record.TargetInfo{Kind: "embedded", ChargeSource: "model"}, Options{Samples: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range run.Patterns {
		if p.ID != "AP11" {
			continue
		}
		ex := p.Executions[0]
		if ex.Status != 400 || !strings.Contains(ex.Explanation, "query engine") {
			t.Errorf("status %d, explanation %q", ex.Status, ex.Explanation)
		}
		if ex.Pipeline == nil || !ex.Pipeline.Hypothetical || ex.Pipeline.RU <= 0 || len(ex.Pipeline.Ranges) != 4 {
			t.Errorf("the would-cost figure: %+v", ex.Pipeline)
		}
	}
}

// TestRun_SameSeedSameCharges runs a design twice with one seed: every execution's charge must be
// the same in both runs. Each run tags its probe-time documents with a random tag (their ids must
// not collide on a shared account), and that tag must not change their content.
func TestRun_SameSeedSameCharges(t *testing.T) {
	client := startEngine(t)
	d := smallDesign()
	charges := func() map[string][]float64 {
		run, err := Run(context.Background(), d, client, record.TargetInfo{Kind: "embedded", ChargeSource: "model"}, Options{Samples: 3})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]float64{}
		for _, p := range run.Patterns {
			for _, ex := range p.Executions {
				out[p.ID] = append(out[p.ID], ex.RU)
			}
		}
		return out
	}
	a, b := charges(), charges()
	if !reflect.DeepEqual(a, b) {
		for id := range a {
			if !reflect.DeepEqual(a[id], b[id]) {
				t.Errorf("%s: charges %v, then %v with the same seed", id, a[id], b[id])
			}
		}
	}
}

func TestRun_SeededDataIntact(t *testing.T) {
	// Writes must not change what later patterns see: after the run (kept), the containers hold
	// exactly the seeded documents.
	client := startEngine(t)
	ctx := context.Background()
	d := smallDesign()
	run, err := Run(ctx, d, client, record.TargetInfo{Kind: "embedded"}, Options{Samples: 2, Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"UserOrders", "Events"} {
		cc, _ := client.NewContainer("small", name)
		n, err := seed.CountDocuments(ctx, cc)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, s := range run.Seeding {
			if s.Container == name {
				want += s.Documents
			}
		}
		if n != want {
			t.Errorf("%s holds %d documents after probing, seeded %d", name, n, want)
		}
	}
	// A second run refuses the existing database unless reuse is allowed.
	if _, err := Run(ctx, d, client, record.TargetInfo{}, Options{Samples: 1}); !errors.Is(err, ErrDatabaseExists) {
		t.Errorf("second run: %v, want ErrDatabaseExists", err)
	}
	if _, err := Run(ctx, d, client, record.TargetInfo{}, Options{Samples: 1, ReuseDatabase: true, WriteIntoExisting: true, Keep: true}); err != nil {
		t.Errorf("reuse: %v", err)
	}
}

func TestRun_CancelledStillTearsDown(t *testing.T) {
	client := startEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	d := smallDesign()
	d.Containers[0].Documents[0].Count = 400
	// Cancel as soon as seeding reports progress.
	w := &cancelWriter{cancel: cancel, after: "seed:"}
	_, err := Run(ctx, d, client, record.TargetInfo{}, Options{Samples: 1, Progress: w, Concurrency: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	db, _ := client.NewDatabase("small")
	if _, err := db.Read(context.Background(), nil); sdk.StatusOf(err) != 404 {
		t.Errorf("database still there after a cancelled run: %v", err)
	}
}

type cancelWriter struct {
	cancel context.CancelFunc
	after  string
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.after) {
		w.cancel()
	}
	return len(p), nil
}

func TestRun_Unreachable(t *testing.T) {
	cred, _ := azcosmos.NewKeyCredential(engine.EmulatorKey)
	// No transport retries: the SDK would otherwise retry the refused connection for seconds.
	opts := &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}}
	client, err := azcosmos.NewClientWithKey("http://127.0.0.1:1/", cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	// No deadline: the refused connection fails at once; a deadline a busy machine reached would
	// end the run with the context's error instead of the target's.
	_, err = Run(context.Background(), smallDesign(), client, record.TargetInfo{}, Options{Samples: 1})
	if err == nil || !IsInfrastructure(err) {
		t.Fatalf("err = %v, want an infrastructure error", err)
	}
}

func BenchmarkSeed(b *testing.B) {
	client := startEngine(b)
	ctx := context.Background()
	d := smallDesign()
	d.Containers[0].Documents[0].Count = 2000 // plus 1-4 orders each
	d.Containers[0].Documents[0].TargetBytes = 1024
	d.Containers[0].Documents[1].TargetBytes = 1024
	d.Containers = d.Containers[:1]
	d.AccessPatterns = nil
	plan, err := seed.Compile(d, 1)
	if err != nil {
		b.Fatal(err)
	}
	total := 0
	for _, n := range plan.Counts() {
		total += n
	}
	docs := 0
	for i := 0; b.Loop(); i++ {
		_, err := Run(ctx, d, client, record.TargetInfo{}, Options{Samples: 1, Database: "bench" + string(rune('a'+i%26)) + time.Now().Format("150405.000000")})
		if err != nil {
			b.Fatal(err)
		}
		docs += total
	}
	b.ReportMetric(float64(docs)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkLoad measures seeding alone (seed.Load into a provisioned container), 1 KB documents.
func BenchmarkLoad(b *testing.B) {
	for _, conc := range []int{32, 16, 64} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			client := startEngine(b)
			ctx := context.Background()
			d, plan := loadBenchDesign(b)
			docs := 0
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				prov, err := provision.Provision(ctx, client, d, provision.Options{Database: fmt.Sprintf("load%d", i)})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				res, err := seed.Load(ctx, plan, prov.Containers, seed.Options{Concurrency: conc})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				for _, s := range res.Stats {
					docs += s.Documents
				}
				_ = prov.Teardown(ctx)
				b.StartTimer()
			}
			b.ReportMetric(float64(docs)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// TestRun_Examples runs every example design end to end on the embedded engine, with small counts.
// Executions may fail for reasons the design is meant to show (a missing index, a cross-partition
// shape); every failure must come with an explanation, and every pattern must succeed at least once.
func TestRun_Examples(t *testing.T) {
	files, err := filepath.Glob("../../designs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example designs in ../../designs (%v): the test would pass on nothing", err)
	}
	client := startEngine(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			d, err := design.Load(f)
			if err != nil {
				t.Fatalf("design does not load: %v", err)
			}
			for ci := range d.Containers {
				for ti := range d.Containers[ci].Documents {
					dt := &d.Containers[ci].Documents[ti]
					if dt.Count > 0 {
						dt.Count = max(3, dt.Count/100)
					}
				}
			}
			run, err := Run(context.Background(), d, client, record.TargetInfo{Kind: "embedded"}, Options{Samples: 2, Database: "ex-" + d.Name})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			for _, fd := range run.Findings {
				t.Logf("finding: %s/%s %s: %s", fd.Stage, fd.Level, fd.Subject, fd.Message)
			}
			if len(run.Patterns) == 0 {
				t.Fatal("the run recorded no access patterns: the test would pass on nothing")
			}
			for _, p := range run.Patterns {
				ok := 0
				for _, ex := range p.Executions {
					if ex.Error == "" {
						ok++
						continue
					}
					t.Logf("%s: %d %s — %s", p.ID, ex.Status, ex.Error, ex.Explanation)
					if ex.Explanation == "" {
						t.Errorf("%s: failure without explanation: %s", p.ID, ex.Error)
					}
				}
				// An explained failure is a finding, but an example whose pattern never succeeds
				// shows nothing: every pattern runs at least once.
				if ok == 0 {
					t.Errorf("%s: none of its %d executions succeeded", p.ID, len(p.Executions))
				}
			}
		})
	}
}

// With --reuse-database a run does not write into a container that existed before it unless told
// to: the owner's container and documents are byte-identical afterwards (the run left its 1,600
// seeded documents next to the owner's).
func TestRun_ExistingContainersUntouched(t *testing.T) {
	client := startEngine(t)
	ctx := context.Background()
	d := smallDesign()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "small"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("small")
	props := provision.ContainerProperties(&d.Containers[0])
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer(d.Containers[0].Name)
	mine := []byte(`{"id":"owner-1","userId":"owner","note":"the user's own"}`)
	pk := azcosmos.NewPartitionKeyString("owner")
	if _, err := cc.CreateItem(ctx, pk, mine, nil); err != nil {
		t.Fatal(err)
	}
	before, err := cc.ReadItem(ctx, pk, "owner-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(ctx, d, client, record.TargetInfo{Kind: "embedded"}, Options{Samples: 1, ReuseDatabase: true})
	if !errors.Is(err, ErrExistingContainers) || !strings.Contains(err.Error(), d.Containers[0].Name) {
		t.Fatalf("err = %v, want ErrExistingContainers naming %s", err, d.Containers[0].Name)
	}
	after, err := cc.ReadItem(ctx, pk, "owner-1", nil)
	if err != nil || !bytes.Equal(before.Value, after.Value) {
		t.Errorf("the owner's document changed: %v\n%s\n%s", err, before.Value, after.Value)
	}
	if n, err := seed.CountDocuments(ctx, cc); err != nil || n != 1 {
		t.Errorf("the owner's container holds %d documents (%v), want its 1", n, err)
	}
	// The containers the run created were torn down; the owner's remains.
	pager := db.NewQueryContainersPager("SELECT * FROM c", nil)
	var names []string
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page.Containers {
			names = append(names, c.ID)
		}
	}
	if len(names) != 1 || names[0] != d.Containers[0].Name {
		t.Errorf("containers after the refused run: %v, want only %s", names, d.Containers[0].Name)
	}
}
