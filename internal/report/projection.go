package report

import (
	"fmt"
	"strings"

	"github.com/cosmosdv/validate/internal/record"
)

// Verdict figures: a charge is judged at production scale when the design states one.
const (
	VerdictOnSeeded    = "seeded"
	VerdictOnProjected = "projected"
)

// projectionsByID indexes the projections of the modeled run (or, without one, the measured run).
func projectionsByID(runs ...*record.Run) map[string]*record.Projection {
	m := map[string]*record.Projection{}
	for _, r := range runs {
		if r == nil || len(m) > 0 {
			continue
		}
		for i := range r.Projections {
			m[r.Projections[i].ID] = &r.Projections[i]
		}
	}
	return m
}

// project sets c's production figure and chooses the figure the verdict judges: the one
// estimator's charge at production (p.ProjectedRU, the figure `validate plan` prints too) when the
// design states a production scale, the seeded median otherwise. Nothing is carried by a ratio: the
// run's executed median is the seeded figure, the estimator's production charge the production one.
func project(c *Charge, p *record.Projection) {
	c.VerdictOn = VerdictOnSeeded
	if p == nil {
		return
	}
	c.Projected = c.Median
	if p.Point || p.Unprojected || !p.Production {
		return
	}
	c.Projected = round2(p.ProjectedRU)
	c.VerdictOn = VerdictOnProjected
	c.rules = p.Band
}

// judgedWords is the judged figure as the reasons write it: with its band when it has one,
// "14 RU (9–31: rule order-top-unserved-filter unvalidated)".
func (c *Charge) judgedWords() string {
	if w := c.rules.Words(fmtRU); w != "" && c.VerdictOn == VerdictOnProjected {
		return fmtRU(c.judged()) + " RU (" + w + ")"
	}
	return fmtRU(c.judged()) + " RU"
}

// insideRuleBand is the reason a verdict gives when the estimate lies inside the band of the
// production figure it judges: which alternative of an unpinned rule holds decides it.
func insideRuleBand(c *Charge, est float64) (string, bool) {
	if c == nil || c.VerdictOn != VerdictOnProjected || !c.rules.Contains(est) {
		return "", false
	}
	return fmt.Sprintf("the estimate %s RU lies inside the production figure's band %s–%s RU (%s): the verdict rests on an alternative no published figure decides (%s); validate calibrate --scale pins it",
		fmtRU(est), fmtRU(c.rules.LowRU), fmtRU(c.rules.HighRU), strings.Join(c.rules.Alternatives(fmtRU), "; "), strings.Join(c.rules.RuleNames(), ", ")), true
}

// judged is the figure the verdict rests on.
func (c *Charge) judged() float64 {
	if c.VerdictOn == VerdictOnProjected {
		return c.Projected
	}
	return c.Median
}

// judgedName names the judged figure in reasons.
func (c *Charge) judgedName() string {
	if c.VerdictOn == VerdictOnProjected {
		return "production figure"
	}
	return "median"
}

// ProductionFigure is a pattern's charge at the design's production scale: the one estimator's
// (Charge.Projected, which is record.Projection.ProjectedRU, the figure plan prints), always a
// model figure. It is the one
// place the report layer reads the production figure: the PRODUCTION column, baselines and
// comparisons all take it from here. ok is false when the pattern has no charge or no projection.
// Scaled says whether the figure differs in kind from the seeded median: false for point
// operations, unprojected patterns and designs without a production scale, where it equals it.
func ProductionFigure(p PatternResult) (ru float64, source record.ChargeSource, scaled, ok bool) {
	c, pj := judgedCharge(p), p.Projection
	if c == nil || pj == nil {
		return 0, "", false, false
	}
	scaled = pj.Production && !pj.Point && !pj.Unprojected
	source = c.Source
	if scaled {
		source = record.ChargeModel // the estimator's, whatever the target measured
	}
	return c.Projected, source, scaled, true
}

