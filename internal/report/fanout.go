package report

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// FanOut is a query that ran across partitions through a client-side query pipeline: the query
// plan, then the query on every partition key range that can hold results (record.PipelineRun).
type FanOut struct {
	// SDK is the design's app.sdk ("" when the design names none and is judged as an application on
	// an SDK with a query engine).
	SDK string `json:"sdk,omitempty"`
	// Hypothetical marks the figure of a Go application, whose SDK cannot run the query: what it
	// would cost from an SDK with a query engine. It carries no verdict.
	Hypothetical bool `json:"hypothetical,omitempty"`
	// RU is the median pipeline charge per execution (plan plus every page of every range).
	RU float64 `json:"ru"`
	// Partitions are the ranges touched across the executions, in EPK order, with the median charge
	// of each over the executions that touched it.
	Partitions []PartitionCharge `json:"partitions"`
	// PerExecution is the median number of ranges one execution touched: fewer than Partitions when
	// the executions' key prefixes reached different ranges.
	PerExecution int `json:"perExecution"`
	// Source labels the figures, as Charge.Source does.
	Source record.ChargeSource `json:"source"`
}

// PartitionCharge is what one partition key range cost, as the median over the executions.
type PartitionCharge struct {
	ID    string  `json:"id"`
	RU    float64 `json:"ru"`
	Pages int     `json:"pages"`
}

// fanOutOf summarises the pipeline runs of a pattern's executions; nil when none used one.
func fanOutOf(d *design.Design, p *record.Pattern, source record.ChargeSource) *FanOut {
	var runs []*record.PipelineRun
	for i := range p.Executions {
		if pr := p.Executions[i].Pipeline; pr != nil {
			runs = append(runs, pr)
		}
	}
	if len(runs) == 0 {
		return nil
	}
	f := &FanOut{SDK: d.SDKName(), Hypothetical: runs[0].Hypothetical, Source: source}
	var totals, touched []float64
	per := map[string][]float64{}
	pages := map[string]int{}
	var order []string
	for _, r := range runs {
		totals = append(totals, r.RU)
		touched = append(touched, float64(len(r.Ranges)))
		for _, rc := range r.Ranges {
			if _, ok := per[rc.ID]; !ok {
				order = append(order, rc.ID)
			}
			per[rc.ID] = append(per[rc.ID], rc.RU)
			pages[rc.ID] = max(pages[rc.ID], rc.Pages)
		}
	}
	f.RU = round2(medianOf(totals))
	f.PerExecution = int(medianOf(touched) + 0.5)
	for _, id := range order {
		f.Partitions = append(f.Partitions, PartitionCharge{ID: id, RU: round2(medianOf(per[id])), Pages: pages[id]})
	}
	return f
}

// medianOf is the median of unsorted values.
func medianOf(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return median(s)
}

// fanOutNote says in words what a fan-out query cost, partition by partition.
func fanOutNote(f *FanOut) string {
	each := partitionList(f.Partitions)
	if f.Hypothetical {
		return fmt.Sprintf("what it would cost from an SDK with a query engine (.NET, Java, Python, JavaScript): %s RU (%s) over %s (%s); the Go SDK cannot run it",
			fmtRU(f.RU), f.Source, design.Count(len(f.Partitions), "partition"), each)
	}
	sdk := "an SDK with a query engine (app.sdk not set)"
	if f.SDK != "" {
		sdk = "the " + f.SDK + " SDK"
	}
	if f.PerExecution > 0 && f.PerExecution < len(f.Partitions) {
		return fmt.Sprintf("fan-out through the query pipeline of %s: %s RU (%s) over %s an execution; the executions' keys reached %s in all (%s)",
			sdk, fmtRU(f.RU), f.Source, design.Count(f.PerExecution, "partition"), design.Count(len(f.Partitions), "partition"), each)
	}
	return fmt.Sprintf("fan-out through the query pipeline of %s: %s RU (%s) over %s touched (%s)",
		sdk, fmtRU(f.RU), f.Source, design.Count(len(f.Partitions), "partition"), each)
}

// maxListedPartitions bounds the partitions a fan-out note names one by one; the JSON report keeps
// them all.
const maxListedPartitions = 8

// partitionList names each partition's charge, the costliest first when there are more than
// maxListedPartitions, and says how many more there are and what they cost together.
func partitionList(ps []PartitionCharge) string {
	if len(ps) > maxListedPartitions {
		ps = slices.Clone(ps)
		slices.SortStableFunc(ps, func(a, b PartitionCharge) int { return cmp.Compare(b.RU, a.RU) })
	}
	var parts []string
	rest, restRU := 0, 0.0
	for i, p := range ps {
		if i >= maxListedPartitions {
			rest++
			restRU += p.RU
			continue
		}
		parts = append(parts, fmt.Sprintf("%s: %s RU", p.ID, fmtRU(p.RU)))
	}
	if rest > 0 {
		parts = append(parts, fmt.Sprintf("%d more: %s RU together", rest, fmtRU(restRU)))
	}
	return strings.Join(parts, ", ")
}

// sdkLine names the application's SDK for the report header, when the design names one or a
// pattern fanned out; "" otherwise.
func sdkLine(r *Report) string {
	if r.Design.SDK != "" {
		return "app SDK " + r.Design.SDK
	}
	for _, p := range r.Patterns {
		if p.FanOut != nil {
			return "app SDK not set (judged as one with a query engine)"
		}
	}
	return ""
}
