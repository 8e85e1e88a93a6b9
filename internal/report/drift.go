package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

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

// IndexComparison is, for a query run on an account, the indexes the service reports it used and
// recommends (index metrics, asked for with PopulateIndexMetrics) beside the engine's own index plan.
type IndexComparison struct {
	Service *record.IndexMetrics `json:"service,omitempty"`
	Model   *record.IndexMetrics `json:"model,omitempty"`
}

// accountFacts fills, on a report whose measured charges are the service's, each query's index
// comparison and the report's model drift.
func accountFacts(r *Report, measRun, modelRun *record.Run) {
	if measRun == nil || modelRun == nil || measRun.Target.ChargeSource != record.ChargeService {
		return
	}
	meas, model := patternsByID(measRun), patternsByID(modelRun)
	for i := range r.Patterns {
		p := &r.Patterns[i]
		mp, dp := meas[p.ID], model[p.ID]
		if mp == nil || dp == nil {
			continue
		}
		if svc, eng := firstIndexMetrics(mp), firstIndexMetrics(dp); svc != nil || eng != nil {
			p.Indexes = &IndexComparison{Service: svc, Model: eng}
		}
		if p.Modeled == nil || p.Measured == nil || p.Modeled.Median <= 0 {
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

func firstIndexMetrics(p *record.Pattern) *record.IndexMetrics {
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
		if p.Indexes != nil {
			indexes = append(indexes, fmt.Sprintf("%s: service %s · model %s", p.ID, indexLine(p.Indexes.Service), indexLine(p.Indexes.Model)))
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
