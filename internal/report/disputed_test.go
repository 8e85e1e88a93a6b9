package report

import (
	"strings"
	"testing"
)

// TestDisputedReason: a verdict on the production figure says it rests on a disputed figure when
// the estimator's facts at the seeded scale cost more than ±15% away from the executions'; a verdict
// on the seeded median, an agreeing check or a small gap says nothing.
func TestDisputedReason(t *testing.T) {
	projected := &Charge{VerdictOn: VerdictOnProjected}
	seeded := &Charge{}
	for _, tc := range []struct {
		name string
		c    *Charge
		ec   *EstimatorCheck
		want bool
	}{
		{"disputed", projected, &EstimatorCheck{EstimatedRU: 6.24, ExecutedRU: 3.62}, true},
		{"within 15%", projected, &EstimatorCheck{EstimatedRU: 3.9, ExecutedRU: 3.62}, false},
		// The edges of DisputedShare (15%): 12% apart is within it, 20% apart outside.
		{"12% apart", projected, &EstimatorCheck{EstimatedRU: 11.2, ExecutedRU: 10}, false},
		{"20% apart", projected, &EstimatorCheck{EstimatedRU: 8, ExecutedRU: 10}, true},
		{"agrees", projected, &EstimatorCheck{Agree: true, EstimatedRU: 6.24, ExecutedRU: 3.62}, false},
		{"judged on the seeded median", seeded, &EstimatorCheck{EstimatedRU: 6.24, ExecutedRU: 3.62}, false},
		{"no check", projected, nil, false},
	} {
		r := disputedReason(tc.c, tc.ec)
		if got := strings.Contains(r, "disputed figure"); got != tc.want {
			t.Errorf("%s: %q, want disputed %v", tc.name, r, tc.want)
		}
	}
}
