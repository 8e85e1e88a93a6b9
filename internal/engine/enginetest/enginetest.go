// Package enginetest is the conformance suite of a Cosmos DB NoSQL endpoint as the validator uses
// it, written against the real azcosmos SDK. It runs against the embedded engine always and against
// an emulator, an account or a container image of the engine when one is configured.
package enginetest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azpolicy "github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// Options tune the suite to the target.
type Options struct {
	// Prefix names the databases the suite creates (and deletes); default "cdvconf".
	Prefix string
	// SkipCharges skips assertions on request charges (placeholder charges on the vNext emulator).
	SkipCharges bool
	// Key and NewClient, when given, let the suite sign requests itself: NewClient builds a client
	// of the same endpoint with extra per-retry policies (resource-id addresses).
	Key       string
	NewClient func(perRetry ...azpolicy.Policy) (*azcosmos.Client, error)
}

// Run exercises the endpoint behind client: databases, containers (Hash and MultiHash keys,
// indexing policy, unique keys, TTL, throughput), items and their error codes, patch, batch and
// queries. Every database it creates is deleted at the end.
func Run(t *testing.T, client *azcosmos.Client, o Options) {
	t.Helper()
	if o.Prefix == "" {
		o.Prefix = "cdvconf"
	}
	// No deadline: the suite through a container on a busy machine is slow, not wrong; a hang is
	// ended by go test's -timeout with every stack.
	ctx := context.Background()
	dbID := fmt.Sprintf("%s-%d", o.Prefix, time.Now().UnixNano())
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: dbID}, nil); err != nil {
		t.Fatalf("create database: %v", err)
	}
	db, _ := client.NewDatabase(dbID)
	t.Cleanup(func() { _, _ = db.Delete(context.Background(), nil) })

	t.Run("Database", func(t *testing.T) { testDatabase(ctx, t, client, dbID) })
	t.Run("Container", func(t *testing.T) { testContainer(ctx, t, db) })
	t.Run("Items", func(t *testing.T) { testItems(ctx, t, db, o) })
	t.Run("Hierarchical", func(t *testing.T) { testHierarchical(ctx, t, db) })
	t.Run("Patch", func(t *testing.T) { testPatch(ctx, t, db) })
	t.Run("Batch", func(t *testing.T) { testBatch(ctx, t, db) })
	t.Run("Query", func(t *testing.T) { testQuery(ctx, t, db) })
	t.Run("Routing", func(t *testing.T) { testRouting(ctx, t, db) })
	t.Run("Metrics", func(t *testing.T) { testMetrics(ctx, t, db) })
	t.Run("ChangeFeed", func(t *testing.T) { testChangeFeed(ctx, t, db) })
	t.Run("RIDLinks", func(t *testing.T) { testRIDLinks(ctx, t, db, o) })
	t.Run("Paging", func(t *testing.T) { testPaging(ctx, t, db) })
	t.Run("Search", func(t *testing.T) { testSearch(ctx, t, db) })
}

// Status returns the HTTP status of an SDK error, 0 when it is not a response error.
func Status(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

func wantStatus(t *testing.T, what string, err error, want int) {
	t.Helper()
	if got := Status(err); got != want {
		t.Errorf("%s: status %d (err %v), want %d", what, got, err, want)
	}
}

func policy() *azcosmos.IndexingPolicy {
	return &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
		IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}}
}

func createContainer(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient, p azcosmos.ContainerProperties, ru int32) *azcosmos.ContainerClient {
	t.Helper()
	if p.IndexingPolicy == nil {
		p.IndexingPolicy = policy()
	}
	var opts *azcosmos.CreateContainerOptions
	if ru > 0 {
		tp := azcosmos.NewManualThroughputProperties(ru)
		opts = &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}
	}
	if _, err := db.CreateContainer(ctx, p, opts); err != nil {
		t.Fatalf("create container %s: %v", p.ID, err)
	}
	c, _ := db.NewContainer(p.ID)
	return c
}

func testDatabase(ctx context.Context, t *testing.T, client *azcosmos.Client, dbID string) {
	_, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: dbID}, nil)
	wantStatus(t, "duplicate database", err, http.StatusConflict)
	db, _ := client.NewDatabase(dbID)
	r, err := db.Read(ctx, nil)
	if err != nil || r.DatabaseProperties.ID != dbID {
		t.Fatalf("read database: %v", err)
	}
	missing, _ := client.NewDatabase(dbID + "-missing")
	_, err = missing.Read(ctx, nil)
	wantStatus(t, "read missing database", err, http.StatusNotFound)
}

