package pipeline

import (
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
)

// TestExamples_FloorIsAFloor: on every example design, the floor plan computes (and lint compares
// estimates with) is at most every charge the run's model makes for the pattern, with two seeds.
// A patch that writes the value already there changes no index term and costs less than one that
// does: the floor must not assume the change.
func TestExamples_FloorIsAFloor(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("runs every example design twice: not under -short or the race detector (make test runs it without)")
	}
	eachExample(t, func(t *testing.T, d *design.Design, pl *plan.Plan) {
		floor := map[string]float64{}
		for _, pp := range pl.Patterns {
			floor[pp.ID] = pp.FloorRU
		}
		for _, seed := range []int64{1, 2} {
			run := exampleRun(t, d, pl, seed)
			for _, p := range run.Patterns {
				for _, ex := range p.Executions {
					if ex.Error == "" && ex.RU < floor[p.ID]-0.005 { // the floor is rounded to 0.01
						t.Errorf("%s (seed %d): floor %.2f RU, but an execution was charged %.2f RU", p.ID, seed, floor[p.ID], ex.RU)
						break
					}
				}
			}
		}
	})
}
