package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/cosmosdv/validate/internal/waiver"
)

// DesignFindings is what the static tools say about d that a run's report repeats, as plain data
// for report.Input (report, a stage, imports neither tool): plan's capacity warnings at the run's
// seed (throughput-short, hot-partition: what `validate plan --seed` prints, judged on each query's
// production charge when the design states a production scale, as the message says), and lint's
// findings as lint prints them: the unknown fields of each access pattern's query and the design
// review's findings (lint.ReviewCodes) of each pattern, by pattern ID, and of the containers.
func DesignFindings(d *design.Design, seed int64) Static {
	opts := plan.Options{Seed: seed}
	return findingsOf(d, staticPlan(d, opts), opts)
}

// staticOptions are a run's plan options: its seed, the rate card it prices with and the rules a
// calibration profile decided (nil: every rule's default).
func staticOptions(seed int64, rc *cost.RateCard, rules *cost.Selection) plan.Options {
	return plan.Options{Seed: seed, RateCard: rc, Rules: rules}
}

// staticPlan is the design's static plan with the run's options (its seed, the rate card and the
// rules a calibration profile decided); nil when it cannot be built (the report then repeats no
// plan warning and is not priced).
func staticPlan(d *design.Design, opts plan.Options) *plan.Plan {
	p, err := plan.Build(d, opts)
	if err != nil {
		return nil
	}
	return p
}

// findingsOf is DesignFindings with the static plan built (nil when it could not be) with opts,
// which lint's figures follow too.
func findingsOf(d *design.Design, p *plan.Plan, opts plan.Options) Static {
	var s Static
	if p != nil {
		peak := map[string]float64{}
		for _, c := range p.Containers {
			peak[c.Name] = c.PeakRUs
		}
		for _, w := range p.Warnings {
			if w.Code == "throughput-short" || w.Code == "hot-partition" || w.Code == "throttling" {
				s.Capacity = append(s.Capacity, report.CapacityWarning{Code: w.Code, Container: w.Subject, Message: w.Message,
					PlanPeak: peak[w.Subject]})
			}
		}
	}
	fs := lint.CheckWith(d, lint.Options{Plan: opts})
	ids := map[string]string{} // "accessPatterns[3]" → its ID
	for i := range d.AccessPatterns {
		ids[fmt.Sprintf("accessPatterns[%d]", i)] = d.AccessPatterns[i].ID
	}
	add := func(m *map[string][]string, id, text string) {
		if *m == nil {
			*m = map[string][]string{}
		}
		(*m)[id] = append((*m)[id], text)
	}
	// The design's own waivers (waive:) mark the findings they accept, as lint and plan mark them;
	// an expired one accepts nothing.
	ws := (*waiver.Set)(nil).With(lint.DesignWaivers(d))
	text := func(f lint.Finding, pattern string) string {
		w := ws.Match(waiver.Subject{Design: d.Name, Code: f.Code, Path: f.Path, Pattern: pattern})
		if w == nil || w.Expired(time.Now().UTC()) {
			return f.String()
		}
		return f.String() + w.Marked()
	}
	for _, f := range fs {
		head, _, _ := strings.Cut(f.Path, ".")
		id, ofPattern := ids[head]
		switch {
		case f.Note:
		case f.Code == "unknown-field" && ofPattern && strings.HasPrefix(f.Path, head+".query") && d.Pattern(id).Op == design.OpQuery:
			add(&s.UnknownFields, id, f.String())
		case !slices.Contains(lint.ReviewCodes, f.Code):
		case ofPattern:
			add(&s.Review, id, text(f, id))
		default:
			s.DesignReview = append(s.DesignReview, text(f, ""))
		}
	}
	return s
}

// Static is what the static tools say about a design that a run's report repeats (DesignFindings),
// in report.Input's terms.
type Static struct {
	Capacity      []report.CapacityWarning
	UnknownFields map[string][]string
	Review        map[string][]string
	DesignReview  []string
}

// Input fills the static fields of a report input.
func (s Static) Input(in report.Input) report.Input {
	in.Capacity, in.UnknownFields, in.Review, in.DesignReview = s.Capacity, s.UnknownFields, s.Review, s.DesignReview
	return in
}

// Plan is PlanWith lint's default options.
func Plan(d *design.Design, opts plan.Options) (*plan.Plan, error) {
	return PlanWith(d, opts, lint.Options{})
}

// PlanWith is plan.Build with every lint finding of d in its warnings, so that `validate plan` and
// mcp's plan report the same set of findings as `validate lint` from lint's one analysis: each
// finding plan does not make itself (the design review, unknown fields, query shapes, unique keys,
// …) is added with its code, the field's position and path as the subject, and lint's message; a
// plan warning lint weighed as negligible at production (a fan-out or scan at a negligible share
// of its container's load, lint.Options.NegligibleShare) is dropped, as lint makes it a note.
// Notes are not warnings: plan exits 0 where lint does.
func PlanWith(d *design.Design, opts plan.Options, lo lint.Options) (*plan.Plan, error) {
	lo.Plan = opts // lint's figures are this plan's
	p, err := plan.Build(d, opts)
	if err != nil {
		return nil, err
	}
	ids := map[string]string{} // "accessPatterns[3]" → its ID
	for i := range d.AccessPatterns {
		ids[fmt.Sprintf("accessPatterns[%d]", i)] = d.AccessPatterns[i].ID
	}
	// What plan already says, by code and subject (a pattern's ID or a container's name).
	has := map[[2]string]bool{}
	for _, w := range p.Warnings {
		has[[2]string{w.Code, w.Subject}] = true
	}
	for _, f := range lint.CheckWith(d, lo) {
		if f.FromPlan {
			if f.Note { // weighed negligible: lint's note, not plan's warning
				p.Warnings = slices.DeleteFunc(p.Warnings, func(w plan.Warning) bool {
					return w.Code == f.Code && strings.HasPrefix(f.Message, w.Message)
				})
			}
			continue
		}
		if f.Note {
			continue
		}
		head, _, _ := strings.Cut(f.Path, ".")
		if id, ok := ids[head]; ok && has[[2]string{f.Code, id}] {
			continue // plan's own warning for the same pattern (query-order-by, query-syntax)
		}
		subject := f.Path
		if f.Pos.Line > 0 {
			subject = fmt.Sprintf("%s:%d:%d: %s", d.File, f.Pos.Line, max(f.Pos.Col, 1), f.Path)
		}
		p.Warnings = append(p.Warnings, plan.Warning{Code: f.Code, Subject: subject, Message: f.Message})
	}
	return p, nil
}

// Estimates is the one estimator's figures for every access pattern of d, as a run records them
// (record.Run.Projections): each query's facts and charge at the seeded scale, which the run's
// execution checks, and at the design's production scale, the PRODUCTION figure every report shows.
// They are plan's (plan.Build at the run's seed, rate card and rules): `validate plan` prints the
// same, band included.
func Estimates(d *design.Design, seed int64, rc *cost.RateCard, rules *cost.Selection) ([]record.Projection, error) {
	p, err := plan.Build(d, plan.Options{Seed: seed, RateCard: rc, Rules: rules})
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
		// ProjectedRU is set only where there is a production figure (a query, the design stating a
		// production scale): elsewhere the PRODUCTION column repeats the executed seeded median,
		// and a second number here would be a second figure for it.
		pr := record.Projection{ID: pp.ID, Production: c.ProductionScale, SeededRU: pp.ModelRU}
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
				pr.Band, pr.PinnedRules = pp.ProductionBand, pp.ProductionPinned
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
