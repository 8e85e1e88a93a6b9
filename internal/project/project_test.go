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
  - id: AP4
    name: a category no item has, every partition
    container: Items
    op: query
    query: SELECT * FROM c WHERE c.cat = 'z'
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

// TestProjection: a cross-partition query grows with the documents and pays at least 2.5 RU per
// further physical partition; a key's own documents do not grow; point operations do not change.
func TestProjection(t *testing.T) {
	one := projectAll(t, testDesign(t, 10, 400))
	five := projectAll(t, testDesign(t, 10, 30000)) // ceil(30,000 / 6,000) = 5 partitions at creation
	if d := five["AP2"] - one["AP2"]; math.Abs(d-4*2.8) > 0.05 {
		t.Errorf("5 vs 1 partition: %.2f RU more, want 11.2 (4 × 2.8: the 2.5 RU check and the first seek)", d)
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

// TestProjection_PartitionFloor: the projection of a cross-partition query over 1, 5 and 20
// physical partitions grows by the service's "minimum of about 2.5 RUs each time you check a
// physical partition's index ... even if no items in the physical partition match"
// (how-to-query-container.md) when nothing matches, and by 2.8 RU (the check and the first seek)
// when every partition holds matches: inside partitioning-overview.md's "2-3 RU" per partition.
func TestProjection_PartitionFloor(t *testing.T) {
	byParts := map[int]map[string]float64{}
	for _, c := range []struct{ parts, manual int }{{1, 400}, {5, 30000}, {20, 120000}} {
		byParts[c.parts] = projectAll(t, testDesign(t, 10, c.manual)) // 10 GB: partitions come from throughput
	}
	for _, step := range [][2]int{{1, 5}, {5, 20}} {
		a, b := byParts[step[0]], byParts[step[1]]
		n := float64(step[1] - step[0])
		none := (b["AP4"] - a["AP4"]) / n
		every := (b["AP2"] - a["AP2"]) / n
		t.Logf("%d → %d partitions: nothing matches %.2f → %.2f RU (%.3f per partition), matches everywhere %.2f → %.2f RU (%.3f per partition)",
			step[0], step[1], a["AP4"], b["AP4"], none, a["AP2"], b["AP2"], every)
		if math.Abs(none-2.5) > 0.01 {
			t.Errorf("%d → %d partitions, nothing matches: %.3f RU per partition added, want 2.5", step[0], step[1], none)
		}
		if every < 2.5 || every > 3 {
			t.Errorf("%d → %d partitions, matches everywhere: %.3f RU per partition added, want within 2.5–3", step[0], step[1], every)
		}
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

// TestProjectionSearch: a full-text or vector query executes in process under the container's
// search settings and is projected like any other query; a query that cannot be executed is marked
// unprojected, so that reports do not present its seeded figure as a projection by ×1.
func TestProjectionSearch(t *testing.T) {
	y := `version: 1
name: s
containers:
  - name: Tickets
    partitionKey: [/tenantId]
    throughput: {manual: 400}
    indexing:
      fullText: [/body]
      vector: [{path: /embedding, type: flat}]
    fullText: {paths: [/body]}
    vectors:
      - {path: /embedding, dimensions: 4}
    documents:
      - type: ticket
        count: 200
        production: 200000
        id: "ticket-{seq}"
        fields:
          tenantId: {gen: code, prefix: t-, cardinality: 10, productionCardinality: 10}
          body: {gen: text, bytes: 200}
          embedding: {gen: vector, dimensions: 4}
accessPatterns:
  - id: AP1
    name: words
    container: Tickets
    op: query
    sample: ticket
    query: SELECT c.id FROM c WHERE c.tenantId = @t AND FullTextContains(c.body, 'the')
    params: {"@t": "{tenantId}"}
    partitionKey: ["{tenantId}"]
    rps: {avg: 1}
    estimate: {ru: 3}
  - id: AP2
    name: ranked
    container: Tickets
    op: query
    sample: ticket
    query: SELECT TOP 5 c.id FROM c WHERE c.tenantId = @t ORDER BY RANK FullTextScore(c.body, 'the')
    params: {"@t": "{tenantId}"}
    partitionKey: ["{tenantId}"]
    rps: {avg: 1}
    estimate: {ru: 3}
  - id: AP3
    name: not in the full-text policy
    container: Tickets
    op: query
    sample: ticket
    query: SELECT c.id FROM c WHERE c.tenantId = @t AND FullTextContains(c.id, 'x')
    params: {"@t": "{tenantId}"}
    partitionKey: ["{tenantId}"]
    rps: {avg: 1}
    estimate: {ru: 3}
`
	d, err := design.Parse([]byte(y), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range projections(t, d) {
		switch p.ID {
		case "AP1", "AP2":
			if p.Unprojected || len(p.Arithmetic) == 0 || p.Factor < 100 {
				t.Errorf("%s: a tenant 1,000× larger: want a projection growing with it, got factor %v, unprojected %v, note %q", p.ID, p.Factor, p.Unprojected, p.Note)
			}
		case "AP3":
			if !p.Unprojected || !strings.Contains(p.Note, "fails in process") {
				t.Errorf("AP3: a query that fails in process: want unprojected with a note, got %+v", p)
			}
		}
	}
}
