package pipeline

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/record"
)

// exampleRun runs design d on an embedded engine whose partitions are the plan's (as `validate run`
// sets them).
func exampleRun(t *testing.T, d *design.Design, pl *plan.Plan, seedN int64) *record.Run {
	t.Helper()
	parts := map[string]int{}
	for _, c := range pl.Containers {
		parts[c.Name] = c.Partitions
	}
	client := startEngineWith(t, func(_, container string, _ int) int { return max(parts[container], 1) })
	run, err := Run(context.Background(), d, client, record.TargetInfo{Kind: "embedded", ChargeSource: "model"}, Options{Seed: seedN})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// exampleMedians runs design d as exampleRun does and returns each pattern's median charge and its
// projection.
func exampleMedians(t *testing.T, d *design.Design, pl *plan.Plan, seedN int64) (map[string]float64, map[string]record.Projection) {
	t.Helper()
	run := exampleRun(t, d, pl, seedN)
	med := map[string]float64{}
	for _, p := range run.Patterns {
		var rus []float64
		for _, ex := range p.Executions {
			if ex.Error == "" {
				rus = append(rus, ex.RU)
			}
		}
		slices.Sort(rus)
		if n := len(rus); n > 0 {
			med[p.ID] = rus[n/2]
			if n%2 == 0 {
				med[p.ID] = (rus[n/2-1] + rus[n/2]) / 2
			}
		}
	}
	proj := map[string]record.Projection{}
	for _, p := range run.Projections {
		proj[p.ID] = p
	}
	return med, proj
}

// TestExamples_PlanRunAndSeedsAgree: on every example design, `validate plan`'s static figure is
// within ±25% of the run's modeled median, its production figure is the run's, two runs with
// different seeds agree within 10%, and every pattern has a projection (queries at production
// scale).
func TestExamples_PlanRunAndSeedsAgree(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("runs every example design twice: not under -short or the race detector (make test runs it without)")
	}
	eachExample(t, func(t *testing.T, d *design.Design, pl *plan.Plan) {
		one, proj := exampleMedians(t, d, pl, 1)
		two, _ := exampleMedians(t, d, pl, 2)
		for _, pp := range pl.Patterns {
			run, ok := one[pp.ID]
			if !ok {
				t.Errorf("%s: no successful execution", pp.ID)
				continue
			}
			if math.Abs(pp.ModelRU-run) > 0.25*run {
				t.Errorf("%s: plan %.2f RU, run median %.2f RU: more than ±25%% apart", pp.ID, pp.ModelRU, run)
			}
			if o := two[pp.ID]; math.Abs(o-run) > 0.10*math.Min(o, run) {
				t.Errorf("%s: seed 1 median %.2f RU, seed 2 %.2f RU: more than 10%% apart", pp.ID, run, o)
			}
			p, ok := proj[pp.ID]
			wantPoint := pp.Op != design.OpQuery && pp.Op != design.OpChangeFeed
			if !ok || p.Point != wantPoint || p.Unprojected != (pp.Op == design.OpChangeFeed) {
				t.Errorf("%s: projection %+v", pp.ID, p)
			}
			// One production figure: the run reports the estimator's, which plan prints.
			if pp.JudgedOn == "projected" && p.ProjectedRU != pp.ProductionRU {
				t.Errorf("%s: plan's production figure %.2f RU, run's %.2f RU: one estimator must give one figure", pp.ID, pp.ProductionRU, p.ProjectedRU)
			}
		}
	})
}

// eachExample runs f, in a subtest of its own, on every example design and its plan.
func eachExample(t *testing.T, f func(t *testing.T, d *design.Design, pl *plan.Plan)) {
	files, err := filepath.Glob("../../designs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example designs in ../../designs (%v): the test would pass on nothing", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			d, err := design.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			pl, err := plan.Build(d, plan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			f(t, d, pl)
		})
	}
}
