package pipeline

import (
	"fmt"
	"math"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/report"
)

// MonthlyCost prices a run's load for a month at production, as plain data for the report (which
// does not import cost): each container of p (the design's static plan: its designed throughput,
// its storage at production, the account's regions) at its designed throughput with the load the
// report judges capacity on (report.ContainerLoad.RunLoad: queries at their projected charge when
// the design states a production scale), and in the cheapest mode that carries that load's peak,
// by plan's rule (cost.RateCard.CheapestServing: the busiest physical partition served too). rc is the rate card p was priced with. Nil when there is
// no plan or no container has a load.
func MonthlyCost(rc *cost.RateCard, p *plan.Plan, rep *report.Report) *report.MonthlyCost {
	if rc == nil || p == nil || rep == nil {
		return nil
	}
	loads := map[string]report.ContainerLoad{}
	for _, cl := range rep.Containers {
		loads[cl.Name] = cl
	}
	// The account's capacity mode is the one plan recommended in (cost.Account.Capacity).
	var modes []cost.Mode
	for _, pc := range p.Containers {
		if pc.Recommended.Mode != "" {
			modes = append(modes, pc.Recommended.Mode)
		}
	}
	acct := cost.Account{Regions: p.Account.Regions, MultiRegionWrites: p.Account.MultiRegionWrites}
	if len(modes) > 0 {
		acct.Capacity = cost.CapacityOf(modes)
	}
	m := &report.MonthlyCost{Currency: p.RateCard.Currency, RateCard: p.RateCard.Version + " (" + p.RateCard.Date + ")",
		Containers: []report.ContainerCost{}}
	// The sums at the low (0) and the high (1) end of the containers' bands, and the rules they
	// rest on.
	var designedEnds, requiredEnds [2]float64
	var rules []string
	for _, pc := range p.Containers {
		l, avg, peak, ok := loads[pc.Name].RunLoad()
		if !ok {
			continue
		}
		designed, required, requiredUSD := priceLoad(rc, &pc, pc.PeakLoad, acct, avg, peak)
		cc := report.ContainerCost{Name: pc.Name, Source: l.Source, Scale: l.Scale, AvgRUs: avg, PeakRUs: peak,
			StorageGB: pc.StorageGB, Designed: throughputWords(pc.Designed.Mode, pc.Designed.RU), DesignedUSD: cents(designed.Total),
			Formula: designed.Formula, Required: required, RequiredUSD: requiredUSD}
		// The same pricing at each end of the load's band (report.Load.AvgBand, PeakBand).
		dEnds, rEnds := [2]float64{cc.DesignedUSD, cc.DesignedUSD}, [2]float64{cc.RequiredUSD, cc.RequiredUSD}
		if l.AvgBand != nil || l.PeakBand != nil {
			var names []string
			for i := range 2 {
				a, pk := avg, peak
				if b := l.AvgBand; b != nil {
					a, names = []float64{b.Low, b.High}[i], b.Rules
				}
				if b := l.PeakBand; b != nil {
					pk, names = []float64{b.Low, b.High}[i], b.Rules
				}
				// The split of the peak over the partitions is plan's at the same end.
				split := pc.PeakLoad
				if lb := pc.LoadBand; lb != nil {
					split = []plan.BandEnd{lb.Low, lb.High}[i].PeakLoad
				}
				d, _, r := priceLoad(rc, &pc, split, acct, a, pk)
				dEnds[i], rEnds[i] = cents(d.Total), r
			}
			cc.DesignedBand = record.NewRange(dEnds[0], dEnds[1], names, usd)
			cc.RequiredBand = record.NewRange(rEnds[0], rEnds[1], names, usd)
			rules = record.AddRules(rules, names...)
		}
		for i := range 2 {
			designedEnds[i] += dEnds[i]
			requiredEnds[i] += rEnds[i]
		}
		m.DesignedUSD += cc.DesignedUSD
		m.RequiredUSD += cc.RequiredUSD
		m.Containers = append(m.Containers, cc)
	}
	if len(m.Containers) == 0 {
		return nil
	}
	m.DesignedUSD, m.RequiredUSD = cents(m.DesignedUSD), cents(m.RequiredUSD)
	m.DesignedBand = record.NewRange(cents(designedEnds[0]), cents(designedEnds[1]), rules, usd)
	m.RequiredBand = record.NewRange(cents(requiredEnds[0]), cents(requiredEnds[1]), rules, usd)
	return m
}

