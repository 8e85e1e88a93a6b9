package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// ModelDrift is a pattern whose charge measured on an account differs from the modeled one by more
// than the pattern's tolerance: the model is off there, and the facts beside it are what the next
// calibration (validate calibrate) or a fix of the model starts from.
type ModelDrift struct {
	Pattern string `json:"pattern"`
	// Modeled and Measured are the medians; DiffPct is (Measured − Modeled) / Modeled in percent;
	// Band is the tolerance in RU (the pattern's, around the modeled figure).
	Modeled  float64 `json:"modeled"`
	Measured float64 `json:"measured"`
	DiffPct  float64 `json:"diffPct"`
	Band     float64 `json:"band"`
	// ServiceMetrics and ModelMetrics are the query metrics of one execution on each side (retrieved
	// documents and bytes, output documents and bytes, index utilization): queries only.
	ServiceMetrics map[string]float64 `json:"serviceMetrics,omitempty"`
	ModelMetrics   map[string]float64 `json:"modelMetrics,omitempty"`
}

// IndexComparison is, for a query, the indexes the target reports it used and would use (index
// metrics, asked for with PopulateIndexMetrics on the pattern's warm-up execution, whose charge is in
// no sample) beside the engine's own index plan (its index metrics for the same query) and advise's
// changes, with where they disagree. A potential index is a hint to test, not proof.
type IndexComparison struct {
	// Service is an account's (charges "service"); Target another target's, whose charges are
	// TargetSource. One of them at most.
	Service      *record.IndexMetrics `json:"service,omitempty"`
	Target       *record.IndexMetrics `json:"target,omitempty"`
	TargetSource record.ChargeSource  `json:"targetSource,omitempty"`
	// Model is the embedded engine's index plan for the query.
	Model *record.IndexMetrics `json:"model,omitempty"`
	// Advice is the changes of the design the target's potential indexes lead to (Suggestions:
	// only those the service's documented rules say the query would use).
	Advice []string `json:"advice,omitempty"`
	// Disagreements says, in words, where the target, the model and the advice part.
	Disagreements []string `json:"disagreements,omitempty"`
}

// accountFacts fills each query's index comparison when the measured run answered index metrics and,
// on a report whose measured charges are the service's, the report's model drift.
func accountFacts(r *Report, d *design.Design, measRun, modelRun *record.Run) {
	if measRun == nil || modelRun == nil {
		return
	}
	meas, model := patternsByID(measRun), patternsByID(modelRun)
	for i := range r.Patterns {
		p := &r.Patterns[i]
		mp, dp := meas[p.ID], model[p.ID]
		if mp == nil || dp == nil {
			continue
		}
		if tgt, eng := firstIndexMetrics(mp), firstIndexMetrics(dp); tgt != nil {
			p.Indexes = compareIndexes(d, p.ID, measRun.Target.ChargeSource, mp, tgt, eng)
		}
		if measRun.Target.ChargeSource != record.ChargeService || p.Modeled == nil || p.Measured == nil || p.Modeled.Median <= 0 {
			continue
		}
		band := bandRU(p.Tolerance, p.Modeled.Median)
		diff := p.Measured.Median - p.Modeled.Median
		if math.Abs(diff) <= band {
			continue
		}
		r.ModelDrift = append(r.ModelDrift, ModelDrift{Pattern: p.ID, Modeled: p.Modeled.Median, Measured: p.Measured.Median,
			DiffPct: round2(diff / p.Modeled.Median * 100), Band: round2(band),
			ServiceMetrics: firstQueryMetrics(mp), ModelMetrics: firstQueryMetrics(dp)})
	}
}

// compareIndexes puts the target's index metrics tgt for pattern id beside the engine's eng and
// advise's changes, and says where they disagree.
func compareIndexes(d *design.Design, id string, source record.ChargeSource, mp *record.Pattern, tgt, eng *record.IndexMetrics) *IndexComparison {
	c := &IndexComparison{Model: eng}
	who := "the account"
	if source == record.ChargeService {
		c.Service = tgt
	} else {
		c.Target, c.TargetSource = tgt, source
		who = "the target"
	}
	var sugg []Suggestion
	if ai := slices.IndexFunc(d.AccessPatterns, func(a design.AccessPattern) bool { return a.ID == id }); ai >= 0 {
		sugg = Suggestions(d, &d.AccessPatterns[ai], mp)
	}
	for _, s := range sugg {
		c.Advice = append(c.Advice, s.Text)
	}
	if eng == nil {
		eng = &record.IndexMetrics{}
	}
	tu, eu := indexSpecs(tgt.UtilizedSingle, tgt.UtilizedComposite), indexSpecs(eng.UtilizedSingle, eng.UtilizedComposite)
	for _, x := range tu {
		if !slices.Contains(eu, x) {
			c.Disagreements = append(c.Disagreements, fmt.Sprintf("%s used %s, our index plan does not", who, x))
		}
	}
	for _, x := range eu {
		if !slices.Contains(tu, x) {
			c.Disagreements = append(c.Disagreements, fmt.Sprintf("our index plan uses %s, %s did not", x, who))
		}
	}
	tp, ep := indexSpecs(tgt.PotentialSingle, tgt.PotentialComposite), indexSpecs(eng.PotentialSingle, eng.PotentialComposite)
	for _, x := range tp {
		line := fmt.Sprintf("%s suggests %s", who, x)
		if !slices.Contains(ep, x) {
			line += ", our index plan does not"
		}
		if !slices.ContainsFunc(sugg, func(s Suggestion) bool { return suggests(s, x) }) {
			line += "; advise drops it (the service's documented rules say this query would not use it, or no document has the field)"
		}
		if line != fmt.Sprintf("%s suggests %s", who, x) {
			c.Disagreements = append(c.Disagreements, line+" — a potential index is a hint to test, not proof")
		}
	}
	for _, x := range ep {
		if !slices.Contains(tp, x) {
			c.Disagreements = append(c.Disagreements, fmt.Sprintf("our index plan suggests %s, %s does not", x, who))
		}
	}
	return c
}

