package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/sdk"
)

// fakeDocs is a record.Documents over fixed documents, the way seed.Samples serves them.
type fakeDocs struct {
	seeded map[string][]map[string]any
}

func (f *fakeDocs) Sample(docType string, n int) (map[string]any, bool) {
	docs := f.seeded[docType]
	if len(docs) == 0 {
		return nil, false
	}
	return cloneMap(docs[n%len(docs)]), true
}

func (f *fakeDocs) Fresh(docType string, n int, _ map[string]any) (map[string]any, error) {
	return map[string]any{"id": fmt.Sprintf("%s-fresh-%d", docType, n), "userId": fmt.Sprintf("uf%d", n),
		"type": docType, "name": "fresh", "visits": 0.0}, nil
}

func (f *fakeDocs) ParentType(string) string { return "" }

var _ record.Documents = (*fakeDocs)(nil)

// world is an embedded engine with a Users container (key /userId) and an Events container (key
// /tenantId, /deviceId), seeded through the SDK.
type world struct {
	d          *design.Design
	containers map[string]*azcosmos.ContainerClient
	docs       *fakeDocs
	stop       func()
	queries    queryCounter // query requests sent (query plan requests left out)
}

// queryCounter is a pipeline policy counting the query requests a client sends.
type queryCounter struct{ n atomic.Int64 }

func (q *queryCounter) Do(req *policy.Request) (*http.Response, error) {
	h := req.Raw().Header
	if strings.HasPrefix(h.Get("Content-Type"), "application/query+json") && h.Get("x-ms-cosmos-is-query-plan-request") == "" {
		q.n.Add(1)
	}
	return req.Next()
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	srv, err := engine.Start(ctx, engine.Options{Partitions: func(string, string, int) int { return 2 }})
	if err != nil {
		t.Fatal(err)
	}
	stop := func() {
		// Close bounds its own grace (engine.closeGrace) and then closes every connection; a
		// deadline of the caller's would leave connections open once a busy machine reached it.
		_ = srv.Close(context.Background())
	}
	t.Cleanup(stop)
	cred, _ := azcosmos.NewKeyCredential(srv.Key())
	w := &world{}
	client, err := azcosmos.NewClientWithKey(srv.URL(), cred, &azcosmos.ClientOptions{ClientOptions: policy.ClientOptions{
		Retry: policy.RetryOptions{MaxRetries: -1}, PerCallPolicies: []policy.Policy{&w.queries}}})
	if err != nil {
		t.Fatal(err)
	}
	d := &design.Design{Name: "p", Database: "p", Containers: []design.Container{
		{Name: "Users", PartitionKey: []string{"/userId"}, UniqueKeys: [][]string{{"/email"}}},
		{Name: "Events", PartitionKey: []string{"/tenantId", "/deviceId"}},
	}}
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "p"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("p")
	w.d, w.containers, w.docs, w.stop = d, map[string]*azcosmos.ContainerClient{}, &fakeDocs{seeded: map[string][]map[string]any{}}, stop
	for _, c := range d.Containers {
		kind, version := azcosmos.PartitionKeyKindHash, 2
		if len(c.PartitionKey) > 1 {
			kind = azcosmos.PartitionKeyKindMultiHash
		}
		props := azcosmos.ContainerProperties{ID: c.Name, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Kind: kind, Version: version, Paths: c.PartitionKey}}
		if len(c.UniqueKeys) > 0 {
			props.UniqueKeyPolicy = &azcosmos.UniqueKeyPolicy{UniqueKeys: []azcosmos.UniqueKey{{Paths: c.UniqueKeys[0]}}}
		}
		if _, err := db.CreateContainer(ctx, props, nil); err != nil {
			t.Fatal(err)
		}
		w.containers[c.Name], _ = db.NewContainer(c.Name)
	}
	seed := func(container, docType string, doc map[string]any, key ...any) {
		body, _ := json.Marshal(doc)
		if _, err := w.containers[container].CreateItem(ctx, sdk.PartitionKey(key), body, nil); err != nil {
			t.Fatal(err)
		}
		w.docs.seeded[docType] = append(w.docs.seeded[docType], doc)
	}
	for i := range 5 {
		id := fmt.Sprintf("u%d", i)
		seed("Users", "user", map[string]any{"id": id, "userId": id, "type": "user", "name": "n" + id,
			"email": id + "@example.com", "visits": float64(i)}, id)
	}
	for i := range 6 {
		tenant, device := fmt.Sprintf("t%d", i%2), fmt.Sprintf("d%d", i)
		seed("Events", "event", map[string]any{"id": fmt.Sprintf("e%d", i), "tenantId": tenant, "deviceId": device,
			"ts": float64(i)}, tenant, device)
	}
	return w
}

