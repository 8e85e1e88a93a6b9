package project

import (
	"math"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
)

// smallCounts is a design whose keyed queries see a handful of documents per key value (2–8 orders
// a customer seeded, 40 at production) and whose cross-partition filter matches about 1% of the
// orders: the counts where a fit on a few draws' medians is mostly noise.
const smallCounts = `version: 1
name: orders
containers:
  - name: Plain
    partitionKey: [/customerId]
    throughput: {autoscaleMax: 20000}
    documents:
      - type: customer
        count: 200
        production: 2000000
        id: "cust-{seq}"
        targetBytes: 800
        fields:
          customerId: {copy: id}
          type: {const: customer}
          name: {gen: fullName}
      - type: order
        parent: {type: customer, per: {min: 2, max: 8}}
        production: 80000000
        id: "order-{uuid}"
        targetBytes: 1000
        fields:
          customerId: {copy: parent.customerId}
          type: {const: order}
          status: {oneOf: [open, shipped, delivered], weights: [1, 3, 6]}
          total: {gen: money, min: 5, max: 900}
          createdAt: {gen: isoTime, from: 2024-01-01, to: 2026-01-01}
accessPatterns:
  - id: LATEST
    name: ten latest orders, sorted in memory
    container: Plain
    op: query
    sample: customer
    query: SELECT TOP 10 * FROM c WHERE c.customerId = @c AND c.type = 'order' ORDER BY c.createdAt DESC
    params: {"@c": "{customerId}"}
    partitionKey: ["{customerId}"]
    rps: {avg: 1}
    estimate: {ru: 3}
  - id: ALL
    name: a customer's orders
    container: Plain
    op: query
    sample: customer
    query: SELECT * FROM c WHERE c.customerId = @c AND c.type = 'order'
    params: {"@c": "{customerId}"}
    partitionKey: ["{customerId}"]
    rps: {avg: 1}
    estimate: {ru: 4}
  - id: TOTALS
    name: a customer's order totals
    container: Plain
    op: query
    sample: customer
    query: SELECT c.id, c.total FROM c WHERE c.customerId = @c AND c.type = 'order'
    params: {"@c": "{customerId}"}
    partitionKey: ["{customerId}"]
    rps: {avg: 1}
    estimate: {ru: 4}
  - id: BIG
    name: big orders, every partition
    container: Plain
    op: query
    query: SELECT * FROM c WHERE c.type = 'order' AND c.total > 890
    rps: {avg: 0.01}
    estimate: {ru: 1000}
`

// TestPatterns_SmallCountsGrowLikeTheDesign: with 2–8 orders per customer, a customer's orders grow
// ×7 to production, and run's projection must see it (every loaded-document fact ∝ n) and land
// within ±25% of plan's for the keyed queries. The matches of a 1% filter across partitions (about
// 11 seeded, 6 at half) grow with the orders too, not as n^0.65.
func TestPatterns_SmallCountsGrowLikeTheDesign(t *testing.T) {
	d, err := design.Parse([]byte(smallCounts), "orders.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plan.Build(d, plan.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ps := projections(t, d)
	for i, pr := range ps {
		if pr.Note != "" && pr.ProjectedRU == 0 {
			t.Fatalf("%s: %s", pr.ID, pr.Note)
		}
		for _, f := range []string{"docsLoaded", "bytesLoaded"} {
			if pr.Growth[f] != 1 {
				t.Errorf("%s: %s ∝ n^%.2f, want n^1 (the orders in scope grow with the design)\n%s", pr.ID, f, pr.Growth[f], pr.Arithmetic)
			}
		}
		if pr.ID == "BIG" {
			continue // plan's static selectivity of a range filter is not this test's subject
		}
		want := pl.Patterns[i].ProductionRU
		if math.Abs(pr.ProjectedRU-want) > 0.25*want {
			t.Errorf("%s: run projects %.2f RU, plan %.2f RU: more than 25%% apart\n%v", pr.ID, pr.ProjectedRU, want, pr.Arithmetic)
		}
	}
}
