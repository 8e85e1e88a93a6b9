package pipeline

import (
	"context"
	"flag"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/record"
)

// consistencyN is the size the self-consistency test seeds; make bench runs it at 200,000.
var consistencyN = flag.Int("consistency.n", 50_000, "documents the self-consistency test seeds")

// TestEstimatorMatchesExecutionAtScale is the estimator's self-consistency test (issue 24, point 4):
// for a battery of query shapes (an equality on a drawn value, IN, a range, equality + range +
// ORDER BY served by a composite index, the same shape sorted in memory, two ranges, TOP with a
// filter, GROUP BY, DISTINCT, a JOIN over an array, a _ts filter, a cross-partition equality, a type
// discriminator beside a selective filter, the composite devblog's TOP 10 with an equality and two
// ranges on range indexes and on one composite per range), the
// production figure the one estimator gives from a design seeded at 2,000 documents with a stated
// production count of N equals, within ±15%, the engine's charge when the same design is actually
// seeded at N (the mean of its executions: the estimator gives expected values). The engine
// executes the service's index semantics; the estimator must predict them at a scale it did not
// see.
func TestEstimatorMatchesExecutionAtScale(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("seeds 50,000 documents: not under -short or the race detector (make test runs it without)")
	}
	tmpl, err := os.ReadFile("testdata/battery.yaml.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	n := strconv.Itoa(*consistencyN)
	small, err := design.Parse([]byte(strings.NewReplacer("DOCS", "2000", "PRODUCTION", "production: "+n).Replace(string(tmpl))), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	big, err := design.Parse([]byte(strings.NewReplacer("DOCS", n, "        PRODUCTION\n", "").Replace(string(tmpl))), "big.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := plan.Build(small, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The engine gets the physical partitions the design's throughput and storage give it, as
	// `validate run` sets them: the estimator counts the same.
	bp, err := plan.Build(big, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]int{}
	for _, c := range bp.Containers {
		parts[c.Name] = c.Partitions
	}
	client := startEngineWith(t, func(_, container string, _ int) int { return max(parts[container], 1) })
	run, err := Run(context.Background(), big, client, record.TargetInfo{Kind: "embedded", ChargeSource: "model"}, Options{Seed: 1, Samples: 9})
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Patterns) < 12 || len(run.Patterns) != len(sp.Patterns) {
		t.Fatalf("%d planned and %d executed patterns: the battery did not load", len(sp.Patterns), len(run.Patterns))
	}
	for i, pp := range sp.Patterns {
		var rus []float64
		for _, ex := range run.Patterns[i].Executions {
			if ex.Error == "" {
				rus = append(rus, ex.RU)
			}
		}
		if len(rus) == 0 {
			t.Errorf("%s: no successful execution at %s documents", pp.ID, n)
			continue
		}
		executed := 0.0
		for _, ru := range rus {
			executed += ru
		}
		executed /= float64(len(rus))
		if pp.JudgedOn != "projected" || pp.ProductionRU <= 0 {
			t.Errorf("%s: no production figure (judged on %s)", pp.ID, pp.JudgedOn)
			continue
		}
		if math.Abs(pp.ProductionRU-executed) > 0.15*executed {
			t.Errorf("%s %s: the estimator projects %.2f RU from 2,000 documents to %s; the engine charges %.2f RU seeded at %s (more than ±15%%)\n  production facts: %s",
				pp.ID, pp.Name, pp.ProductionRU, n, executed, n, plan.FactText(*pp.ProductionFacts))
		}
	}
}
