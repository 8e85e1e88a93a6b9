package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/record"
)

// Formats Render writes.
const (
	FormatText = "text"
	FormatJSON = "json"
)

// Render writes p to w as "text" (default when format is "") or "json".
func Render(w io.Writer, p *Plan, format string) error {
	switch strings.ToLower(format) {
	case "", FormatText:
		return renderText(w, p)
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(p); err != nil {
			return fmt.Errorf("render plan: %w", err)
		}
		return nil
	}
	return fmt.Errorf("render plan: unknown format %q (want text or json)", format)
}

// errWriter keeps the first write error so the renderer can write without checking every line.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}

func renderText(w io.Writer, p *Plan) error {
	ew := &errWriter{w: w}
	ew.printf("Plan for %s (static: no database was used)\n", p.Design)
	ew.printf("Rate card %s, dated %s. Prices in %s.\n", p.RateCard.Version, p.RateCard.Date, p.RateCard.Currency)
	if u := p.RateCard.Unvalidated; len(u) > 0 {
		ew.printf("Unvalidated coefficients (no independent published figure checks them; docs/fidelity.md): %s.\n", strings.Join(u, "; "))
	}
	if p.RateCard.Label != "" {
		ew.printf("Charges: %s — modeled with figures fitted to that account, not measured.\n", p.RateCard.Label)
	}
	ew.printf("\n")

	ew.printf("Access patterns (RU per execution; seeded = the estimator at the seeded volume, which a run's execution checks; production = the estimator at the design's production scale)\n")
	tw := tabwriter.NewWriter(ew.w, 0, 4, 2, ' ', tabwriter.AlignRight)
	twp := func(format string, a ...any) {
		if ew.err == nil {
			_, ew.err = fmt.Fprintf(tw, format, a...)
		}
	}
	twp("ID\tOP\tSEEDED RU\tPRODUCTION\tFLOOR\tESTIMATE\tDIFF\tAVG RPS\tPEAK RPS\tAVG RU/s\tPEAK RU/s\t\n")
	for _, pt := range p.Patterns {
		twp("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", pt.ID, pt.Op, num(pt.ModelRU), production(pt), num(pt.FloorRU),
			num(pt.EstimateRU), diff(pt), num(pt.AvgRPS), num(pt.PeakRPS), num(pt.AvgRUs), num(pt.PeakRUs))
	}
	if ew.err == nil {
		ew.err = tw.Flush()
	}
	for _, pt := range p.Patterns {
		ew.printf("  %s %s [%s]: %s\n", pt.ID, pt.Name, pt.Basis, pt.Detail)
	}
	ew.printf("%s\n", judgedLine(p))
	ew.printf("AVG and PEAK RU/s are the judged figure × the request rates: the load the containers below are sized and priced for.\n")
	projected := false
	for _, pt := range p.Patterns {
		if len(pt.Projection) == 0 {
			continue
		}
		if !projected {
			ew.printf("\nProduction scale (queries: the one estimator at the production documents, the figure run reports too; point operations do not change with scale):\n")
			projected = true
		}
		ew.printf("  %s %s: estimated %s RU at the seeded scale, %s RU at production\n", pt.ID, pt.Name, num(pt.ModelRU), num(pt.ProductionRU))
		for _, l := range pt.Projection {
			ew.printf("      %s\n", l)
		}
		for _, l := range BandLines(pt) {
			ew.printf("      %s\n", l)
		}
	}

	ew.printf("\nContainers\n")
	for _, c := range p.Containers {
		ew.printf("%s  key %s  storage %s GB (%s)\n", c.Name, strings.Join(c.PartitionKey, ", "), num(c.StorageGB), c.StorageBasis)
		for _, d := range c.Documents {
			ew.printf("  %-14s %8.0f docs  %6.0f B  %5.1f terms  %8.0f key values  busiest key %.2f%%\n",
				d.Type, d.Count, d.Bytes, d.Terms, d.KeyValues, 100*d.BusiestShare)
		}
		basis := "seeded charges: the design states no production scale"
		if c.LoadBasis == LoadProduction {
			basis = "queries at their PRODUCTION charge, point operations as seeded"
		}
		lb := c.LoadBand
		load := fmt.Sprintf("%s RU/s average, %s RU/s peak (%s)", lb.Avg().Spanned(num(c.AvgRUs), num), lb.Peak().Spanned(num(c.PeakRUs), num), basis)
		ew.printf("  load: %s\n", record.NameRules(load, lb.Avg(), lb.Peak()))
		// The costs below carry their ranges; the rules they rest on are the load's, named on its
		// line and in the band lines.
		ew.printf("  designed: %s  → %s/month  (%s)\n", throughput(c.Designed), lb.Designed().Spanned(usd(c.DesignedCost.Total), usd), c.DesignedCost.Formula)
		if c.Traffic != nil {
			ew.printf("  flat-rate figures (average and peak, no shape; the hour-by-hour month below decides):\n")
		}
		for i, o := range c.Options {
			mark := " "
			if o.Mode == c.Recommended.Mode && o.Feasible && c.Traffic == nil {
				mark = "*"
			}
			state := lb.Option(i).Spanned(usd(o.Total), usd) + "/month" + lb.optionFlips(i, o.Feasible)
			if !o.Feasible {
				state = "not possible: " + o.Reason + lb.optionFlips(i, o.Feasible)
			}
			ew.printf("  %s %-10s %s  (%s)\n", mark, o.Mode, state, o.Formula)
		}
		if c.RecommendedNote != "" {
			lead := "more than designed"
			if c.MonthlyUSD <= c.DesignedCost.Total+0.005 {
				lead = "why this mode"
			}
			ew.printf("  %s: %s\n", lead, c.RecommendedNote)
		}
		ew.printf("  partitions: %d physical  busiest logical partition %s RU/s, %s GB at peak; its physical partition at %.0f%% of %s RU/s  risk: %s\n",
			c.Partitions, num(c.BusiestRUs), num(c.BusiestGB), 100*c.Hot.Utilization, num(c.Hot.CapacityRU), c.Hot.Risk)
		ew.printf("  busiest logical partition sized by: %s\n", c.BusiestBasis)
		for _, l := range loadBandLines(c) {
			ew.printf("  %s\n", l)
		}
		for _, n := range c.Hot.Notes {
			ew.printf("  note: %s\n", n)
		}
		if c.Traffic != nil {
			renderTraffic(ew, &c)
		}
	}
	cheapest := "in the cheapest mode per container (* above)"
	if p.MonthlyUSD > p.DesignedMonthlyUSD+0.005 {
		cheapest = "in the cheapest mode per container that serves the modeled load (* above; \"more than designed\" says why)"
	}
	ew.printf("\nMonthly: %s at the designed throughput; %s %s.\n", p.DesignedMonthlyBand.After(usd(p.DesignedMonthlyUSD), usd), p.MonthlyBand.After(usd(p.MonthlyUSD), usd), cheapest)

	ew.printf("\nAssumptions\n")
	for _, a := range p.Assumptions {
		ew.printf("  - %s\n", a)
	}
	if len(p.Warnings) > 0 {
		ew.printf("\nWarnings\n")
		for _, wn := range p.Warnings {
			subj := ""
			if wn.Subject != "" {
				subj = wn.Subject + ": "
			}
			ew.printf("  %s%s [%s]\n", subj, wn.Message, wn.Code)
		}
	}
	return ew.err
}