func (w *world) count(t *testing.T, container string) int {
	t.Helper()
	pager := w.containers[container].NewQueryItemsPager("SELECT c.id FROM c", azcosmos.NewPartitionKey(), nil)
	n := 0
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Items)
	}
	return n
}

func (w *world) run(t *testing.T, aps ...design.AccessPattern) ([]record.Pattern, []record.Finding, error) {
	t.Helper()
	w.d.AccessPatterns = aps
	return RunPatterns(context.Background(), w.d, w.containers, w.docs, Options{Samples: 3, Seed: 1})
}

// TestRunPatterns_EveryOperation runs each operation kind and checks that every execution succeeded
// with a charge, and that the seeded data is exactly as before (writes go to copies that are
// removed afterwards).
func TestRunPatterns_EveryOperation(t *testing.T) {
	w := newWorld(t)
	before := w.count(t, "Users")
	pats, findings, err := w.run(t,
		design.AccessPattern{ID: "read", Container: "Users", Op: design.OpRead, Sample: "user"},
		design.AccessPattern{ID: "query", Container: "Users", Op: design.OpQuery, Sample: "user", PartitionKey: []string{"{userId}"},
			Query: "SELECT * FROM c WHERE c.userId = @u", Params: map[string]any{"@u": "{userId}"}},
		design.AccessPattern{ID: "create", Container: "Users", Op: design.OpCreate, Document: "user"},
		design.AccessPattern{ID: "upsert", Container: "Users", Op: design.OpUpsert, Document: "user"},
		design.AccessPattern{ID: "replace", Container: "Users", Op: design.OpReplace, Sample: "user", Document: "user"},
		design.AccessPattern{ID: "patch", Container: "Users", Op: design.OpPatch, Sample: "user",
			Patch: []design.PatchOp{{Op: "incr", Path: "/visits", Value: 1}}},
		design.AccessPattern{ID: "delete", Container: "Users", Op: design.OpDelete, Sample: "user"},
		design.AccessPattern{ID: "batch", Container: "Users", Op: design.OpBatch, Sample: "user", PartitionKey: []string{"{userId}"},
			Batch: []design.BatchOp{{Op: "read", ItemID: "{id}"}, {Op: "patch", ItemID: "{id}", Patch: []design.PatchOp{{Op: "set", Path: "/name", Value: "x"}}}}},
		design.AccessPattern{ID: "full-key", Container: "Events", Op: design.OpQuery, Sample: "event", PartitionKey: []string{"{tenantId}", "{deviceId}"},
			Query: "SELECT * FROM c WHERE c.tenantId = @t AND c.deviceId = @d", Params: map[string]any{"@t": "{tenantId}", "@d": "{deviceId}"}},
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 0 {
		t.Errorf("findings: %+v", findings)
	}
	if len(pats) != 9 {
		t.Fatalf("%d patterns, want 9", len(pats))
	}
	for _, p := range pats {
		if len(p.Executions) != 3 {
			t.Errorf("%s: %d executions, want 3", p.ID, len(p.Executions))
		}
		for _, ex := range p.Executions {
			if ex.Error != "" || ex.Status < 200 || ex.Status > 299 || ex.RU <= 0 {
				t.Errorf("%s: status %d, RU %v, error %q (%s)", p.ID, ex.Status, ex.RU, ex.Error, ex.Explanation)
			}
		}
	}
	if ex := pats[1].Executions[0]; ex.Results != 1 || ex.Pages < 1 || ex.QueryMetrics == nil {
		t.Errorf("query execution: %+v; want one result, pages and query metrics", ex)
	}
	if after := w.count(t, "Users"); after != before {
		t.Errorf("Users holds %d documents after the run, %d before: probe writes must not change seeded data", after, before)
	}
	// The seeded documents are untouched: the patch and replace went to copies.
	resp, err := w.containers["Users"].ReadItem(context.Background(), sdk.PartitionKey([]any{"u0"}), "u0", nil)
	if err != nil {
		t.Fatal(err)
	}
	var u0 map[string]any
	_ = json.Unmarshal(resp.Value, &u0)
	if u0["visits"] != 0.0 || u0["name"] != "nu0" {
		t.Errorf("seeded u0 changed: %v", u0)
	}
}

// TestRunPatterns_FailuresAreRecordedAndExplained: failures are recorded per execution with an
// explanation and never stop the pass; an expected status is not a failure.
func TestRunPatterns_FailuresAreRecordedAndExplained(t *testing.T) {
	w := newWorld(t)
	w.d.App = &design.App{SDK: "go"} // a Go application: the gateway's refusal of a cross-partition ORDER BY stands
	pats, _, err := w.run(t,
		// The gateway cannot ORDER BY across partitions.
		design.AccessPattern{ID: "cross-order", Container: "Events", Op: design.OpQuery, Query: "SELECT * FROM c ORDER BY c.ts DESC"},
		// No seeded document of the sampled type.
		design.AccessPattern{ID: "no-sample", Container: "Users", Op: design.OpRead, Sample: "ghost"},
		// A point read needs every key level.
		design.AccessPattern{ID: "prefix-read", Container: "Events", Op: design.OpRead, Sample: "event", PartitionKey: []string{"{tenantId}"}},
		// A missing item the design expects to miss.
		design.AccessPattern{ID: "expected-404", Container: "Users", Op: design.OpRead, Sample: "user", ItemID: "missing",
			Expect: &design.Expect{Status: 404}},
		// A template naming a field the sample does not have.
		design.AccessPattern{ID: "bad-template", Container: "Users", Op: design.OpRead, Sample: "user", ItemID: "{nope}"},
		design.AccessPattern{ID: "no-container", Container: "Nowhere", Op: design.OpRead},
	)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		status       int
		err, explain string
	}{
		"cross-order":  {400, "", "partition"},
		"no-sample":    {0, "no seeded document of type ghost", "give the type a count"},
		"prefix-read":  {0, "partition key has 1 of 2 levels", "only queries may pass a hierarchical prefix"},
		"expected-404": {404, "", "as the design expects"},
		"bad-template": {0, "item id: {nope}", "itemId template"},
		"no-container": {0, "container Nowhere is not provisioned", "does not define"},
	}
	for _, p := range pats {
		w := want[p.ID]
		ex := p.Executions[0]
		if ex.Status != w.status || !strings.Contains(ex.Error, w.err) || !strings.Contains(ex.Explanation, w.explain) {
			t.Errorf("%s: status %d, error %q, explanation %q; want %d, %q, %q", p.ID, ex.Status, ex.Error, ex.Explanation, w.status, w.err, w.explain)
		}
		if p.ID == "expected-404" && ex.Error != "" {
			t.Errorf("expected-404: an expected status is recorded as an error: %q", ex.Error)
		}
		if p.ID != "expected-404" && ex.Error == "" {
			t.Errorf("%s: no error recorded", p.ID)
		}
	}
}