// indexSpecs lists single paths and composite indexes ("(/a ASC, /b DESC)") as one set of strings.
func indexSpecs(single []string, composite [][]string) []string {
	out := slices.Clone(single)
	for _, c := range composite {
		out = append(out, "("+strings.Join(c, ", ")+")")
	}
	return out
}

// suggests reports whether advice s carries index spec x (a single path or a composite's text).
func suggests(s Suggestion, x string) bool {
	if s.Include != "" {
		return s.Include == x
	}
	if len(s.Composite) == 0 {
		return false
	}
	specs := make([]string, len(s.Composite))
	for i, it := range s.Composite {
		dir := "ASC"
		if it.Desc {
			dir = "DESC"
		}
		specs[i] = "/" + strings.Join(it.Path, "/") + " " + dir
	}
	return "("+strings.Join(specs, ", ")+")" == x
}

// firstIndexMetrics is the pattern's index metrics: the warm-up's (Pattern.IndexMetrics), else, in
// records written before, the first execution's that has them.
func firstIndexMetrics(p *record.Pattern) *record.IndexMetrics {
	if p.IndexMetrics != nil {
		return p.IndexMetrics
	}
	for _, e := range p.Executions {
		if e.IndexMetrics != nil {
			return e.IndexMetrics
		}
	}
	return nil
}

func firstQueryMetrics(p *record.Pattern) map[string]float64 {
	for _, e := range p.Executions {
		if len(e.QueryMetrics) > 0 {
			out := map[string]float64{}
			for _, k := range []string{"retrievedDocumentCount", "retrievedDocumentSize", "outputDocumentCount", "outputDocumentSize", "indexUtilizationRatio"} {
				if v, ok := e.QueryMetrics[k]; ok {
					out[k] = v
				}
			}
			return out
		}
	}
	return nil
}

// indexLine renders one side of an index comparison.
func indexLine(m *record.IndexMetrics) string {
	if m == nil {
		return "—"
	}
	var used, potential []string
	used = append(used, m.UtilizedSingle...)
	for _, c := range m.UtilizedComposite {
		used = append(used, "("+strings.Join(c, ", ")+")")
	}
	potential = append(potential, m.PotentialSingle...)
	for _, c := range m.PotentialComposite {
		potential = append(potential, "("+strings.Join(c, ", ")+")")
	}
	return fmt.Sprintf("utilized %s; potential %s", orDash(strings.Join(used, " ")), orDash(strings.Join(potential, " ")))
}

// accountLines renders the index comparisons and the model drift, for the text and markdown reports.
func accountLines(r *Report) (indexes, drift []string) {
	for _, p := range r.Patterns {
		ix := p.Indexes
		if ix == nil {
			continue
		}
		side := "service " + indexLine(ix.Service)
		if ix.Service == nil {
			side = "target (" + SourceLabel(ix.TargetSource) + ") " + indexLine(ix.Target)
		}
		indexes = append(indexes, fmt.Sprintf("%s: %s · our index plan %s", p.ID, side, indexLine(ix.Model)))
		for _, a := range ix.Advice {
			indexes = append(indexes, fmt.Sprintf("%s: advise: %s", p.ID, a))
		}
		for _, x := range ix.Disagreements {
			indexes = append(indexes, fmt.Sprintf("%s: disagree: %s", p.ID, x))
		}
	}
	for _, d := range r.ModelDrift {
		line := fmt.Sprintf("%s: measured %.2f RU, modeled %.2f RU (%+.1f%%, tolerance ±%.2f RU)", d.Pattern, d.Measured, d.Modeled, d.DiffPct, d.Band)
		if len(d.ServiceMetrics) > 0 {
			line += "; service " + metricsText(d.ServiceMetrics) + " · model " + metricsText(d.ModelMetrics)
		}
		drift = append(drift, line)
	}
	return indexes, drift
}

func metricsText(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%g", k, m[k]))
	}
	return strings.Join(parts, " ")
}
