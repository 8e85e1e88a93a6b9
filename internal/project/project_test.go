package project

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/seed"
)

func testDesign(t *testing.T, storageGB float64, manual int) *design.Design {
	t.Helper()
	storage := ""
	if storageGB > 0 {
		storage = fmt.Sprintf("    storageGB: %g\n", storageGB)
	}
	y := fmt.Sprintf(`version: 1
name: p
containers:
  - name: Items
    partitionKey: [/userId]
    throughput: {manual: %d}
%s    documents:
      - type: item
        count: 400
        id: "item-{seq}"
        fields:
          userId: {copy: id}
          cat: {oneOf: [a, b, c, d]}
accessPatterns:
  - {id: AP1, name: read, container: Items, op: read, sample: item, rps: {avg: 1}, estimate: {ru: 1}}
  - id: AP2
    name: category, every partition
    container: Items
    op: query
    query: SELECT * FROM c WHERE c.cat = 'a'
    rps: {avg: 1}
    estimate: {ru: 3}
  - id: AP3
    name: one user's items
    container: Items
    op: query
    sample: item
    query: SELECT * FROM c WHERE c.userId = @u
    params: {"@u": "{userId}"}
    partitionKey: ["{userId}"]
    rps: {avg: 1}
    estimate: {ru: 3}
`, manual, storage)
	d, err := design.Parse([]byte(y), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// projections projects every pattern of d seeded with seed 1.
func projections(t *testing.T, d *design.Design) []record.Projection {
	t.Helper()
	sp, err := seed.Compile(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Patterns(context.Background(), d, sp, 1)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func projectAll(t *testing.T, d *design.Design) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, p := range projections(t, d) {
		out[p.ID] = p.ProjectedRU
		switch p.ID {
		case "AP1":
			if !p.Point || p.Factor != 1 {
				t.Errorf("point operation: %+v", p)
			}
		case "AP3":
			if p.Factor != 1 {
				t.Errorf("a user's own items do not grow with more users: factor %v (%v)", p.Factor, p.Arithmetic)
			}
		}
		if d.Containers[0].StorageGB > 0 && !p.Production {
			t.Errorf("%s: storageGB given, projection says no production scale", p.ID)
		}
	}
	return out
}

// TestProjection: a cross-partition query grows with the documents and pays 2.5 RU per further
// physical partition; a key's own documents do not grow; point operations do not change.
func TestProjection(t *testing.T) {
	one := projectAll(t, testDesign(t, 10, 400))
	five := projectAll(t, testDesign(t, 10, 30000)) // ceil(30,000 / 6,000) = 5 partitions at creation
	if d := five["AP2"] - one["AP2"]; math.Abs(d-4*2.5) > 0.05 {
		t.Errorf("5 vs 1 partition: %.2f RU more, want 10 (4 × 2.5)", d)
	}
	bigger := projectAll(t, testDesign(t, 100, 400))
	if bigger["AP2"] <= one["AP2"] {
		t.Errorf("10× the storage: %.2f RU, not above %.2f", bigger["AP2"], one["AP2"])
	}
	none := projectAll(t, testDesign(t, 0, 400))
	if none["AP2"] >= one["AP2"] {
		t.Errorf("no production scale: %.2f RU, want the seeded charge below the production one %.2f", none["AP2"], one["AP2"])
	}
}

// TestProjection_ChildrenPerParentAtProduction: a query in one customer's partition sees the
// production orders per customer (50,000,000 orders over 1,000,000 customers), not the seeded ones,
// and plan's projection of it agrees with run's within ±25% (testdata/designs/shop-production.yaml).
func TestProjection_ChildrenPerParentAtProduction(t *testing.T) {
	d, err := design.Load("../../testdata/designs/shop-production.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := projections(t, d)[0]
	if p.ScopeProduction < 40 || p.ScopeProduction > 62 || p.Factor <= 1 {
		t.Errorf("one customer's partition at production: %.0f documents (factor %.3g), want about 51 (a customer and its 50 orders)\n%s",
			p.ScopeProduction, p.Factor, strings.Join(p.Arithmetic, "\n"))
	}
	pl, err := plan.Build(d, plan.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := pl.Patterns[0].ProductionRU; math.Abs(got-p.ProjectedRU) > 0.25*p.ProjectedRU {
		t.Errorf("plan projects %.2f RU, run %.2f RU: more than ±25%% apart", got, p.ProjectedRU)
	}
}
