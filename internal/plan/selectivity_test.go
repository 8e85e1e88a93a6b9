package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestEstimateQuery_FilterSelectivityFromGenerators: a range, IN or equality filter keeps the
// share of documents its field's generator gives (issue 14: `c.total > 890` over money 5–900 had
// been taken to match every order, 993 of 993, which plan projected to 3.2M RU at production against
// run's 17.6k); without a generator bound the estimate says what it assumed.
func TestEstimateQuery_FilterSelectivityFromGenerators(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	d := &design.Design{
		Version: 1, Name: "sel", Regions: 1,
		Containers: []design.Container{{
			Name: "Orders", PartitionKey: []string{"/customerId"}, Throughput: design.Throughput{Manual: 4000},
			Documents: []design.DocType{{
				Type: "order", Count: 1000, ID: "order-{seq}",
				Fields: design.Fields{
					{Name: "customerId", Field: design.Field{Gen: "code", Cardinality: 50}},
					{Name: "type", Field: design.Field{Const: "order"}},
					{Name: "total", Field: design.Field{Gen: "money", Min: f(5), Max: f(900)}},
					{Name: "qty", Field: design.Field{Gen: "int", Min: f(1), Max: f(10)}},
					{Name: "createdAt", Field: design.Field{Gen: "isoTime", From: "2024-01-01", To: "2025-01-01"}},
					{Name: "status", Field: design.Field{OneOf: []any{"open", "shipped", "delivered"}, Weights: []float64{1, 3, 6}}},
				},
			}},
		}},
	}
	cases := []struct {
		query  string
		params map[string]any
		loaded int    // of 1000 orders
		note   string // in the pattern's detail
	}{
		{query: "SELECT * FROM c WHERE c.type = 'order' AND c.total > 890", loaded: 11, note: "keeps 1.12% of order documents (gen money 5–900, uniform)"},
		{query: "SELECT * FROM c WHERE 890 < c.total", loaded: 11, note: "keeps 1.12%"},
		{query: "SELECT * FROM c WHERE c.total BETWEEN 100 AND 199.5", loaded: 111, note: "keeps 11.1%"},
		{query: "SELECT * FROM c WHERE c.qty >= 8", loaded: 300, note: "keeps 30%"},
		{query: "SELECT * FROM c WHERE c.qty > 8", loaded: 200, note: "keeps 20%"},
		{query: "SELECT * FROM c WHERE c.createdAt < '2024-07-01'", loaded: 497, note: "gen isoTime 2024-01-01–2025-01-01"},
		{query: "SELECT * FROM c WHERE c.createdAt >= '2024-07-01T12'", loaded: 501},
		{query: "SELECT * FROM c WHERE c.status IN ('open', 'shipped')", loaded: 400, note: "keeps 40% of order documents (oneOf of 3 values)"},
		{query: "SELECT * FROM c WHERE c.status = 'open'", loaded: 100},
		{query: "SELECT * FROM c WHERE c.total > @min", params: map[string]any{"@min": 890}, loaded: 11, note: "keeps 1.12%"},
		{query: "SELECT * FROM c WHERE c.total > 'high'", loaded: 0, note: "keeps 0%"},
		{query: "SELECT * FROM c WHERE c.total > @t", params: map[string]any{"@t": "{total}"}, loaded: 1000,
			note: "a bound is a parameter filled from a seeded document, so its selectivity is unknown: " + rangeFallback},
	}
	for i, tc := range cases {
		d.AccessPatterns = append(d.AccessPatterns, design.AccessPattern{
			ID: fmt.Sprintf("Q%d", i), Name: "q", Container: "Orders", Op: design.OpQuery,
			Query: tc.query, Params: tc.params, RPS: design.RPS{Avg: 1}, Estimate: design.Estimate{RU: 10}})
	}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range cases {
		detail := p.Patterns[i].Detail
		if want := fmt.Sprintf("%d loaded", tc.loaded); !strings.HasPrefix(detail, want) {
			t.Errorf("%s: detail %q, want %q", tc.query, detail, want)
		}
		if !strings.Contains(detail, tc.note) {
			t.Errorf("%s: detail %q, want the note %q", tc.query, detail, tc.note)
		}
	}
}

