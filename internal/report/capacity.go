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
)

// capacityFindings states the design's capacity problems with plan's figures and words (warnings:
// throughput-short, hot-partition, from the same static plan `validate plan --seed` of the run
// prints, which the driver passes in), and adds a shortfall the run's own verdict-bearing charges
// show at the designed peak rates when plan did not already report that container short.
func capacityFindings(d *design.Design, loads []ContainerLoad, warnings []CapacityWarning) []record.Finding {
	var out []record.Finding
	short := map[string]bool{}
	for _, w := range warnings {
		if w.Code != "throughput-short" && w.Code != "hot-partition" {
			continue
		}
		short[w.Container] = short[w.Container] || w.Code == "throughput-short"
		out = append(out, record.Finding{Stage: StageCapacity, Level: LevelFail, Subject: "container " + w.Container,
			Message: fmt.Sprintf("%s (plan: %s)", w.Message, w.Code)})
	}
	for _, cl := range loads {
		load := cl.Measured
		if load == nil {
			load = cl.Modeled
		}
		if load == nil || cl.Provisioned <= 0 || short[cl.Name] {
			continue
		}
		_, peak := load.judged()
		if peak <= cl.Provisioned {
			continue
		}
		c := d.Container(cl.Name)
		if c == nil {
			continue
		}
		mode, ru := "manual", cl.Provisioned
		if c.Throughput.AutoscaleMax > 0 {
			mode = "autoscale"
		}
		charges := "this run's median charges × peak request rates"
		if load.Scale == VerdictOnProjected {
			charges = "this run's median charges, queries projected to production scale, × peak request rates"
		}
		out = append(out, record.Finding{Stage: StageCapacity, Level: LevelFail, Subject: "container " + cl.Name,
			Message: fmt.Sprintf("designed %s %.0f RU/s is below the %s peak of %.0f RU/s (%s) (run: throughput-short)",
				mode, ru, load.Source, peak, charges)})
	}
	return out
}

// failing counts the findings that fail a run.
func failing(fs []record.Finding) int {
	return len(slices.DeleteFunc(slices.Clone(fs), func(f record.Finding) bool { return f.Level != LevelFail }))
}
