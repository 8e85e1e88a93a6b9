package plan

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
)

// endSelection chooses, for every rule of rules-band.yaml, the alternative that gives its query the
// low (or the high) figure: each query there rests on one rule, so the plan under that selection is
// the plan at that end of the band.
func endSelection(high bool) *cost.Selection {
	alts := map[string][2]string{
		cost.RuleTopUnservedFilter: {cost.AltStops, cost.AltScans},
		cost.RuleAggregateNoFilter: {cost.AltIndex, cost.AltLoads},
		cost.RulePKOrderComposite:  {cost.AltStreams, cost.AltSorts},
	}
	var sel *cost.Selection
	for name, a := range alts {
		if high {
			sel = sel.With(name, a[1])
		} else {
			sel = sel.With(name, a[0])
		}
	}
	return sel
}

// TestLoadBand_EachEndIsThePlanUnderIt: the container's load, the throughput and the monthly cost
// sized for it are given at the low and at the high end of its patterns' bands, and each end is
// what the plan says with every rule at the alternative that end takes (the low end mixes the
// chosen stops with the unchosen index and streams: a band taken from the wrong end, or from the
// figure, fails). The figure's throughput-short, which the low end does not carry, says it rests
// on the rules.
func TestLoadBand_EachEndIsThePlanUnderIt(t *testing.T) {
	d := rulesDesign(t)
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Containers[0]
	lb := c.LoadBand
	if lb == nil {
		t.Fatalf("no load band: %+v", c)
	}
	if len(lb.Rules) != 3 {
		t.Errorf("load band rules %v, want the three rules of rules-band.yaml", lb.Rules)
	}
	for i, end := range []BandEnd{lb.Low, lb.High} {
		under, err := Build(d, Options{Rules: endSelection(i == 1)})
		if err != nil {
			t.Fatal(err)
		}
		uc := under.Containers[0]
		if math.Abs(end.AvgRUs-uc.AvgRUs) > 0.05 || math.Abs(end.PeakRUs-uc.PeakRUs) > 0.05 {
			t.Errorf("end %d: load %g/%g RU/s, the plan under its alternatives %g/%g", i, end.AvgRUs, end.PeakRUs, uc.AvgRUs, uc.PeakRUs)
		}
		if end.Recommended != uc.Recommended || math.Abs(end.MonthlyUSD-uc.MonthlyUSD) > 0.01 || math.Abs(end.DesignedUSD-uc.DesignedCost.Total) > 0.01 {
			t.Errorf("end %d: %+v at $%g (designed $%g), the plan under its alternatives %+v at $%g (designed $%g)",
				i, end.Recommended, end.MonthlyUSD, end.DesignedUSD, uc.Recommended, uc.MonthlyUSD, uc.DesignedCost.Total)
		}
	}
	if !(lb.Low.AvgRUs < c.AvgRUs && c.AvgRUs < lb.High.AvgRUs) {
		t.Errorf("load %g RU/s outside its band %g–%g", c.AvgRUs, lb.Low.AvgRUs, lb.High.AvgRUs)
	}
	if r := p.MonthlyBand; r == nil || r.Low != lb.Low.MonthlyUSD || r.High != lb.High.MonthlyUSD {
		t.Errorf("Monthly band %+v, want the container's ends %g–%g", r, lb.Low.MonthlyUSD, lb.High.MonthlyUSD)
	}
	var short bool
	for _, w := range p.Warnings {
		if w.Code == "throughput-short" {
			short = strings.Contains(w.Message, "this rests on rules") && strings.Contains(w.Message, "at the low end of its band")
		}
	}
	if !short {
		t.Errorf("throughput-short does not say it rests on the rules: %+v", p.Warnings)
	}

	var text, js bytes.Buffer
	if err := Render(&text, p, FormatText); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// The load's two figures with their ranges, the rules named once, in cost.Rules' order.
		"  load: " + num(c.AvgRUs) + " (" + num(lb.Low.AvgRUs) + "–" + num(lb.High.AvgRUs) + ") RU/s average, " +
			num(c.PeakRUs) + " (" + num(lb.Low.PeakRUs) + "–" + num(lb.High.PeakRUs) + ") RU/s peak (queries at their PRODUCTION charge, point operations as seeded)" +
			" — rules aggregate-without-filter, order-top-unserved-filter, pk-equality-order-composite unvalidated\n",
		"Monthly: " + usd(p.DesignedMonthlyUSD) + " at the designed throughput; " + usd(p.MonthlyUSD) + " (" + usd(lb.Low.MonthlyUSD) + "–" + usd(lb.High.MonthlyUSD) + ": rules ",
		"low end: " + num(lb.Low.AvgRUs) + " RU/s average",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("plan text lacks %q", want)
		}
	}
	if err := Render(&js, p, FormatJSON); err != nil {
		t.Fatal(err)
	}
	var back Plan
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Containers[0].LoadBand; got == nil || got.Low.AvgRUs != lb.Low.AvgRUs || got.High.MonthlyUSD != lb.High.MonthlyUSD || back.MonthlyBand == nil {
		t.Errorf("plan JSON does not carry the load band: %+v", got)
	}
}

