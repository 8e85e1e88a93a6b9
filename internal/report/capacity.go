package report

import (
	"fmt"
	"slices"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// Capacity findings make a run fail (exit 1) like a failing pattern: a container whose throughput
// is below its peak, or whose busiest partition needs more than its physical partition serves,
// throttles in production whatever each request costs.
const (
	// StageCapacity is the stage of capacity findings.
	StageCapacity = "capacity"
	// LevelFail is the level of a finding that fails the run.
	LevelFail = "fail"
	// StageReview is the stage of lint's design-review findings about the containers.
	StageReview = "review"
	// LevelWarn is the level of a finding that does not fail the run.
	LevelWarn = "warn"
)

// capacityFindings tells one capacity story per container. Where the run has its own
// verdict-bearing load for a provisioned container (the figures of the report's request-rate
// table: measured when they carry a verdict, else modeled; queries projected to production scale
// when the design states one), that load decides throughput-short: the run's finding, with the
// run's peak, replaces plan's, and plan's throughput-short is not repeated, whichever way the two
// disagree. Plan's hot-partition (the run does not size logical partitions) stays, labelled as
// plan's static estimate with plan's peak beside the run's. A container without such a load
// (serverless, or no successful execution) keeps plan's warnings in plan's words.
func capacityFindings(d *design.Design, loads []ContainerLoad, warnings []CapacityWarning) []record.Finding {
	type own struct {
		load *Load
		peak float64
		prov float64
	}
	runs := map[string]own{}
	for _, cl := range loads {
		load := cl.Measured
		if load == nil {
			load = cl.Modeled
		}
		if load == nil || cl.Provisioned <= 0 || d.Container(cl.Name) == nil {
			continue
		}
		_, peak := load.judged()
		runs[cl.Name] = own{load: load, peak: peak, prov: cl.Provisioned}
	}
	var out []record.Finding
	for _, w := range warnings {
		if w.Code != "throughput-short" && w.Code != "hot-partition" && w.Code != "throttling" {
			continue
		}
		r, ok := runs[w.Container]
		if ok && w.Code == "throughput-short" {
			continue // the run's own load decides below
		}
		msg := fmt.Sprintf("%s (plan: %s)", w.Message, w.Code)
		if ok {
			planPeak := ""
			if w.PlanPeak > 0 {
				planPeak = fmt.Sprintf(", on plan's peak of %.0f RU/s", w.PlanPeak)
			}
			msg = fmt.Sprintf("%s (plan's static estimate: %s%s; this run's %s peak is %.0f RU/s)",
				w.Message, w.Code, planPeak, r.load.Source, r.peak)
		}
		out = append(out, record.Finding{Stage: StageCapacity, Level: LevelFail, Subject: "container " + w.Container, Message: msg})
	}
	for _, cl := range loads {
		r, ok := runs[cl.Name]
		if !ok || r.peak <= r.prov {
			continue
		}
		mode := "manual"
		if d.Container(cl.Name).Throughput.AutoscaleMax > 0 {
			mode = "autoscale"
		}
		charges := "this run's median charges × peak request rates"
		if r.load.Scale == VerdictOnProjected {
			charges = "this run's median charges, queries projected to production scale, × peak request rates"
		}
		// The peak with its range, the rules named once: by the clause that says the verdict
		// rests on them, or after the figures when it holds at both ends.
		msg := fmt.Sprintf("designed %s %.0f RU/s is below the %s peak of %s RU/s (%s)",
			mode, r.prov, r.load.Source, r.load.PeakBand.Spanned(fmtRate(r.peak), fmtRate), charges)
		if rests := shortRests(r.load.PeakBand, r.prov); rests != "" {
			msg += rests
		} else {
			msg = record.NameRules(msg, r.load.PeakBand)
		}
		out = append(out, record.Finding{Stage: StageCapacity, Level: LevelFail, Subject: "container " + cl.Name,
			Message: msg + " (run: throughput-short)"})
	}
	// A container whose peak is within its throughput but whose band's high end is not: the
	// verdict rests on an unpinned rule, which a warning says (the run does not fail on it).
	for _, cl := range loads {
		r, ok := runs[cl.Name]
		if !ok || r.peak > r.prov {
			continue
		}
		b := r.load.PeakBand
		if b == nil || b.High <= r.prov {
			continue
		}
		out = append(out, record.Finding{Stage: StageCapacity, Level: LevelWarn, Subject: "container " + cl.Name,
			Message: fmt.Sprintf("designed %.0f RU/s serves the %s peak of %s RU/s but not the %s RU/s at the high end of its band: whether the container is short rests on %s, which validate calibrate --scale decides (run: throughput-short)",
				r.prov, r.load.Source, b.Spanned(fmtRate(r.peak), fmtRate), fmtRate(b.High), record.RuleWords(b.Rules))})
	}
	return out
}

// shortRests says that a throughput-short verdict rests on an unpinned rule when the low end of
// the peak's band is within the designed throughput ("" otherwise).
func shortRests(peak *record.Range, prov float64) string {
	if peak == nil || peak.Low > prov {
		return ""
	}
	return fmt.Sprintf("; this rests on %s: at the low end of its band (%s RU/s peak) it does not hold", record.RuleWords(peak.Rules), fmtRate(peak.Low))
}

// failing counts the findings that fail a run.
func failing(fs []record.Finding) int {
	return len(slices.DeleteFunc(slices.Clone(fs), func(f record.Finding) bool { return f.Level != LevelFail }))
}
