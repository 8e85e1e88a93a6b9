package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
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
