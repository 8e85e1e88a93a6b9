package lint

import (
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
)

// TestWeighed_CarriesTheBands: a finding weighed by the plan's figures quotes the query's charge,
// its RU/s and its container's load with the bands plan gives them (the charge's from its
// production figure, the load's from the container's LoadBand, at the ends plan computed), and says
// that the burst verdict rests on the rules when an end of the band turns it.
func TestWeighed_CarriesTheBands(t *testing.T) {
	d, err := design.Load("../../testdata/designs/rules-band.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Build(d, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lb := p.Containers[0].LoadBand
	if lb == nil {
		t.Fatal("plan: no load band")
	}
	var ap2 plan.Pattern
	for _, pt := range p.Patterns {
		if pt.ID == "AP2" {
			ap2 = pt
		}
	}
	var msg string
	for _, f := range Check(d) {
		if f.Code == "cross-partition-aggregate" {
			msg = f.Message
		}
	}
	for _, want := range []string{
		"each execution costs " + num(ap2.ProductionRU) + " (" + num(ap2.ProductionBand.LowRU) + "–" + num(ap2.ProductionBand.HighRU) + ") RU",
		"of the " + num(p.Containers[0].AvgRUs) + " (" + num(lb.Low.AvgRUs) + "–" + num(lb.High.AvgRUs) + ") RU/s average load",
		// The rules named once, in cost.Rules' order (the container's, not the pattern's first).
		"whether its burst throttles other traffic rests on rules aggregate-without-filter, order-top-unserved-filter, pk-equality-order-composite unvalidated",
		"at the low end of its band, no",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("cross-partition-aggregate lacks %q:\n%s", want, msg)
		}
	}
	if n := strings.Count(msg, "unvalidated"); n != 1 {
		t.Errorf("cross-partition-aggregate names the rules %d times, want once:\n%s", n, msg)
	}
}
