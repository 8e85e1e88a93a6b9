package lint

import (
	"fmt"
	"math"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/record"
)

// DefaultNegligibleShare is the share of its container's average load under which a fan-out, scan
// or missing index is a note rather than a finding, when its burst also fits the container's
// headroom (Options.NegligibleShare). Assumed: 1% of a container's load is inside the error of any
// traffic figure a design states, so a finding about it is noise; no published figure.
const DefaultNegligibleShare = 0.01

// Options tune CheckWith.
type Options struct {
	// NegligibleShare is the share (0 < share < 1) of its container's average load under which a
	// fan-out, scan or missing index whose burst fits the container's headroom is a note (exit 0);
	// 0 = DefaultNegligibleShare. validate lint --negligible-share sets it.
	NegligibleShare float64
	// Plan is what lint's plan is built with: the seed, the rate card and the rules a calibration
	// profile decided, so that the figures (and their bands) lint quotes are those of the plan or
	// run it stands beside (zero: the built-in card and every rule's default).
	Plan plan.Options
}

// weight is what one pattern costs at production, read from the plan (the one estimator): nothing
// here computes a charge.
type weight struct {
	known bool
	// ru is one execution's charge (the figure the plan judges: projected to production when the
	// design states it), avg the pattern's average RU/s, share its part of the container's average.
	ru, avg, share float64
	at             string
	// Container figures: its average and peak RU/s, the designed RU/s (autoscale: the maximum),
	// its mode, and its physical partitions at production.
	cAvg, cPeak float64
	prov        int
	mode        cost.Mode
	partitions  int
	container   string
	// burst is true when one execution does not fit in the headroom over the container's peak
	// within a second (assumed: the SDKs send a fan-out's partition requests in parallel, so its
	// whole charge lands at once).
	burst    bool
	headroom float64
	// ends are the same figures with every pattern whose production figure has a band at the low
	// (0) and at the high (1) end of it: the pattern's charge (plan.Pattern.ProductionBand) and its
	// container's load (plan.Container.LoadBand), both plan's. rules names the unpinned rules they
	// rest on; nil ends when none does.
	ends  []weight
	rules []string
	// band and loadBand are the plan's bands of ru and of the container's average load.
	band     *record.Band
	avgBand  *record.Range
	loadBand *record.Range
}

// weigh reads pattern id's figures from the plan.
func (l *linter) weigh(id string) weight {
	if l.plan == nil {
		return weight{}
	}
	var w weight
	var lb *plan.LoadBand
	var rps float64
	for _, pp := range l.plan.Patterns {
		if pp.ID != id {
			continue
		}
		w.known = true
		w.ru, w.at = pp.Judged()
		rps = pp.AvgRPS
		// The plan's AvgRUs is rounded to hundredths; a nightly report's is 0 there. The same
		// product (cost.RUPerSecond of the judged charge and the average rate) unrounded.
		w.avg = cost.RUPerSecond(w.ru, pp.AvgRPS)
		if pp.JudgedOn == "projected" {
			w.band = pp.ProductionBand
		}
		for _, pc := range l.plan.Containers {
			if pc.Name != pp.Container {
				continue
			}
			w.container = pc.Name
			w.cAvg, w.cPeak = pc.AvgRUs, pc.PeakRUs
			w.prov, w.mode, w.partitions = pc.Designed.RU, pc.Designed.Mode, max(pc.Partitions, 1)
			lb = pc.LoadBand
		}
	}
	if !w.known {
		return w
	}
	w.derive()
	if w.band == nil && lb == nil {
		return w
	}
	w.rules = w.band.RuleNames()
	if lb != nil {
		w.rules = record.AddRules(w.rules, lb.Rules...)
	}
	for i := range 2 {
		e := weight{known: true, ru: w.ru, cAvg: w.cAvg, cPeak: w.cPeak, prov: w.prov, mode: w.mode, partitions: w.partitions}
		if b := w.band; b != nil {
			e.ru = []float64{b.LowRU, b.HighRU}[i]
		}
		e.avg = cost.RUPerSecond(e.ru, rps)
		if lb != nil {
			end := []plan.BandEnd{lb.Low, lb.High}[i]
			e.cAvg, e.cPeak = end.AvgRUs, end.PeakRUs
		}
		e.derive()
		w.ends = append(w.ends, e)
	}
	w.avgBand = record.NewRange(w.ends[0].avg, w.ends[1].avg, w.band.RuleNames(), num)
	w.loadBand = lb.Avg()
	return w
}

// derive sets the share, the headroom and the burst from the charge and the container's figures.
func (w *weight) derive() {
	if w.cAvg > 0 {
		w.share = w.avg / w.cAvg
	}
	switch w.mode {
	case cost.Serverless:
		w.headroom = cost.Current.ServerlessPartRU.Value*float64(w.partitions) - w.cPeak
	default:
		w.headroom = float64(w.prov) - w.cPeak
	}
	w.burst = w.ru > w.headroom
}