// TestLoadBand_PinnedRulesHaveNone: a profile that decided every rule the load rests on removes
// the band from the load, the cost and the verdicts; one that decided two leaves the third's.
func TestLoadBand_PinnedRulesHaveNone(t *testing.T) {
	d := rulesDesign(t)
	sel := endSelection(false)
	by := "calibrated: acct.example, 2026-11-28"
	sel.Pinned = map[string]string{cost.RuleTopUnservedFilter: by, cost.RulePKOrderComposite: by}
	p, err := Build(d, Options{Rules: sel})
	if err != nil {
		t.Fatal(err)
	}
	lb := p.Containers[0].LoadBand
	if lb == nil || len(lb.Rules) != 1 || lb.Rules[0] != cost.RuleAggregateNoFilter {
		t.Fatalf("two rules pinned: load band %+v, want aggregate-without-filter's alone", lb)
	}
	sel.Pinned[cost.RuleAggregateNoFilter] = by
	p, err = Build(d, Options{Rules: sel})
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Containers[0]; c.LoadBand != nil || p.MonthlyBand != nil || p.DesignedMonthlyBand != nil {
		t.Errorf("every rule pinned and still a band: %+v %+v", c.LoadBand, p.MonthlyBand)
	}
	var text bytes.Buffer
	if err := Render(&text, p, FormatText); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "unvalidated)") {
		t.Errorf("every rule pinned and the text still shows a band:\n%s", text.String())
	}
}

// TestLoadBand_ShownOnlyWhenItMatters: a load band whose ends differ only in a few RU/s of the peak
// (15420–15423), with the same throughput, costs, risk and verdicts at both ends, is noise: no
// block and no range. A different cheapest mode, cost, risk or feasibility at an end, or a load
// that moves in its third significant figure, shows it.
func TestLoadBand_ShownOnlyWhenItMatters(t *testing.T) {
	rec := Throughput{Mode: cost.Manual, RU: 15500}
	opts := []cost.Monthly{{Mode: cost.Manual, Total: 900, Feasible: true}, {Mode: cost.Serverless, Feasible: false}}
	cp := &Container{Recommended: rec, Options: opts, Hot: cost.Hot{Risk: cost.RiskNone}}
	end := func(peak float64) BandEnd {
		return BandEnd{AvgRUs: 4487, PeakRUs: peak, DesignedUSD: 500, MonthlyUSD: 900, Recommended: rec, Risk: cost.RiskNone,
			Options: []BandOption{{Mode: cost.Manual, USD: 900, Feasible: true}, {Mode: cost.Serverless, Feasible: false}}}
	}
	noise := &LoadBand{Rules: []string{cost.RuleAggregateSeekPostings}, Low: end(15420), High: end(15423)}
	if noise.matters(cp) || noise.Peak() != nil || noise.Avg() != nil {
		t.Errorf("ends 15420–15423 RU/s peak, all else equal: shown (peak range %+v)", noise.Peak())
	}
	for name, change := range map[string]func(*LoadBand){
		"load":        func(lb *LoadBand) { lb.High.PeakRUs = 15600 },
		"mode":        func(lb *LoadBand) { lb.High.Recommended = Throughput{Mode: cost.Manual, RU: 15600} },
		"cost":        func(lb *LoadBand) { lb.High.Options[0].USD = 906.5 },
		"risk":        func(lb *LoadBand) { lb.Low.Risk = cost.RiskHigh },
		"feasibility": func(lb *LoadBand) { lb.Low.Options[1].Feasible = true },
		"designed":    func(lb *LoadBand) { lb.High.DesignedUSD = 510 },
	} {
		lb := &LoadBand{Rules: noise.Rules, Low: end(15420), High: end(15423)}
		change(lb)
		if !lb.matters(cp) {
			t.Errorf("%s differs at an end: band not shown", name)
		}
	}
}
