package pipeline

import (
	"fmt"
	"sync"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/record"
)

// PartitionPlan decides the simulated physical partitions of each container on the embedded engine:
// its Lookup is the engine's Options.Partitions.
type PartitionPlan struct {
	// Override, when positive, gives every container this many partitions.
	Override int

	mu     sync.Mutex
	byName map[string]int // database/container → partitions
}

// Set records the partitions of d's containers in database: the Override, else what the plan
// computes from the design's storage and throughput (the same figure `validate plan` prints).
func (p *PartitionPlan) Set(d *design.Design, database string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byName == nil {
		p.byName = map[string]int{}
	}
	byContainer := map[string]int{}
	if pl, err := plan.Build(d, plan.Options{}); err == nil {
		for _, c := range pl.Containers {
			byContainer[c.Name] = c.Partitions
		}
	}
	for _, c := range d.Containers {
		n := byContainer[c.Name]
		if p.Override > 0 {
			n = p.Override
		}
		p.byName[database+"/"+c.Name] = max(n, 1)
	}
}

// SetCounts records the partitions of the containers of database as counts gives them (a target's
// own, record.Run.Partitions), over what Set recorded: the modeled run then prices with the
// partitions the measured one had.
func (p *PartitionPlan) SetCounts(database string, counts map[string]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byName == nil {
		p.byName = map[string]int{}
	}
	for name, n := range counts {
		if n > 0 {
			p.byName[database+"/"+name] = n
		}
	}
}

// Lookup returns the partitions of a container: as Set recorded them, else the Override, else the
// rate card's figure for its throughput.
func (p *PartitionPlan) Lookup(database, container string, throughputRU int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n, ok := p.byName[database+"/"+container]; ok {
		return n
	}
	if p.Override > 0 {
		return p.Override
	}
	return cost.PhysicalPartitions(0, throughputRU)
}

// partitionFindings says, per container, how many physical partitions each side had: the target's
// (its partition key ranges), the modeled run's, and the design's production count (the plan's, the
// one `validate plan` prints and the PRODUCTION figures price). Where the target's differs from
// production, it says what matching would cost at creation: RU/s ÷ PartitionCreateRU (6,000, manual)
// or autoscale max ÷ PartitionMaxRU (10,000) partitions (the rate card's sourced figures), and that
// the per-partition part of a query's charge is priced at production partitions in the PRODUCTION
// figure instead.
func partitionFindings(static *plan.Plan, measured, modeled *record.Run, rc *cost.RateCard) []record.Finding {
	if static == nil || len(measured.Partitions) == 0 {
		return nil
	}
	var out []record.Finding
	for _, c := range static.Containers {
		got, ok := measured.Partitions[c.Name]
		if !ok {
			continue
		}
		model := "?"
		if n, ok := modeled.Partitions[c.Name]; ok {
			model = fmt.Sprint(n)
		}
		msg := fmt.Sprintf("physical partitions: target %d, modeled %s, design's production %d", got, model, c.Partitions)
		level := "info"
		if got != c.Partitions {
			level = "warn"
			msg += "; " + matchingCost(c, rc)
		}
		out = append(out, record.Finding{Stage: "provision", Level: level, Subject: "container " + c.Name, Message: msg})
	}
	return out
}

// matchingCost says what creating the container with the design's production partitions would take.
func matchingCost(c plan.Container, rc *cost.RateCard) string {
	n := c.Partitions
	var need string
	switch c.Designed.Mode {
	case cost.Autoscale:
		need = fmt.Sprintf("an autoscale max of %d RU/s at creation (%d × %g RU/s per partition, %s)",
			n*int(rc.PartitionMaxRU.Value), n, rc.PartitionMaxRU.Value, cost.SrcAutoscaleFAQ)
	case cost.Serverless:
		need = "storage: a serverless container splits by storage only, so a fresh one cannot be given them"
	default:
		need = fmt.Sprintf("%d RU/s of manual throughput at creation (%d × %g RU/s per partition, %s)",
			n*int(rc.PartitionCreateRU.Value), n, rc.PartitionCreateRU.Value, rc.PartitionCreateRU.Source)
	}
	return fmt.Sprintf("matching production's %d would take %s, billed by the hour; the modeled figures use the target's count so both sides compare, and the PRODUCTION figures price the per-partition part of each query at the design's %d",
		n, need, n)
}
