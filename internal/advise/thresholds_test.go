package advise

import (
	"testing"

	"github.com/cosmosdv/validate/internal/plan"
)

// TestSavesKey_ShareEdge holds keyChangeShare (10% of the container's monthly cost, assumed) at its
// edge both ways: on a $100/month container a key that saves $12 a month is worth its migration
// and one that saves $8 is not; ×1.5 or ×0.6 of the share turns one of them around.
func TestSavesKey_ShareEdge(t *testing.T) {
	s := &search{base: &plan.Plan{Containers: []plan.Container{{Name: "Orders", MonthlyUSD: 100}}}, baseT: Totals{RUs: 1000}}
	for _, tc := range []struct {
		saving float64
		want   bool
	}{{12, true}, {8, false}} {
		c := Change{MonthlyUSD: -tc.saving, RUs: 0}
		if got := s.savesKey(c, "Orders"); got != tc.want {
			t.Errorf("a key saving $%g of a $100/month container: savesKey %v, want %v", tc.saving, got, tc.want)
		}
	}
}