// rests says, when a verdict (what: "it throttles other traffic") differs between the figure and
// an end of its band, that it rests on the unpinned rules: "; whether it throttles other traffic
// rests on rule X unvalidated: at the low end of its band, no" ("" when both ends agree with the
// figure).
func (w weight) rests(what string, verdict func(weight) bool) string {
	for i, e := range w.ends {
		if verdict(e) != verdict(w) {
			answer := "no"
			if verdict(e) {
				answer = "yes"
			}
			return fmt.Sprintf("; whether %s rests on %s: at the %s end of its band, %s", what, record.RuleWords(w.rules), []string{"low", "high"}[i], answer)
		}
	}
	return ""
}

// negligible is true when the pattern's load is at most the negligible share of its container's
// and one execution fits the headroom: a finding about it would be noise.
func (w weight) negligible(limit float64) bool {
	return w.known && w.share <= limit && !w.burst
}

// words says what the pattern costs, its share and its burst, for a finding's or note's message.
func (w weight) words() string {
	if !w.known {
		return ""
	}
	// Each figure with its range; the rules they rest on are named once, at the end.
	ru := w.band.Spanned(num(w.ru), num)
	s := fmt.Sprintf("each execution costs %s RU %s and reaches all %d physical partition(s) at once (about %s RU in each); on average %s RU/s, %s of the %s RU/s average load of %s",
		ru, w.at, w.partitions, num(w.ru/float64(w.partitions)), w.avgBand.Spanned(num(w.avg), num), pct(w.share), w.loadBand.Spanned(num(w.cAvg), num), w.container)
	switch {
	case w.burst && w.mode == cost.Autoscale:
		s += fmt.Sprintf("; its burst of %s RU in about a second is over the %s RU/s left above the peak (autoscale max %d): it can throttle other traffic, and it lifts the hour it runs in to autoscale's maximum (the hour is billed at its highest RU/s)",
			num(w.ru), num(math.Max(w.headroom, 0)), w.prov)
	case w.burst:
		s += fmt.Sprintf("; its burst of %s RU in about a second is over the %s RU/s left above the peak of %s: it throttles other traffic (429) while it runs",
			num(w.ru), num(math.Max(w.headroom, 0)), w.container)
	default:
		s += fmt.Sprintf("; its burst of %s RU fits in the %s RU/s left above the peak", num(w.ru), num(w.headroom))
	}
	if rests := w.rests("its burst throttles other traffic", func(e weight) bool { return e.burst }); rests != "" {
		return s + rests
	}
	if w.band != nil || w.avgBand != nil || w.loadBand != nil {
		s += "; these figures rest on " + record.RuleWords(w.rules)
	}
	return s
}

// judgedWords is a pattern's judged figure (plan.Pattern.Judged) with its band when it has one:
// "13235 (132–13235: rule aggregate-without-filter unvalidated)".
func judgedWords(pp *plan.Pattern) string {
	ru, _ := pp.Judged()
	if pp.JudgedOn != "projected" {
		return num(ru)
	}
	return pp.ProductionBand.After(num(ru), num)
}

func num(x float64) string {
	switch {
	case x == 0:
		return "0"
	case math.Abs(x) >= 100:
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.3g", x)
}

func pct(x float64) string {
	switch {
	case x == 0:
		return "0%"
	case x < 0.001:
		return "under 0.1%"
	case x < 0.1:
		return fmt.Sprintf("%.1f%%", 100*x)
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

// negligibleShare is the configured limit.
func (l *linter) negligibleShare() float64 {
	if s := l.opts.NegligibleShare; s > 0 && s < 1 {
		return s
	}
	return DefaultNegligibleShare
}

// addWeighed records a fan-out, scan or missing-index finding of pattern id at path, weighed by
// what it costs at production: a note (lint passes) when its load is a negligible share of its
// container's and its burst fits the headroom, a finding with its cost otherwise.
func (l *linter) addWeighed(path, id, code, msg string) {
	w := l.weigh(id)
	limit := l.negligibleShare()
	if w.negligible(limit) {
		l.add(path, code, "%s — weighed by the plan's figures it is negligible: %s; under %s of the container's load with its burst in the headroom it is a note, not a finding (lint --negligible-share)%s",
			msg, w.words(), pct(limit), w.rests("it is negligible", func(e weight) bool { return e.negligible(limit) }))
		l.out[len(l.out)-1].Note = true
		return
	}
	if w.known {
		msg += " — what it costs: " + w.words()
		msg += w.rests("it is negligible (a note, not a finding)", func(e weight) bool { return e.negligible(limit) })
	}
	l.add(path, code, "%s", msg)
}

// planPattern is pattern id's figures in the plan; nil without a plan.
func (l *linter) planPattern(id string) *plan.Pattern {
	if l.plan == nil {
		return nil
	}
	for i := range l.plan.Patterns {
		if l.plan.Patterns[i].ID == id {
			return &l.plan.Patterns[i]
		}
	}
	return nil
}
