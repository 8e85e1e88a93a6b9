package report

import (
	"fmt"

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

// project carries c to production scale with p's factor, and chooses the figure the verdict judges:
// the projected one when the design states a production scale, the seeded median otherwise.
func project(c *Charge, p *record.Projection) {
	c.VerdictOn = VerdictOnSeeded
	if p == nil {
		return
	}
	f := p.Factor
	if f <= 0 || p.Point || p.Unprojected {
		f = 1
	}
	c.Projected = round2(c.Median * f)
	if p.Production && !p.Point && !p.Unprojected {
		c.VerdictOn = VerdictOnProjected
	}
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
		return "projected median"
	}
	return "median"
}

// ProductionFigure is a pattern's charge at the design's production scale: the projected median of
// the charge its verdict rests on (measured when it carries a verdict, else modeled). It is the one
// place the report layer reads the production figure: the PRODUCTION column, baselines and
// comparisons all take it from here. ok is false when the pattern has no charge or no projection.
// Scaled says whether the figure differs in kind from the seeded median: false for point
// operations, unprojected patterns and designs without a production scale, where it equals it.
func ProductionFigure(p PatternResult) (ru float64, source record.ChargeSource, scaled, ok bool) {
	c, pj := judgedCharge(p), p.Projection
	if c == nil || pj == nil {
		return 0, "", false, false
	}
	return c.Projected, c.Source, pj.Production && !pj.Point && !pj.Unprojected, true
}

// projectedCell is the production-scale column: the projected charge of the figure the verdict
// rests on, or why it equals the seeded one.
func projectedCell(p PatternResult) string {
	ru, source, _, ok := ProductionFigure(p)
	pj := p.Projection
	switch {
	case !ok:
		return "—"
	case pj.Point:
		return "= seeded (point op)"
	case pj.Unprojected:
		return "= seeded (not projected)"
	case !pj.Production:
		return "= seeded (no scale)"
	}
	return fmtRU(ru) + " " + SourceLabel(source)
}

// judgedCharge is the charge a pattern's verdict rests on: the measured one when it carries a
// verdict, else the modeled one.
func judgedCharge(p PatternResult) *Charge {
	if p.Measured != nil && p.Measured.CarriesVerdict {
		return p.Measured
	}
	return p.Modeled
}

// projectionLines are the arithmetic of every projected query, and why a pattern was not
// projected, for the renderers.
func projectionLines(r *Report) []string {
	var out []string
	for _, p := range r.Patterns {
		pj := p.Projection
		if pj != nil && pj.Unprojected && pj.Note != "" {
			// Why the PRODUCTION column repeats the seeded figure.
			out = append(out, fmt.Sprintf("%s %s: not projected, the PRODUCTION column and the verdict use the seeded figure: %s", p.ID, p.Name, pj.Note))
			continue
		}
		if pj == nil || pj.Point || len(pj.Arithmetic) == 0 {
			continue
		}
		head := fmt.Sprintf("%s %s: ×%.3g (in-process model %s → %s RU)", p.ID, p.Name, pj.Factor, fmtRU(pj.SeededRU), fmtRU(pj.ProjectedRU))
		if !pj.Production {
			head += "; " + pj.Note
		}
		out = append(out, head)
		for _, a := range pj.Arithmetic {
			out = append(out, "    "+a)
		}
		if c := judgedCharge(p); c != nil && pj.Factor > 0 && !pj.Unprojected {
			// The PRODUCTION column carries the factor to the run's own median, which may differ a
			// little from the in-process model's seeded figure above.
			out = append(out, fmt.Sprintf("    PRODUCTION column: the run's median %s RU × %.4g = %s RU", fmtRU(c.Median), pj.Factor, fmtRU(c.Projected)))
		}
	}
	return out
}

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