// BandLines say what a pattern's production figure is under each alternative of the unpinned
// rules that move it, and which calibrated rules it follows: the plan's text, and MCP's.
func BandLines(pt Pattern) []string {
	var out []string
	if b := pt.ProductionBand; b != nil {
		out = append(out, fmt.Sprintf("band: %s–%s RU under the alternatives of %s, which no published figure and no calibration decides (docs/cost-model.md; validate calibrate --scale pins it)",
			num(b.LowRU), num(b.HighRU), strings.Join(b.RuleNames(), ", ")))
		for _, a := range b.Alternatives(num) {
			out = append(out, "  "+a+" RU")
		}
	}
	for _, r := range pt.ProductionPinned {
		out = append(out, fmt.Sprintf("rule %s=%s (%s): no band", r.Name, r.Alternative, r.By))
	}
	return out
}

// loadBandLines say what a container's capacity is at each end of its load band: the load, the
// throughput the cheapest mode sizes and its cost, and the verdicts that hold only there (plan's
// text; the JSON carries Container.LoadBand). None without a band.
func loadBandLines(c Container) []string {
	lb := c.LoadBand
	if lb == nil {
		return nil
	}
	decides := "rule %s, which no published figure and no calibration decides (docs/cost-model.md; validate calibrate --scale pins it)"
	if len(lb.Rules) > 1 {
		decides = "rules %s, which no published figure and no calibration decides (docs/cost-model.md; validate calibrate --scale pins them)"
	}
	out := []string{"band: the load rests on " + fmt.Sprintf(decides, strings.Join(lb.Rules, ", ")) + "; with every pattern at the low end of its band, then at the high end:"}
	for i, e := range []BandEnd{lb.Low, lb.High} {
		sized := "no mode serves it"
		if e.Recommended.Mode != "" {
			sized = fmt.Sprintf("cheapest %s at %s/month", throughput(e.Recommended), usd(e.MonthlyUSD))
		}
		out = append(out, fmt.Sprintf("  %s end: %s RU/s average, %s RU/s peak; %s; designed %s/month; busiest physical partition at %.0f%%, risk %s",
			[]string{"low", "high"}[i], num(e.AvgRUs), num(e.PeakRUs), sized, usd(e.DesignedUSD), 100*e.Utilization, e.Risk))
		for _, w := range e.Warnings {
			out = append(out, fmt.Sprintf("    only there: %s [%s]", w.Message, w.Code))
		}
	}
	return out
}

