package report

import (
	"testing"

	"github.com/cosmosdv/validate/internal/record"
)

// TestFactsAgree_ToleranceEdge holds CheckTolerance (10% of the larger figure, assumed) at its edge
// both ways: 100 estimated entries agree with 109 executed and not with 112; ×1.5 (15%) would let
// 112 agree, ×0.6 (6%) would part 109.
func TestFactsAgree_ToleranceEdge(t *testing.T) {
	for _, tc := range []struct {
		exe  float64
		want bool
	}{{109, true}, {112, false}, {91, true}, {88, false}} {
		if got := factsAgree("indexEntriesRead", 100, tc.exe); got != tc.want {
			t.Errorf("100 estimated, %g executed: agree %v, want %v", tc.exe, got, tc.want)
		}
	}
}

// TestCheckEstimator_SampleErrorsEdge holds SampleErrors (two standard errors, the normal
// approximation's 95%) at its edge both ways. Ten executions read 0 or 40 entries, five each: mean
// 20, sample standard deviation sqrt(4000/9) = 21.08, standard error 6.67 (worked by hand). An
// estimate of 32 is 12 off (1.8 standard errors, outside 10%): it agrees by sampling; 36 is 16 off
// (2.4 standard errors): it does not. Three standard errors would let 36 agree; 1.2 would part 32.
func TestCheckEstimator_SampleErrorsEdge(t *testing.T) {
	var execs []record.Execution
	for i := range 10 {
		v := 0.0
		if i%2 == 1 {
			v = 40
		}
		execs = append(execs, record.Execution{RU: 3, Facts: map[string]float64{"indexEntriesRead": v}})
	}
	for _, tc := range []struct {
		est  float64
		want bool
	}{{32, true}, {36, false}} {
		pj := &record.Projection{SeededRU: 3, Estimated: map[string]float64{"indexEntriesRead": tc.est}}
		ec := checkEstimator("modeled", pj, execs)
		if ec == nil || len(ec.Facts) != 1 {
			t.Fatalf("no check: %+v", ec)
		}
		if f := ec.Facts[0]; f.Agree != tc.want || (tc.want && !f.BySampling) {
			t.Errorf("estimate %g against a mean of 20 ± 6.67: agree %v (by sampling %v), want %v", tc.est, f.Agree, f.BySampling, tc.want)
		}
	}
}