// priceLoad prices one container's run load: at its designed throughput, and in the cheapest mode
// that serves the busiest physical partition as well as the peak, by plan's rule
// (cost.RateCard.CheapestServing: plan's split of the load over the partitions, split, scaled to
// the run's peak). required is that mode in words and requiredUSD its bill ("" and 0 when none can).
func priceLoad(rc *cost.RateCard, pc *plan.Container, split cost.PartLoad, acct cost.Account, avg, peak float64) (designed cost.Monthly, required string, requiredUSD float64) {
	designed = rc.MonthlyCost(cost.Usage{Mode: pc.Designed.Mode, Provisioned: pc.Designed.RU, AvgRU: avg, PeakRU: peak,
		StorageGB: pc.StorageGB}, acct)
	if t := split.Total(); t > 0 {
		split = split.Scale(peak / t)
	} else {
		split = cost.PartLoad{Cross: peak}
	}
	opts, best := rc.CheapestServing(avg, split, pc.StorageGB, acct)
	if best < 0 {
		opts, best = rc.Cheapest(avg, peak, pc.StorageGB, acct)
	}
	if best >= 0 {
		required, requiredUSD = throughputWords(opts[best].Mode, opts[best].Provisioned), cents(opts[best].Total)
	}
	return designed, required, requiredUSD
}

func usd(v float64) string { return fmt.Sprintf("$%.2f", v) }

func throughputWords(mode cost.Mode, ru int) string {
	if mode == cost.Serverless {
		return string(mode)
	}
	return fmt.Sprintf("%s %d", mode, ru)
}

func cents(v float64) float64 { return math.Round(v*100) / 100 }

// TrafficOf is the static plan's hour-by-hour forecast of each container whose design states a
// traffic shape, as plain data for the report: a day without events and every event hour at the
// designed throughput (plan.Traffic; every figure the cost package's). Nil without a shape.
func TrafficOf(p *plan.Plan) []report.Traffic {
	if p == nil {
		return nil
	}
	var out []report.Traffic
	for _, c := range p.Containers {
		t := c.Traffic
		if t == nil {
			continue
		}
		rt := report.Traffic{Container: c.Name, Shape: t.Shape, Designed: throughputWords(c.Designed.Mode, c.Designed.RU),
			ProvisionedRU: float64(c.Designed.RU), ThrottledHours: t.Designed.ThrottledHrs, DesignedUSD: cents(t.Designed.Total), FlatUSD: cents(t.FlatUSD)}
		if c.Designed.Mode == cost.Serverless {
			rt.ProvisionedRU = 0
		}
		if t.Recommended >= 0 {
			o := t.Options[t.Recommended]
			rt.Recommended, rt.RecommendedUSD = throughputWords(o.Mode, o.RU), cents(o.Total)
		}
		add := func(label string, h plan.Hour) {
			rt.Hours = append(rt.Hours, report.TrafficHour{Label: label, AvgRU: h.AvgRU, PeakRU: h.PeakRU, HottestRU: h.HottestRU,
				ShareRU: h.ShareRU, ThrottledRPS: h.ThrottledRPS, Throttled: h.ThrottledRU > 0, Event: h.Event})
		}
		for _, h := range t.Day {
			add(fmt.Sprintf("%02d:00", h.Hour), h)
		}
		for _, h := range t.Events {
			add(fmt.Sprintf("day %d %02d:00", h.Day, h.Hour), h)
		}
		out = append(out, rt)
	}
	return out
}