// optionFlips says, for mode i whose feasibility at the figure is feasible, at which end of the
// band it is the other way: that verdict rests on an unpinned rule ("" when both ends agree).
func (lb *LoadBand) optionFlips(i int, feasible bool) string {
	if lb == nil {
		return ""
	}
	for j, e := range []BandEnd{lb.Low, lb.High} {
		if i >= len(e.Options) || e.Options[i].Feasible == feasible {
			continue
		}
		end := []string{"low", "high"}[j]
		if feasible {
			return fmt.Sprintf(" (this rests on %s: at the %s end of the band it is not possible)", record.RuleWords(lb.Rules), end)
		}
		return fmt.Sprintf(" (this rests on %s: at the %s end of the band it is possible, %s/month)", record.RuleWords(lb.Rules), end, usd(e.Options[i].USD))
	}
	return ""
}

// renderTraffic prints a container's month hour by hour compactly: a day without events and every
// event hour at the designed throughput, then each mode's month.
func renderTraffic(ew *errWriter, c *Container) {
	t := c.Traffic
	ew.printf("  traffic: %s; highest second %s× the hour's average; autoscale scaling: %s\n", t.Shape, num(t.IntraHourPeak), t.Scaling)
	ew.printf("    %-6s %9s %9s %17s %9s %9s %s\n", "HOUR", "AVG RU/s", "PEAK", "HOTTEST / SHARE", "BILLED", "429/s", "")
	row := func(label string, h Hour) {
		mark := ""
		if h.ThrottledRU > 0 {
			mark = "THROTTLED"
			if h.BurstSeconds > 0 {
				mark += fmt.Sprintf(" (burst cushion ~%.0f s, not counted)", h.BurstSeconds)
			}
		}
		if h.ThrottledRU > 0 && h.ThrottledHighRU < h.ThrottledRU {
			mark += fmt.Sprintf(" (high priority %s RU/s)", num(h.ThrottledHighRU))
		}
		if h.ThrottledBucketRU > 0 {
			mark += fmt.Sprintf(" bucket caps refuse %s RU/s (3212)", num(h.ThrottledBucketRU))
		}
		if h.Event != "" {
			mark = strings.TrimSpace(h.Event + " " + mark)
		}
		ew.printf("    %-6s %9s %9s %8s / %-6s %9s %9s %s\n", label, num(h.AvgRU), num(h.PeakRU), num(h.HottestRU), num(h.ShareRU), num(h.BilledRU), num(h.ThrottledRPS), mark)
	}
	for _, h := range t.Day {
		row(fmt.Sprintf("%02d", h.Hour), h)
	}
	for _, h := range t.Events {
		row(fmt.Sprintf("d%d %02d", h.Day, h.Hour), h)
	}
	d := t.Designed
	ew.printf("    month by the hour: designed %s %s/month, %d of 730 hours throttle\n", throughput(c.Designed), usd(d.Total), d.ThrottledHrs)
	for i, o := range t.Options {
		mark := " "
		if i == t.Recommended {
			mark = "*"
		}
		state := usd(o.Total) + "/month"
		if !o.Serves {
			state = "does not serve every hour: " + o.Reason
		}
		ew.printf("    %s %-30s %s  (%s)\n", mark, throughput(Throughput{Mode: o.Mode, RU: o.RU}), state, o.Formula)
	}
	ew.printf("    the flat-rate figures above (average and peak, no shape) say %s/month", usd(t.FlatUSD))
	if t.WithoutEventsUSD > 0 && t.Recommended >= 0 {
		ew.printf("; without the events the cheapest serving mode costs %s/month, so serving them costs %s", usd(t.WithoutEventsUSD), usd(t.Options[t.Recommended].Total-t.WithoutEventsUSD))
	}
	ew.printf("\n")
}

