package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// gameDesign is a generated single-container design (the modeling guidance's pattern: a type
// discriminator in every query): players and their items keyed by guild, at production counts
// players and items, guilds guilds; AP1 finds a player by handle, AP2 the same with the type
// conjunct, AP3 and AP4 a range with and without it, all across partitions.
func gameDesign(t *testing.T, players, items, guilds int) *design.Design {
	t.Helper()
	text := fmt.Sprintf(`version: 1
name: game
containers:
  - name: Game
    partitionKey: [/guildId]
    throughput: {autoscaleMax: 100000}
    documents:
      - type: player
        count: 400
        production: %d
        id: "player-{seq}"
        fields:
          guildId: {gen: code, prefix: g-, cardinality: 20, productionCardinality: %d}
          type: {const: player}
          handle: {gen: email, unique: true}
          level: {gen: int, min: 1, max: 100}
      - type: item
        count: 1600
        production: %d
        id: "item-{uuid}"
        fields:
          guildId: {gen: code, prefix: g-, cardinality: 20, productionCardinality: %d}
          type: {const: item}
          level: {gen: int, min: 1, max: 100}
accessPatterns:
  - {id: AP1, name: player by handle, container: Game, op: query, sample: player, query: "SELECT * FROM c WHERE c.handle = @h", params: {"@h": "{handle}"}, rps: {avg: 1}, estimate: {ru: 10}}
  - {id: AP2, name: player by type and handle, container: Game, op: query, sample: player, query: "SELECT * FROM c WHERE c.type = 'player' AND c.handle = @h", params: {"@h": "{handle}"}, rps: {avg: 1}, estimate: {ru: 10}}
  - {id: AP3, name: top levels, container: Game, op: query, query: "SELECT c.id FROM c WHERE c.level > 99", rps: {avg: 1}, estimate: {ru: 10}}
  - {id: AP4, name: top player levels, container: Game, op: query, query: "SELECT c.id FROM c WHERE c.type = 'player' AND c.level > 99", rps: {avg: 1}, estimate: {ru: 10}}
`, players, guilds, items, guilds)
	d, err := design.Parse([]byte(text), "game.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestProperty_TypeDiscriminatorAtProduction: over generated production scales (a million to a
// billion documents of the type), a type discriminator beside a selective filter moves the
// estimator's production figure by a few RU at most, never in proportion to the documents of the
// type ("constant per equality filter", index-overview.md); beside a range it never raises it.
func TestProperty_TypeDiscriminatorAtProduction(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 5))
	for i := range 8 {
		players := int(math.Pow(10, 6+3*r.Float64()))
		items := int(math.Pow(10, 6+3*r.Float64()))
		d := gameDesign(t, players, items, 100+r.IntN(10_000))
		p, err := Build(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ap1, ap2 := patternOf(t, p, "AP1"), patternOf(t, p, "AP2")
		if ap1.ProductionRU <= 0 || ap2.ProductionRU <= 0 {
			t.Fatalf("case %d: no production figure (%v, %v)", i, ap1.ProductionRU, ap2.ProductionRU)
		}
		if diff := ap2.ProductionRU - ap1.ProductionRU; math.Abs(diff) > 3 {
			t.Errorf("case %d, %d players, %d items: by handle %.2f RU, with the type conjunct %.2f RU: want within a few RU",
				i, players, items, ap1.ProductionRU, ap2.ProductionRU)
		}
		ap3, ap4 := patternOf(t, p, "AP3"), patternOf(t, p, "AP4")
		if ap4.ProductionRU > ap3.ProductionRU+1 {
			t.Errorf("case %d, %d players, %d items: a range %.2f RU, with the type conjunct %.2f RU: the conjunct may only narrow",
				i, players, items, ap3.ProductionRU, ap4.ProductionRU)
		}
	}
}

// TestProperty_ProductionGrowsWithDocuments: the estimator's production figure of the same query
// never falls when the documents in scope grow.
func TestProperty_ProductionGrowsWithDocuments(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 6))
	for i := range 6 {
		players := int(math.Pow(10, 6+2*r.Float64()))
		guilds := 100 + r.IntN(1000)
		small, err := Build(gameDesign(t, players, players, guilds), Options{})
		if err != nil {
			t.Fatal(err)
		}
		big, err := Build(gameDesign(t, players*10, players*10, guilds), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"AP1", "AP2", "AP3", "AP4"} {
			a, b := patternOf(t, small, id), patternOf(t, big, id)
			if b.ProductionRU+1e-9 < a.ProductionRU {
				t.Errorf("case %d %s: %.2f RU at %d players, %.2f RU at ten times as many", i, id, a.ProductionRU, players, b.ProductionRU)
			}
		}
	}
}

// blogDesign is the composite-index devblog's container (2021) as a design: 9 million cart actions
// at production, BuyerState one of 50 states, a number range standing for _ts (half after the
// bound) and one for the GUID id (38.9% after it), 30,000 RU/s (5 partitions); with or without one
// composite index per range filter. The unknowns are those docs/fidelity.md's rows take.
func blogDesign(t *testing.T, composites bool) *design.Design {
	t.Helper()
	states := make([]string, 50)
	for i := range states {
		states[i] = fmt.Sprintf("S%02d", i)
	}
	idx := ""
	if composites {
		idx = "    indexing:\n      composite:\n        - [{path: /BuyerState}, {path: /ts}]\n        - [{path: /BuyerState}, {path: /Price}]\n"
	}
	text := fmt.Sprintf(`version: 1
name: blog
containers:
  - name: Carts
    partitionKey: [/CartId]
    throughput: {manual: 30000}
%s    documents:
      - type: action
        count: 2000
        production: 9000000
        id: "{uuid}"
        fields:
          CartId: {gen: int, min: 1, max: 3000000}
          BuyerState: {oneOf: [%s]}
          ts: {gen: int, min: 0, max: 2000000}
          Price: {gen: int, min: 0, max: 1000}
accessPatterns:
  - {id: AP1, name: devblog TOP 10, container: Carts, op: query, query: "SELECT TOP 10 * FROM c WHERE c.BuyerState = 'S07' AND c.ts > 1000000 AND c.Price > 611", rps: {avg: 1}, estimate: {ru: 500}}
`, idx, strings.Join(states, ", "))
	d, err := design.Parse([]byte(text), "blog.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestBuild_DevblogCompositeAtProduction: the estimator, at the devblog's 9 million items, gives
// the published default-policy charge (533.47 RU, ±25%: the figure queryIndexEntry was read off,
// so this checks that the estimator counts the entries the fidelity row does) and, with the
// composites, a charge inside the composite row's known-miss bound (72.23 RU ±70%), far below
// the default one: TOP 10 does not stop the index work; a composite per range narrows it.
func TestBuild_DevblogCompositeAtProduction(t *testing.T) {
	charge := func(composites bool) float64 {
		p, err := Build(blogDesign(t, composites), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return patternOf(t, p, "AP1").ProductionRU
	}
	def, comp := charge(false), charge(true)
	if math.Abs(def-533.47) > 0.25*533.47 {
		t.Errorf("range indexes: %.2f RU at production, published 533.47 RU (±25%%)", def)
	}
	if math.Abs(comp-72.23) > 0.7*72.23 || comp > def/5 {
		t.Errorf("composites: %.2f RU at production (range indexes %.2f RU), published 72.23 RU (known miss, ±70%%)", comp, def)
	}
}
