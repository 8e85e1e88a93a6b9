package plan

import (
	"encoding/json"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// oneDoc is a sql.Source of documents, in order.
type oneDoc []*sql.Document

func (s oneDoc) Scan(fn func(d *sql.Document) bool) {
	for _, d := range s {
		if !fn(d) {
			return
		}
	}
}
func (s oneDoc) Len() int { return len(s) }

// TestEstimateQuery_OutputFollowsTheRangeRewrite: across partitions an SDK with a query engine runs
// the query plan's rewritten query on each partition key range, and the rows it receives are the
// rewrite's (saas AP9: {"_rid", "orderByItems", "payload"}, 7.2 KB estimated against 14.1 KB
// executed while only the payload was sized). The estimated bytes of a row are the JSON size the
// engine's executor gives the rewritten query's row, within a byte or two;
// on the Go SDK, whose run keeps the gateway's refusal, and with a full key, the query's own
// projection.
func TestEstimateQuery_OutputFollowsTheRangeRewrite(t *testing.T) {
	doc := map[string]any{
		"id": "session-00001", "tenantId": "tenant-0001", "type": "session", "startedAt": "2025-06-01T10:00:00Z",
		"_rid": "AAAAAAAAAAABAAAAAAAAAA==", // the engine's ridDoc format: 16 bytes in base64
	}
	raw, _ := json.Marshal(doc)
	src := oneDoc{{Body: doc, Size: len(raw)}}
	// rowBytes is what the engine returns for one row of text on doc.
	rowBytes := func(t *testing.T, text string) float64 {
		t.Helper()
		q, err := sql.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sql.Execute(q, src, sql.Options{})
		if err != nil || len(res.Items) != 1 {
			t.Fatalf("%s: %v, %d rows", text, err, len(res.Items))
		}
		return float64(res.Facts.BytesOutput)
	}
	build := func(sdk string, query string, pk []string) *Pattern {
		t.Helper()
		d := &design.Design{
			Version: 1, Name: "rw", Regions: 1, App: &design.App{SDK: sdk},
			Containers: []design.Container{{
				Name: "Activity", PartitionKey: []string{"/tenantId"}, Throughput: design.Throughput{Manual: 40000},
				Partitions: 4,
				Documents: []design.DocType{{
					Type: "session", Count: 400, ID: "session-{seq}",
					Fields: design.Fields{
						{Name: "tenantId", Field: design.Field{Const: "tenant-0001"}},
						{Name: "type", Field: design.Field{Const: "session"}},
						{Name: "startedAt", Field: design.Field{Const: "2025-06-01T10:00:00Z"}},
					},
				}},
			}},
			AccessPatterns: []design.AccessPattern{{ID: "AP1", Name: "q", Container: "Activity", Op: design.OpQuery,
				Query: query, PartitionKey: pk, RPS: design.RPS{Avg: 1}, Estimate: design.Estimate{RU: 10}}},
		}
		p, err := Build(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Patterns[0].Facts == nil || p.Patterns[0].Facts.DocsOutput == 0 {
			t.Fatalf("%s: no output: %+v", query, p.Patterns[0].Facts)
		}
		return &p.Patterns[0]
	}
	perRow := func(pt *Pattern) float64 { return float64(pt.Facts.BytesOutput) / float64(pt.Facts.DocsOutput) }

	const orderBy = "SELECT TOP 20 c.tenantId, c.startedAt FROM c WHERE c.type = 'session' ORDER BY c.startedAt DESC"
	q, err := sql.Parse(orderBy)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := q.CrossPartitionPlan(nil, false)
	if err != nil {
		t.Fatal(err)
	}
	wrapped, plain := rowBytes(t, pl.RangeQuery(orderBy)), rowBytes(t, orderBy)

	tests := []struct {
		name, sdk, query string
		pk               []string
		want, slack      float64
	}{
		{"ORDER BY across partitions on .NET: orderByItems, payload and _rid", design.SDKDotNet, orderBy, nil, wrapped, 2},
		{"the same on the Go SDK: the gateway's refusal stands, no rewrite", design.SDKGo, orderBy, nil, plain, 2},
		{"with the full key: one partition, run as written", design.SDKDotNet, orderBy, []string{"{tenantId}"}, plain, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := perRow(build(tt.sdk, tt.query, tt.pk))
			if got < tt.want-tt.slack || got > tt.want+tt.slack {
				t.Errorf("estimated %.0f bytes a row, the engine returns %.0f", got, tt.want)
			}
		})
	}
	if wrapped < plain+60 {
		t.Fatalf("the rewrite's row (%v bytes) should carry a wrapper over the plain one (%v)", wrapped, plain)
	}

	// Aggregates and GROUP BY: the partials' shapes, an aggregate's value sized as aggregateBytes.
	for _, query := range []string{
		"SELECT VALUE COUNT(1) FROM c WHERE c.type = 'session'",
		"SELECT c.tenantId, COUNT(1) AS n FROM c WHERE c.type = 'session' GROUP BY c.tenantId",
	} {
		q, _ := sql.Parse(query)
		pl, err := q.CrossPartitionPlan(nil, false)
		if err != nil {
			t.Fatal(err)
		}
		// The executed count is 1 (one digit): the estimate's assumed value takes aggregateBytes.
		want := rowBytes(t, pl.RangeQuery(query)) - 1 + aggregateBytes
		if got := perRow(build(design.SDKDotNet, query, nil)); got < want-2 || got > want+2 {
			t.Errorf("%s: estimated %.0f bytes a row, want %.0f (the engine's row, its count sized as assumed)", query, got, want)
		}
	}
}