func num(x float64) string {
	switch {
	case x == 0:
		return "0"
	case x < 0.01:
		return fmt.Sprintf("%.2g", x) // a small figure keeps its significant digits, never "0"
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

// sig is x rounded to n significant digits (a busiest partition of 0.00004 GB is not 0 GB).
func sig(x float64, n int) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	p := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

func usd(x float64) string { return fmt.Sprintf("$%.2f", x) }

// production is the PRODUCTION column: the projected charge, or why it is the seeded one.
func production(p Pattern) string {
	switch {
	case p.JudgedOn == "projected":
		if p.ProductionBand != nil {
			return p.ProductionBand.After(num(p.ProductionRU), num)
		}
		if len(p.ProductionPinned) > 0 {
			return num(p.ProductionRU) + " (" + p.ProductionPinned[0].By + ")"
		}
		return num(p.ProductionRU)
	case p.Op == "query":
		return "= seeded (no scale)"
	case p.Op == "changeFeed":
		return "= seeded (not estimated)"
	}
	return "= seeded (point op)"
}

// judgedLine says which figure DIFF and the warnings judge each estimate on.
func judgedLine(p *Plan) string {
	projected, seeded := 0, 0
	for _, pt := range p.Patterns {
		if pt.JudgedOn == "projected" {
			projected++
		} else if pt.Op == "query" {
			seeded++
		}
	}
	switch {
	case projected > 0 && seeded > 0:
		return "Estimates of queries in containers with a production scale are judged on the PRODUCTION figure, the rest on the seeded one."
	case projected > 0:
		return "Estimates of queries are judged on the PRODUCTION figure (the design states a production scale); point operations on the seeded one, which does not change with scale."
	}
	return "Estimates are judged on the seeded figure: the design states no production scale, so production scale is the seeded one."
}

func diff(p Pattern) string {
	if p.EstimateRU == 0 {
		return "-"
	}
	return signedPct(p.DiffPct)
}

// signedPct writes a difference in percent, whole: "+440%", "-12%". A difference that rounds to
// -100% without being it keeps a decimal ("-99.7%"): -100% would say the estimate is zero.
func signedPct(x float64) string {
	if s := fmt.Sprintf("%+.0f%%", x); s != "-100%" || x == -100 {
		return s
	}
	return fmt.Sprintf("%+.1f%%", x)
}

func throughput(t Throughput) string {
	switch t.Mode {
	case cost.Serverless:
		return "serverless"
	case cost.Autoscale:
		return fmt.Sprintf("autoscale max %d RU/s", t.RU)
	}
	return fmt.Sprintf("manual %d RU/s", t.RU)
}