func testContainer(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient) {
	c := createContainer(ctx, t, db, azcosmos.ContainerProperties{ID: "orders",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/customerId"}, Version: 2}}, 400)
	r, err := c.Read(ctx, nil)
	if err != nil {
		t.Fatalf("read container: %v", err)
	}
	props := r.ContainerProperties
	if got := props.PartitionKeyDefinition.Paths; len(got) != 1 || got[0] != "/customerId" {
		t.Errorf("partition key paths = %v", got)
	}
	props.IndexingPolicy = &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
		IncludedPaths: []azcosmos.IncludedPath{{Path: "/customerId/?"}}, ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/*"}}}
	if _, err := c.Replace(ctx, *props, nil); err != nil {
		t.Fatalf("replace container: %v", err)
	}
	r, err = c.Read(ctx, nil)
	if err != nil || len(r.ContainerProperties.IndexingPolicy.ExcludedPaths) == 0 {
		t.Errorf("indexing policy change not kept: %v", err)
	}
	tp, err := c.ReadThroughput(ctx, nil)
	if err != nil {
		t.Fatalf("read throughput: %v", err)
	}
	if ru, ok := tp.ThroughputProperties.ManualThroughput(); !ok || ru != 400 {
		t.Errorf("throughput = %d, want 400", ru)
	}
	if _, err := c.ReplaceThroughput(ctx, azcosmos.NewManualThroughputProperties(500), nil); err != nil {
		t.Fatalf("replace throughput: %v", err)
	}
	tp, err = c.ReadThroughput(ctx, nil)
	if ru, _ := tp.ThroughputProperties.ManualThroughput(); err != nil || ru != 500 {
		t.Errorf("throughput after replace = %d (%v), want 500", ru, err)
	}
	_, err = db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "orders",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/customerId"}}, IndexingPolicy: policy()}, nil)
	wantStatus(t, "duplicate container", err, http.StatusConflict)
	pager := db.NewQueryContainersPager("SELECT * FROM c", nil)
	found := false
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatalf("query containers: %v", err)
		}
		for _, cp := range page.Containers {
			found = found || cp.ID == "orders"
		}
	}
	if !found {
		t.Errorf("container orders not listed")
	}
	if _, err := c.Delete(ctx, nil); err != nil {
		t.Fatalf("delete container: %v", err)
	}
	_, err = c.Read(ctx, nil)
	wantStatus(t, "read deleted container", err, http.StatusNotFound)
}

func item(id, pk string, extra map[string]any) []byte {
	m := map[string]any{"id": id, "pk": pk}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

func testItems(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient, o Options) {
	c := createContainer(ctx, t, db, azcosmos.ContainerProperties{ID: "items",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2},
		UniqueKeyPolicy:        &azcosmos.UniqueKeyPolicy{UniqueKeys: []azcosmos.UniqueKey{{Paths: []string{"/email"}}}}}, 400)
	pk := azcosmos.NewPartitionKeyString("p1")
	cr, err := c.CreateItem(ctx, pk, item("a", "p1", map[string]any{"email": "a@x", "n": 1}), nil)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if !o.SkipCharges && cr.RequestCharge <= 0 {
		t.Errorf("create charge = %v, want > 0", cr.RequestCharge)
	}
	_, err = c.CreateItem(ctx, pk, item("a", "p1", nil), nil)
	wantStatus(t, "duplicate id", err, http.StatusConflict)
	_, err = c.CreateItem(ctx, pk, item("b", "p1", map[string]any{"email": "a@x"}), nil)
	wantStatus(t, "unique key violation", err, http.StatusConflict)
	if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString("p2"), item("b", "p2", map[string]any{"email": "a@x"}), nil); err != nil {
		t.Errorf("unique keys are per logical partition: %v", err)
	}
	_, err = c.CreateItem(ctx, pk, item("c", "other", nil), nil)
	wantStatus(t, "partition key mismatch", err, http.StatusBadRequest)
	_, err = c.CreateItem(ctx, pk, item("big", "p1", map[string]any{"blob": strings.Repeat("x", 2*1024*1024)}), nil)
	wantStatus(t, "item over 2 MB", err, http.StatusRequestEntityTooLarge)

	rr, err := c.ReadItem(ctx, pk, "a", nil)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var got map[string]any
	if err := json.Unmarshal(rr.Value, &got); err != nil || got["id"] != "a" || got["_rid"] == nil || got["_etag"] == nil || got["_ts"] == nil {
		t.Errorf("read body = %s", rr.Value)
	}
	if !o.SkipCharges && rr.RequestCharge <= 0 {
		t.Errorf("read charge = %v, want > 0", rr.RequestCharge)
	}
	_, err = c.ReadItem(ctx, pk, "missing", nil)
	wantStatus(t, "read missing", err, http.StatusNotFound)
	_, err = c.ReadItem(ctx, azcosmos.NewPartitionKeyString("p9"), "a", nil)
	wantStatus(t, "read in other partition", err, http.StatusNotFound)

	stale := azcore.ETag("\"stale\"")
	_, err = c.ReplaceItem(ctx, pk, "a", item("a", "p1", map[string]any{"n": 2}), &azcosmos.ItemOptions{IfMatchEtag: &stale})
	wantStatus(t, "replace with stale etag", err, http.StatusPreconditionFailed)
	etag := rr.ETag
	rep, err := c.ReplaceItem(ctx, pk, "a", item("a", "p1", map[string]any{"n": 2, "email": "a@x"}), &azcosmos.ItemOptions{IfMatchEtag: &etag})
	if err != nil {
		t.Fatalf("replace with current etag: %v", err)
	}
	if rep.ETag == etag {
		t.Errorf("etag unchanged after replace")
	}
	_, err = c.ReplaceItem(ctx, pk, "nope", item("nope", "p1", nil), nil)
	wantStatus(t, "replace missing", err, http.StatusNotFound)
	up, err := c.UpsertItem(ctx, pk, item("u", "p1", nil), nil)
	if err != nil || up.RawResponse.StatusCode != http.StatusCreated {
		t.Errorf("upsert new: %v", err)
	}
	up, err = c.UpsertItem(ctx, pk, item("u", "p1", map[string]any{"v": 2}), nil)
	if err != nil || up.RawResponse.StatusCode != http.StatusOK {
		t.Errorf("upsert existing: %v", err)
	}
	if _, err := c.DeleteItem(ctx, pk, "u", nil); err != nil {
		t.Errorf("delete: %v", err)
	}
	_, err = c.DeleteItem(ctx, pk, "u", nil)
	wantStatus(t, "delete missing", err, http.StatusNotFound)
}

func testHierarchical(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient) {
	c := createContainer(ctx, t, db, azcosmos.ContainerProperties{ID: "sessions",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2,
			Paths: []string{"/tenantId", "/userId", "/sessionId"}}}, 12000)
	for i := range 6 {
		pk := azcosmos.NewPartitionKeyString("t1").AppendString(fmt.Sprintf("u%d", i%2)).AppendString(fmt.Sprintf("s%d", i))
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("i%d", i), "tenantId": "t1", "userId": fmt.Sprintf("u%d", i%2), "sessionId": fmt.Sprintf("s%d", i)})
		if _, err := c.CreateItem(ctx, pk, b, nil); err != nil {
			t.Fatalf("create hierarchical item: %v", err)
		}
	}
	pk := azcosmos.NewPartitionKeyString("t1").AppendString("u1").AppendString("s3")
	if _, err := c.ReadItem(ctx, pk, "i3", nil); err != nil {
		t.Errorf("read with full hierarchical key: %v", err)
	}
	wrong := azcosmos.NewPartitionKeyString("t1").AppendString("u0").AppendString("s3")
	_, err := c.ReadItem(ctx, wrong, "i3", nil)
	wantStatus(t, "read with wrong hierarchical key", err, http.StatusNotFound)
	b, _ := json.Marshal(map[string]any{"id": "bad", "tenantId": "t1", "userId": "u9", "sessionId": "s1"})
	_, err = c.CreateItem(ctx, azcosmos.NewPartitionKeyString("t1").AppendString("u1").AppendString("s1"), b, nil)
	wantStatus(t, "hierarchical key mismatch", err, http.StatusBadRequest)
}

func testPatch(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient) {
	c := createContainer(ctx, t, db, azcosmos.ContainerProperties{ID: "patch",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}, 0)
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := c.CreateItem(ctx, pk, item("x", "p", map[string]any{"n": 1, "tags": []string{"a"}, "old": true, "nested": map[string]any{"v": 1}}), nil); err != nil {
		t.Fatalf("create: %v", err)
	}
	var ops azcosmos.PatchOperations
	ops.AppendSet("/name", "set")
	ops.AppendAdd("/tags/-", "b")
	ops.AppendReplace("/nested/v", 2)
	ops.AppendRemove("/old")
	ops.AppendIncrement("/n", 5)
	r, err := c.PatchItem(ctx, pk, "x", ops, &azcosmos.ItemOptions{EnableContentResponseOnWrite: true})
	if err != nil {
		t.Fatalf("patch: %v", err)
	}
	var got map[string]any
	_ = json.Unmarshal(r.Value, &got)
	if got["name"] != "set" || got["n"] != 6.0 || got["old"] != nil || fmt.Sprint(got["tags"]) != "[a b]" || fmt.Sprint(got["nested"]) != "map[v:2]" {
		t.Errorf("patched body = %s", r.Value)
	}
	var bad azcosmos.PatchOperations
	bad.AppendReplace("/missing", 1)
	_, err = c.PatchItem(ctx, pk, "x", bad, nil)
	wantStatus(t, "replace of a missing path", err, http.StatusBadRequest)
	var cond azcosmos.PatchOperations
	cond.SetCondition("FROM c WHERE c.n > 100")
	cond.AppendSet("/flag", true)
	_, err = c.PatchItem(ctx, pk, "x", cond, nil)
	wantStatus(t, "conditional patch, condition false", err, http.StatusPreconditionFailed)
}

func testBatch(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient) {
	c := createContainer(ctx, t, db, azcosmos.ContainerProperties{ID: "batch",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}, 0)
	pk := azcosmos.NewPartitionKeyString("b")
	if _, err := c.CreateItem(ctx, pk, item("existing", "b", nil), nil); err != nil {
		t.Fatalf("create: %v", err)
	}
	ok := c.NewTransactionalBatch(pk)
	ok.CreateItem(item("n1", "b", nil), nil)
	ok.UpsertItem(item("n2", "b", nil), nil)
	ok.ReadItem("existing", nil)
	resp, err := c.ExecuteTransactionalBatch(ctx, ok, nil)
	if err != nil || !resp.Success || len(resp.OperationResults) != 3 {
		t.Fatalf("batch: success=%v err=%v", resp.Success, err)
	}
	if resp.OperationResults[0].StatusCode != 201 || resp.OperationResults[2].StatusCode != 200 {
		t.Errorf("batch statuses = %d, %d", resp.OperationResults[0].StatusCode, resp.OperationResults[2].StatusCode)
	}
	fail := c.NewTransactionalBatch(pk)
	fail.CreateItem(item("n3", "b", nil), nil)
	fail.CreateItem(item("existing", "b", nil), nil)
	resp, err = c.ExecuteTransactionalBatch(ctx, fail, nil)
	if err != nil {
		t.Fatalf("failing batch: %v", err)
	}
	if resp.Success || resp.OperationResults[1].StatusCode != 409 || resp.OperationResults[0].StatusCode != 424 {
		t.Errorf("failing batch: success=%v results=%+v", resp.Success, resp.OperationResults)
	}
	_, err = c.ReadItem(ctx, pk, "n3", nil)
	wantStatus(t, "batch rolled back", err, http.StatusNotFound)
}

func testQuery(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient) {
	c := createContainer(ctx, t, db, azcosmos.ContainerProperties{ID: "query",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}, 12000)
	for i := range 20 {
		pk := fmt.Sprintf("p%d", i%4)
		if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), item(fmt.Sprintf("q%d", i), pk, map[string]any{"n": i}), nil); err != nil {
			t.Fatalf("create: %v", err)
		}
	}
	pager := c.NewQueryItemsPager("SELECT * FROM c WHERE c.n >= @min", azcosmos.NewPartitionKeyString("p1"),
		&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@min", Value: 0}}, PageSizeHint: 2})
	n, charge := 0, 0.0
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatalf("single-partition query: %v", err)
		}
		n += len(page.Items)
		charge += float64(page.RequestCharge)
	}
	if n != 5 || charge <= 0 {
		t.Errorf("single-partition query: %d items, %.2f RU; want 5 items and a charge", n, charge)
	}
	pager = c.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKey(), nil)
	n, ranges := 0, map[string]bool{}
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatalf("cross-partition query: %v", err)
		}
		n += len(page.Items)
		ranges[page.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid")] = true
	}
	if n != 20 {
		t.Errorf("cross-partition query: %d items, want 20", n)
	}
	pager = c.NewQueryItemsPager("SELECT * FROM c ORDER BY c.n", azcosmos.NewPartitionKey(), nil)
	_, err := pager.NextPage(ctx)
	wantStatus(t, "cross-partition ORDER BY", err, http.StatusBadRequest)
}

// testRouting checks queries whose partition key is in WHERE rather than in the request: the SDK
// sends them with an empty key (azcosmos NewQueryItemsPager documents that a WHERE clause filtering
// down to one partition runs on that partition), so the clauses the gateway cannot serve across
// partitions are served when WHERE pins one logical partition.
func testRouting(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient) {
	c := createContainer(ctx, t, db, azcosmos.ContainerProperties{ID: "routing",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2,
			Paths: []string{"/tenantId", "/userId"}}}, 12000)
	for i := range 12 {
		tenant, user := fmt.Sprintf("t%d", i%3), fmt.Sprintf("u%d", i%2)
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("r%d", i), "tenantId": tenant, "userId": user, "n": i})
		if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(tenant).AppendString(user), b, nil); err != nil {
			t.Fatalf("create: %v", err)
		}
	}
	run := func(query string, params ...azcosmos.QueryParameter) ([]map[string]any, map[string]bool, error) {
		pager := c.NewQueryItemsPager(query, azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{QueryParameters: params})
		var items []map[string]any
		ranges := map[string]bool{}
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				return nil, nil, err
			}
			if len(page.Items) > 0 {
				ranges[page.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid")] = true
			}
			for _, it := range page.Items {
				var m map[string]any
				_ = json.Unmarshal(it, &m)
				items = append(items, m)
			}
		}
		return items, ranges, nil
	}
	items, ranges, err := run("SELECT * FROM c WHERE c.tenantId = @t AND c.userId = @u",
		azcosmos.QueryParameter{Name: "@t", Value: "t1"}, azcosmos.QueryParameter{Name: "@u", Value: "u0"})
	if err != nil {
		t.Fatalf("full key in WHERE: %v", err)
	}
	if len(items) != 2 || len(ranges) != 1 {
		t.Errorf("full key in WHERE: %d items from %d ranges, want 2 from 1", len(items), len(ranges))
	}
	items, _, err = run("SELECT * FROM c WHERE c.tenantId = 't2'")
	if err != nil || len(items) != 4 {
		t.Errorf("prefix in WHERE: %d items (%v), want 4", len(items), err)
	}
	items, _, err = run("SELECT * FROM c WHERE c.tenantId = 't0' AND c.userId = 'u0' ORDER BY c.n DESC")
	if err != nil {
		t.Fatalf("ORDER BY pinned to one logical partition: %v", err)
	}
	if len(items) != 2 || items[0]["n"] != 6.0 || items[1]["n"] != 0.0 {
		t.Errorf("ORDER BY pinned to one logical partition: %v", items)
	}
	// A prefix of a hierarchical key, or several full keys, is a cross-partition query for the
	// gateway, however few physical partitions hold the data (azcosmos NewQueryItemsPager: a query
	// that filters on only some of the key paths runs as a cross-partition query).
	for _, q := range []string{
		"SELECT * FROM c WHERE c.tenantId = 't0' ORDER BY c.n",
		"SELECT TOP 1 * FROM c WHERE c.tenantId = 't0' AND c.userId IN ('u0', 'u1')",
	} {
		_, _, err := run(q)
		wantStatus(t, q, err, http.StatusBadRequest)
	}
}

// testMetrics checks the query-metrics header on every query page and the index-metrics header
// (base64 JSON) when asked for.
func testMetrics(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient) {
	c := createContainer(ctx, t, db, azcosmos.ContainerProperties{ID: "metrics",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}, 0)
	pk := azcosmos.NewPartitionKeyString("m")
	for i := range 5 {
		if _, err := c.CreateItem(ctx, pk, item(fmt.Sprintf("m%d", i), "m", map[string]any{"n": i}), nil); err != nil {
			t.Fatalf("create: %v", err)
		}
	}
	pager := c.NewQueryItemsPager("SELECT * FROM c WHERE c.n = 2", pk, &azcosmos.QueryOptions{PopulateIndexMetrics: true})
	page, err := pager.NextPage(ctx)
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	if page.QueryMetrics == nil || !strings.Contains(*page.QueryMetrics, "retrievedDocumentCount=") ||
		!strings.Contains(*page.QueryMetrics, "outputDocumentCount=1") {
		t.Errorf("query metrics = %v", page.QueryMetrics)
	}
	if page.IndexMetrics == nil {
		t.Fatal("no index metrics with PopulateIndexMetrics")
	}
	dec, err := base64.StdEncoding.DecodeString(*page.IndexMetrics)
	var im struct {
		UtilizedSingleIndexes []struct{ IndexSpec string }
	}
	if err != nil || json.Unmarshal(dec, &im) != nil || len(im.UtilizedSingleIndexes) == 0 {
		t.Errorf("index metrics = %q: want base64 JSON naming a utilized index", *page.IndexMetrics)
	}
}