// TestRunPatterns_PrefixQueryWithoutFilter: a hierarchical prefix query sent with prefixIn: where
// passes an empty key, so it must filter on the prefix in WHERE; the probe says so when it does
// not. Sent in the request options (the default when WHERE does not give it), the prefix routes
// and is re-checked: no warning.
func TestRunPatterns_PrefixQueryWithoutFilter(t *testing.T) {
	w := newWorld(t)
	_, findings, err := w.run(t,
		design.AccessPattern{ID: "Q", Container: "Events", Op: design.OpQuery, Sample: "event", PartitionKey: []string{"{tenantId}"},
			Query: "SELECT * FROM c WHERE c.ts > 0", PrefixIn: design.PrefixWhere},
		design.AccessPattern{ID: "OPT", Container: "Events", Op: design.OpQuery, Sample: "event", PartitionKey: []string{"{tenantId}"},
			Query: "SELECT * FROM c WHERE c.ts > 0"},
		design.AccessPattern{ID: "OK", Container: "Events", Op: design.OpQuery, Sample: "event", PartitionKey: []string{"{tenantId}"},
			Query: "SELECT * FROM c WHERE c.tenantId = @t", Params: map[string]any{"@t": "{tenantId}"}},
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 1 || findings[0].Subject != "pattern Q" || findings[0].Level != "warn" || !strings.Contains(findings[0].Message, "/tenantId") {
		t.Fatalf("findings = %+v; want one warning about pattern Q's missing /tenantId filter", findings)
	}
}

// TestRunPatterns_SamplesAreDeterministic: the same seed draws the same documents, another seed
// others, and a pattern's own sample count wins.
func TestRunPatterns_SamplesAreDeterministic(t *testing.T) {
	w := newWorld(t)
	ap := design.AccessPattern{ID: "R", Container: "Users", Op: design.OpRead, Sample: "user", ItemID: "{id}", Samples: 8}
	w.d.AccessPatterns = []design.AccessPattern{ap}
	picks := func(seed int64) []int {
		r := &runner{o: Options{Seed: seed}}
		var out []int
		for i := range 8 {
			out = append(out, r.pick(0, i)%5)
		}
		return out
	}
	if a, b := picks(1), picks(1); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("same seed, different picks: %v %v", a, b)
	}
	if a, b := picks(1), picks(2); fmt.Sprint(a) == fmt.Sprint(b) {
		t.Errorf("seeds 1 and 2 pick the same documents: %v", a)
	}
	pats, _, err := RunPatterns(context.Background(), w.d, w.containers, w.docs, Options{Samples: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pats[0].Executions); n != 8 {
		t.Errorf("%d executions; the pattern's samples: 8 must win over the run's 2", n)
	}
}

// TestRunPatterns_StopsOnTargetFailureAndCancel: a target that went away ends the pass with an
// infrastructure error; a cancelled context ends it with the context's error.
func TestRunPatterns_StopsOnTargetFailureAndCancel(t *testing.T) {
	w := newWorld(t)
	w.d.AccessPatterns = []design.AccessPattern{{ID: "R", Container: "Users", Op: design.OpRead, Sample: "user"}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := RunPatterns(ctx, w.d, w.containers, w.docs, Options{Samples: 1}); err != context.Canceled {
		t.Errorf("cancelled: err = %v", err)
	}
	w.stop()
	_, _, err := RunPatterns(context.Background(), w.d, w.containers, w.docs, Options{Samples: 1})
	if !sdk.IsInfrastructure(err) {
		t.Errorf("stopped target: err = %v, want an infrastructure error", err)
	}
}

// TestRunPatterns_QueryWarmsUpOnce: a query pattern is executed once before its samples, and that
// execution is not among them; point operations are not.
func TestRunPatterns_QueryWarmsUpOnce(t *testing.T) {
	w := newWorld(t)
	before := w.queries.n.Load()
	pats, _, err := w.run(t,
		design.AccessPattern{ID: "Q", Container: "Users", Op: design.OpQuery, Sample: "user", PartitionKey: []string{"{userId}"},
			Query: "SELECT * FROM c WHERE c.userId = @u", Params: map[string]any{"@u": "{userId}"}},
		design.AccessPattern{ID: "R", Container: "Users", Op: design.OpRead, Sample: "user"},
	)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pats[0].Executions); n != 3 {
		t.Fatalf("query samples = %d, want 3", n)
	}
	if sent := w.queries.n.Load() - before; sent != 4 {
		t.Errorf("query requests = %d, want 4 (one warm-up and three samples)", sent)
	}
	if n := len(pats[1].Executions); n != 3 {
		t.Errorf("read samples = %d, want 3", n)
	}
}
