package pipeline

import (
	"sync"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
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
