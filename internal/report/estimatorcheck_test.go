package report

import (
	"testing"

	"github.com/cosmosdv/validate/internal/record"
)

// TestCheckEstimator_SamplingError: a fact outside 10% of the estimate agrees when it lies within
// two standard errors of the executions' mean (keys drawn with a wide spread), and says so; a fact
// whose executions all sit far from the estimate does not; and with fewer than MinSampled
// executions the spread is not used.
func TestCheckEstimator_SamplingError(t *testing.T) {
	pj := &record.Projection{SeededRU: 3, Estimated: map[string]float64{"docsLoaded": 11, "docsOutput": 24}}
	execs := func(n int) []record.Execution {
		var out []record.Execution
		for i := range n {
			loaded := 2.0 // executions alternate between a small and a large tenant: mean 12.5
			if i%2 == 1 {
				loaded = 23
			}
			out = append(out, record.Execution{RU: 3, Facts: map[string]float64{"docsLoaded": loaded, "docsOutput": 72}})
		}
		return out
	}
	ec := checkEstimator("modeled", pj, execs(20))
	byName := map[string]FactCheck{}
	for _, f := range ec.Facts {
		byName[f.Name] = f
	}
	if f := byName["docsLoaded"]; !f.Agree || !f.BySampling || f.StdErr == 0 {
		t.Errorf("docsLoaded 11 against 2 and 23 alternating: %+v, want agreement by sampling error", f)
	}
	if f := byName["docsOutput"]; f.Agree {
		t.Errorf("docsOutput 24 against 72 every time: %+v, want a disagreement", f)
	}
	if ec.Agree {
		t.Error("the check agrees with a fact off by 3×")
	}
	few := checkEstimator("modeled", pj, execs(MinSampled-2)) // even: mean 12.5
	for _, f := range few.Facts {
		if f.Name == "docsLoaded" && (f.Agree || f.StdErr != 0) {
			t.Errorf("%d executions: %+v, want no spread and a disagreement", MinSampled-2, f)
		}
	}
}