// TestEstimateQuery_TextSearchSelectivityFromTheGenerator: a text search keeps the documents whose
// generated text holds its word or substring, as the seed package derives it from the text
// generator (support AP6, FullTextContains(c.body, 'bridge') over 500-byte texts: 11 returned
// estimated, every ticket of the tenant, against 3.9 executed); every loaded document is still
// evaluated. Where the generator cannot tell, every document is kept and the detail says so.
func TestEstimateQuery_TextSearchSelectivityFromTheGenerator(t *testing.T) {
	d := &design.Design{
		Version: 1, Name: "fts", Regions: 1,
		Containers: []design.Container{{
			Name: "Tickets", PartitionKey: []string{"/tenantId"}, Throughput: design.Throughput{Manual: 4000},
			Indexing: &design.Indexing{Included: []string{"/tenantId/?"}, Excluded: []string{"/*"}, FullText: []string{"/body"}},
			FullText: &design.FullTextSpec{Language: "en-US", Paths: []string{"/body"}},
			Documents: []design.DocType{{
				Type: "ticket", Count: 1000, ID: "ticket-{seq}",
				Fields: design.Fields{
					{Name: "tenantId", Field: design.Field{Gen: "code", Cardinality: 10}},
					{Name: "body", Field: design.Field{Gen: "text", Bytes: 500}},
					{Name: "note", Field: design.Field{Gen: "word"}},
				},
			}},
		}},
	}
	cases := []struct {
		query       string
		params      map[string]any
		out, loaded int
		note        string
	}{
		// 1 − (1 − 1/140)^(500/6.44 − 1/2): seed.TextHasWord.
		{query: "SELECT c.id FROM c WHERE c.tenantId = 'x' AND FullTextContains(c.body, 'bridge')", out: 42, loaded: 100,
			note: `FullTextContains(c.body, "bridge") keeps 42.5% of ticket documents (gen text of 500 bytes over the seed vocabulary)`},
		{query: "SELECT c.id FROM c WHERE c.tenantId = 'x' AND FullTextContainsAll(c.body, 'bridge', 'cloud')", out: 18, loaded: 100},
		{query: "SELECT c.id FROM c WHERE c.tenantId = 'x' AND FullTextContainsAny(c.body, 'bridge', 'cloud')", out: 67, loaded: 100},
		{query: "SELECT c.id FROM c WHERE c.tenantId = 'x' AND FullTextContains(c.body, 'kubernetes')", out: 0, loaded: 100},
		{query: "SELECT c.id FROM c WHERE c.tenantId = 'x' AND CONTAINS(c.body, 'ridge')", out: 65, loaded: 100}, // in ridge and bridge, not in a sentence's Ridge
		{query: "SELECT c.id FROM c WHERE c.tenantId = 'x' AND CONTAINS(c.body, 'oak tree')", out: 100, loaded: 100,
			note: "a substring across words, which the text generator's words do not tell, so its selectivity is unknown: " + textAssumed},
		{query: "SELECT c.id FROM c WHERE c.tenantId = 'x' AND FullTextContains(c.body, @w)", params: map[string]any{"@w": "{note}"}, out: 100, loaded: 100,
			note: "a term is a parameter filled from a seeded document, so its selectivity is unknown: " + textAssumed},
		{query: "SELECT c.id FROM c WHERE c.tenantId = 'x' AND CONTAINS(c.note, 'oak')", out: 100, loaded: 100,
			note: "/note is not from the text generator, whose vocabulary the estimate knows, so its selectivity is unknown"},
	}
	for i, tc := range cases {
		d.AccessPatterns = append(d.AccessPatterns, design.AccessPattern{
			ID: fmt.Sprintf("Q%d", i), Name: "q", Container: "Tickets", Op: design.OpQuery, PartitionKey: []string{"x"},
			Query: tc.query, Params: tc.params, RPS: design.RPS{Avg: 1}, Estimate: design.Estimate{RU: 10}})
	}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range cases {
		pt := p.Patterns[i]
		f := pt.Facts
		if f.DocsOutput != tc.out || f.DocsLoaded != tc.loaded || f.DocsEvaluated != tc.loaded || f.FunctionCalls != tc.loaded {
			t.Errorf("%s: output %d, loaded %d, evaluated %d, calls %d; want %d returned of %d loaded, evaluated and called",
				tc.query, f.DocsOutput, f.DocsLoaded, f.DocsEvaluated, f.FunctionCalls, tc.out, tc.loaded)
		}
		if !strings.Contains(pt.Detail, tc.note) {
			t.Errorf("%s: detail %q, want the note %q", tc.query, pt.Detail, tc.note)
		}
	}
}
