package plan

import (
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
)

func rulesDesign(t *testing.T) *design.Design {
	t.Helper()
	d, err := design.Load("../../testdata/designs/rules-band.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestBand_EachAlternativeIsThePlanUnderIt: every query of rules-band.yaml rests on one assumed
// rule; its band names that rule, each alternative's figure is the production figure of a plan
// built with that alternative chosen (one estimator, one price: no second computation), and the
// band runs from the least to the most of them.
func TestBand_EachAlternativeIsThePlanUnderIt(t *testing.T) {
	d := rulesDesign(t)
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"AP1": cost.RuleTopUnservedFilter, "AP2": cost.RuleAggregateNoFilter, "AP3": cost.RulePKOrderComposite}
	for _, pt := range p.Patterns {
		b := pt.ProductionBand
		if b == nil {
			t.Fatalf("%s: no band (production %g)", pt.ID, pt.ProductionRU)
		}
		if got := strings.Join(b.RuleNames(), ","); got != want[pt.ID] {
			t.Errorf("%s: band rules %s, want %s", pt.ID, got, want[pt.ID])
		}
		if b.LowRU > pt.ProductionRU || b.HighRU < pt.ProductionRU || b.LowRU >= b.HighRU {
			t.Errorf("%s: band %g–%g around %g", pt.ID, b.LowRU, b.HighRU, pt.ProductionRU)
		}
		for _, r := range b.Rules {
			alt, err := Build(d, Options{Rules: (*cost.Selection)(nil).With(r.Name, r.Alternative)})
			if err != nil {
				t.Fatal(err)
			}
			if got := patternOf(t, alt, pt.ID).ProductionRU; got != r.RU {
				t.Errorf("%s: band says %s=%s gives %g RU, the plan under it says %g", pt.ID, r.Name, r.Alternative, r.RU, got)
			}
		}
		if !strings.Contains(production(pt), b.Words(num)) || !strings.Contains(b.Words(num), "unvalidated") {
			t.Errorf("%s: PRODUCTION cell %q does not carry the band", pt.ID, production(pt))
		}
	}
	// An estimate inside the band: estimate-off says so.
	var found bool
	for _, w := range p.Warnings {
		if w.Code == "estimate-off" && w.Subject == "AP1" {
			found = strings.Contains(w.Message, "inside its band")
		}
	}
	if !found {
		t.Errorf("AP1's estimate lies inside its band and estimate-off does not say so: %+v", p.Warnings)
	}
}

// TestBand_PinnedRuleHasNone: a rule a calibration pinned gives no band; the figure is its
// alternative's and names the calibration. A rule chosen but not pinned (serve --rules, a
// test) keeps its band around the chosen figure.
func TestBand_PinnedRuleHasNone(t *testing.T) {
	d := rulesDesign(t)
	sel := (*cost.Selection)(nil).With(cost.RuleAggregateNoFilter, cost.AltIndex)
	chosen, err := Build(d, Options{Rules: sel})
	if err != nil {
		t.Fatal(err)
	}
	if patternOf(t, chosen, "AP2").ProductionBand == nil {
		t.Error("a chosen, unpinned rule lost its band")
	}
	sel.Pinned = map[string]string{cost.RuleAggregateNoFilter: "calibrated: acct.example, 2026-11-28"}
	p, err := Build(d, Options{Rules: sel})
	if err != nil {
		t.Fatal(err)
	}
	ap2 := patternOf(t, p, "AP2")
	if ap2.ProductionBand != nil {
		t.Errorf("pinned rule still has a band: %+v", ap2.ProductionBand)
	}
	if len(ap2.ProductionPinned) != 1 || ap2.ProductionPinned[0].Alternative != cost.AltIndex || ap2.ProductionRU != patternOf(t, chosen, "AP2").ProductionRU {
		t.Errorf("pinned: %+v at %g RU", ap2.ProductionPinned, ap2.ProductionRU)
	}
	if !strings.Contains(production(ap2), "calibrated: acct.example") {
		t.Errorf("PRODUCTION cell %q does not name the calibration", production(ap2))
	}
	if patternOf(t, p, "AP1").ProductionBand == nil {
		t.Error("a rule the profile did not decide lost its band")
	}
}
