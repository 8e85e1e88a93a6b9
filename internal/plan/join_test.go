package plan

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestEstimateQuery_JoinRowFiltersFromTheElementGenerator: a filter on a JOIN alias or a FROM x IN
// element ("/lines/[]/qty") finds the generator inside the array's object and keeps, of the
// documents, those with an element that passes (what the index loads), and of the rows each
// element that passes (what the query returns). A fresh-user walkthrough had "no document type
// generates /lines/[]/qty": every document loaded and every row returned (63 returned estimated
// against 15.6 executed), and `l.sku = 'SKU-1'`, which gen sku never produces, 11 returned against
// none. Expected figures are worked out here from the generators (lengths uniform over 1–20, qty
// uniform over 1–9), not read off the estimator.
func TestEstimateQuery_JoinRowFiltersFromTheElementGenerator(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	d := &design.Design{
		Version: 1, Name: "join", Regions: 1,
		Containers: []design.Container{{
			Name: "Orders", PartitionKey: []string{"/customerId"}, Throughput: design.Throughput{Manual: 4000},
			Documents: []design.DocType{{
				Type: "order", Count: 1000, ID: "order-{seq}",
				Fields: design.Fields{
					{Name: "customerId", Field: design.Field{Gen: "code", Prefix: "cust", Cardinality: 50}},
					{Name: "ref", Field: design.Field{Gen: "code", Prefix: "R", Cardinality: 20}},
					{Name: "lines", Field: design.Field{Array: &design.ArraySpec{Min: 1, Max: 20}, Of: &design.Field{Object: design.Fields{
						{Name: "sku", Field: design.Field{Gen: "sku"}},
						{Name: "qty", Field: design.Field{Gen: "int", Min: f(1), Max: f(9)}},
						{Name: "by", Field: design.Field{Gen: "email"}},
					}}}},
				},
			}},
		}},
	}
	// anyOf is the share of documents with an element passing with probability q.
	anyOf := func(q float64) float64 {
		s := 0.0
		for l := 1; l <= 20; l++ {
			s += 1 - math.Pow(1-q, float64(l))
		}
		return s / 20
	}
	const docs, perDoc = 1000.0, 10.5
	cases := []struct {
		query         string
		loaded, out   int
		note, notNote string
	}{
		{query: "SELECT o.id, l.qty FROM o JOIN l IN o.lines WHERE l.qty >= 8",
			loaded: int(math.Round(docs * anyOf(2.0/9))), out: int(math.Round(docs * perDoc * 2 / 9)),
			note: "(l.qty >= 8) keeps 82.6% of order documents, those holding an element that passes (gen int 1–9, uniform; 22.2% of elements", notNote: "no document type generates"},
		{query: "SELECT l.qty FROM l IN Orders.lines WHERE l.qty IN (1, 2)",
			loaded: int(math.Round(docs * anyOf(2.0/9))), out: int(math.Round(docs * perDoc * 2 / 9)), note: "FROM … IN /lines"},
		{query: "SELECT o.id FROM o JOIN l IN o.lines WHERE l.qty = 3",
			loaded: int(math.Round(docs * anyOf(1.0/9))), out: int(math.Round(docs * perDoc / 9))},
		{query: "SELECT o.id, l.qty FROM o JOIN l IN o.lines WHERE l.sku = 'SKU-1'", loaded: 0, out: 0,
			note: "gen sku never produces 'SKU-1'"},
		{query: "SELECT o.id FROM o JOIN l IN o.lines WHERE l.by = 'ada.berg7@example.com'", note: "assumed to produce 'ada.berg7@example.com'",
			loaded: -1, out: -1},
		{query: "SELECT c.id FROM c WHERE c.ref = 'nobody'", loaded: 0, out: 0,
			note: "(c.ref = \"nobody\") keeps none of order documents (gen code never produces 'nobody')"},
	}
	for i, tc := range cases {
		d.AccessPatterns = append(d.AccessPatterns, design.AccessPattern{
			ID: fmt.Sprintf("Q%d", i), Name: "q", Container: "Orders", Op: design.OpQuery,
			Query: tc.query, RPS: design.RPS{Avg: 1}, Estimate: design.Estimate{RU: 10}})
	}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range cases {
		pt := p.Patterns[i]
		if pt.Facts == nil {
			t.Fatalf("%s: no facts (%s)", tc.query, pt.Detail)
		}
		fa := pt.Facts
		if tc.loaded >= 0 && (fa.DocsLoaded != tc.loaded || fa.DocsOutput != tc.out) {
			t.Errorf("%s: %d loaded, %d returned; want %d loaded, %d returned\n  %s", tc.query, fa.DocsLoaded, fa.DocsOutput, tc.loaded, tc.out, pt.Detail)
		}
		if !strings.Contains(pt.Detail, tc.note) {
			t.Errorf("%s: detail %q, want the note %q", tc.query, pt.Detail, tc.note)
		}
		if tc.notNote != "" && strings.Contains(pt.Detail, tc.notNote) {
			t.Errorf("%s: detail %q still says %q", tc.query, pt.Detail, tc.notNote)
		}
	}
}