// projectedCell is the production-scale column: the one estimator's production charge, or why the
// column repeats the seeded figure.
func projectedCell(p PatternResult) string {
	ru, source, _, ok := ProductionFigure(p)
	pj := p.Projection
	switch {
	case !ok:
		return "—"
	case pj.Point:
		return "= seeded (point op)"
	case pj.Unprojected:
		return "= seeded (not estimated)"
	case !pj.Production:
		return "= seeded (no scale)"
	}
	if w := pj.Band.Words(fmtRU); w != "" {
		return fmtRU(ru) + " " + SourceLabel(source) + " (estimated; " + w + ")"
	}
	if len(pj.PinnedRules) > 0 {
		var rs []string
		for _, r := range pj.PinnedRules {
			rs = append(rs, r.Name+"="+r.Alternative)
		}
		return fmtRU(ru) + " " + SourceLabel(source) + " (estimated; rule " + strings.Join(rs, ", ") + " " + pj.PinnedRules[0].By + ")"
	}
	return fmtRU(ru) + " " + SourceLabel(source) + " (estimated)"
}

// judgedCharge is the charge a pattern's verdict rests on: the measured one when it carries a
// verdict, else the modeled one.
func judgedCharge(p PatternResult) *Charge {
	if p.Measured != nil && p.Measured.CarriesVerdict {
		return p.Measured
	}
	return p.Modeled
}

// projectionLines are the arithmetic of every production figure, and why a pattern has none, for
// the renderers.
func projectionLines(r *Report) []string {
	var out []string
	for _, p := range r.Patterns {
		pj := p.Projection
		if pj != nil && pj.Unprojected && pj.Note != "" {
			// Why the PRODUCTION column repeats the seeded figure.
			out = append(out, fmt.Sprintf("%s %s: no production figure, the PRODUCTION column and the verdict use the executed seeded figure: %s", p.ID, p.Name, pj.Note))
			continue
		}
		if pj == nil || pj.Point || len(pj.Arithmetic) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s: estimated %s RU at the seeded scale, %s RU at production", p.ID, p.Name, fmtRU(pj.SeededRU), fmtRU(pj.ProjectedRU)))
		for _, a := range pj.Arithmetic {
			out = append(out, "    "+a)
		}
		if b := pj.Band; b != nil {
			out = append(out, fmt.Sprintf("    band: %s–%s RU under the alternatives of %s, which no published figure and no calibration decides (docs/cost-model.md)",
				fmtRU(b.LowRU), fmtRU(b.HighRU), strings.Join(b.RuleNames(), ", ")))
			for _, a := range b.Alternatives(fmtRU) {
				out = append(out, "      "+a+" RU")
			}
		}
		for _, r := range pj.PinnedRules {
			out = append(out, fmt.Sprintf("    rule %s=%s (%s): no band", r.Name, r.Alternative, r.By))
		}
	}
	return out
}

// FiguresLegend is how the three figures of a pattern relate, stated once in every report.
const FiguresLegend = "ESTIMATE is the designer's figure. MODELED is the engine's charge for the executions at the seeded scale (the median; the cost model's, not a measurement). PRODUCTION is the one estimator's charge at the design's production scale, the figure `validate plan` prints; the estimator's facts at the seeded scale are checked against the executions' (Estimator check)."

// scaleBasis says at which scale the verdicts judged charges, for the summary's basis.
func scaleBasis(ps []PatternResult) string {
	projected, seeded := false, false
	for _, p := range ps {
		if p.Projection == nil || p.Projection.Point || p.Projection.Unprojected {
			continue
		}
		if p.Projection.Production {
			projected = true
		} else {
			seeded = true
		}
	}
	switch {
	case projected:
		return "; queries judged at the design's production scale (projected); point operations do not change with scale"
	case seeded:
		return "; the design states no production scale, so production scale is the seeded one"
	}
	return ""
}
