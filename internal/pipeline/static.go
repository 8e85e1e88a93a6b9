package pipeline

import (
	"fmt"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/record"
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

// Estimates is the one estimator's figures for every access pattern of d, as a run records them
// (record.Run.Projections): each query's facts and charge at the seeded scale, which the run's
// execution checks, and at the design's production scale, the PRODUCTION figure every report shows.
// They are plan's (plan.Build at the run's seed and rate card): `validate plan` prints the same.
func Estimates(d *design.Design, seed int64, rc *cost.RateCard) ([]record.Projection, error) {
	p, err := plan.Build(d, plan.Options{Seed: seed, RateCard: rc})
	if err != nil {
		return nil, err
	}
	parts := map[string]plan.Container{}
	for _, c := range p.Containers {
		parts[c.Name] = c
	}
	out := make([]record.Projection, 0, len(p.Patterns))
	for _, pp := range p.Patterns {
		c := parts[pp.Container]
		pr := record.Projection{ID: pp.ID, Production: c.ProductionScale, SeededRU: pp.ModelRU, ProjectedRU: pp.ModelRU}
		switch {
		case pp.Op == design.OpChangeFeed:
			pr.Unprojected = true
			pr.Note = "a change feed's charge follows the changes it reads, which the design does not state at production scale"
		case pp.Op != design.OpQuery:
			pr.Point = true
			pr.Note = "point operation: its charge does not change with scale"
		case pp.Unestimated != "":
			pr.Unprojected = true
			pr.Note = "the estimator cannot estimate " + pp.Unestimated + ": reports show the executed seeded figure, labelled as such"
		default:
			if pp.Facts != nil {
				pr.Estimated = pp.Facts.Named()
			}
			pr.ScopeSeeded, pr.ScopeProduction = pp.Scope, pp.Scope
			if pp.JudgedOn == "projected" {
				pr.ProjectedRU = pp.ProductionRU
				pr.ScopeProduction = pp.ProductionScope
				pr.Arithmetic = pp.Projection
				if pp.ProductionFacts != nil {
					pr.ProductionFacts = pp.ProductionFacts.Named()
					pr.Partitions = pp.ProductionFacts.PartitionsChecked
				}
			} else {
				pr.Note = "no production scale in the design: production scale is the seeded one (" + c.StorageBasis + ")"
			}
		}
		out = append(out, pr)
	}
	return out, nil
}
