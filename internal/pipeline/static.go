package pipeline

import (
	"fmt"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/report"
)

// DesignFindings is what the static tools say about d that a run's report repeats, as plain data
// for report.Input (report, a stage, imports neither tool): plan's capacity warnings at the run's
// seed (throughput-short, hot-partition: what `validate plan --seed` prints, judged on each query's
// production charge when the design states a production scale, as the message says) and lint's
// unknown-field findings of each access pattern's query, as lint prints them, by pattern ID.
func DesignFindings(d *design.Design, seed int64) (capacity []report.CapacityWarning, unknown map[string][]string) {
	p, err := plan.Build(d, plan.Options{Seed: seed})
	if err != nil {
		p = nil
	}
	return findingsOf(d, p)
}

// staticPlan is the design's static plan at the run's seed, priced with rc; nil when it cannot be
// built (the report then repeats no plan warning and is not priced).
func staticPlan(d *design.Design, seed int64, rc *cost.RateCard) *plan.Plan {
	p, err := plan.Build(d, plan.Options{Seed: seed, RateCard: rc})
	if err != nil {
		return nil
	}
	return p
}

// findingsOf is DesignFindings with the static plan built (nil when it could not be).
func findingsOf(d *design.Design, p *plan.Plan) (capacity []report.CapacityWarning, unknown map[string][]string) {
	if p != nil {
		peak := map[string]float64{}
		for _, c := range p.Containers {
			peak[c.Name] = c.PeakRUs
		}
		for _, w := range p.Warnings {
			if w.Code == "throughput-short" || w.Code == "hot-partition" {
				capacity = append(capacity, report.CapacityWarning{Code: w.Code, Container: w.Subject, Message: w.Message,
					PlanPeak: peak[w.Subject]})
			}
		}
	}
	var fs []lint.Finding
	for i := range d.AccessPatterns {
		if d.AccessPatterns[i].Op != design.OpQuery {
			continue
		}
		if fs == nil {
			fs = lint.Check(d)
		}
		path := fmt.Sprintf("accessPatterns[%d].query", i)
		for _, f := range fs {
			if f.Code == "unknown-field" && f.Path == path {
				if unknown == nil {
					unknown = map[string][]string{}
				}
				id := d.AccessPatterns[i].ID
				unknown[id] = append(unknown[id], f.String())
			}
		}
	}
	return capacity, unknown
}
