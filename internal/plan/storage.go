package plan

import (
	"fmt"
	"maps"
	"strings"
)

// Storage bases: where a container's production storage comes from (Container.StorageBasis).
const (
	basisCounts        = "production document counts"
	basisContainer     = "container storageGB"
	basisByProduction  = "design scale split by production bytes"
	basisBySeeded      = "design scale split by estimated seeded bytes"
	basisRemainder     = "design scale: production counts where stated, the rest split by estimated seeded bytes"
	basisNoRoom        = "production counts where stated, seeded counts elsewhere (the storage figure leaves no room for them)"
	basisSeeded        = "seeded documents (no scale given)"
	storageAgreeFactor = 2.0 // how far counts × sizes and a storage figure may disagree before plan says so
)

// split is the bytes of one container's document types at production: the types that state a
// production count (their count × estimated size) and the seeded bytes of those that do not.
type split struct {
	statedGB, unstatedSeededGB float64
	stated, unstated           []string // type names
	statedDocs                 float64  // documents of the stated types at production
}

func (st *cstate) split() split {
	var sp split
	for i := range st.s.c.Documents {
		dt := &st.s.c.Documents[i]
		bytes := st.ests[dt.Type].Bytes
		if dt.Production > 0 {
			sp.statedGB += dt.Production * bytes / 1e9
			sp.statedDocs += dt.Production
			sp.stated = append(sp.stated, dt.Type)
			continue
		}
		sp.unstatedSeededGB += st.s.count(dt, 0) * bytes / 1e9
		sp.unstated = append(sp.unstated, dt.Type)
	}
	return sp
}

func (sp *split) add(o split) {
	sp.statedGB += o.statedGB
	sp.unstatedSeededGB += o.unstatedSeededGB
	sp.stated = append(sp.stated, o.stated...)
	sp.unstated = append(sp.unstated, o.unstated...)
	sp.statedDocs += o.statedDocs
}

// scaleContainers sets each container's production storage, the factor its types without a
// production count are scaled by, its documents per type at production, and its physical
// partitions from the designed throughput and storage.
//
// A storage figure (a container's storageGB, or scale.storageGB for the containers without one) is
// filled first by the types that state a production count (count × estimated size); the types
// that do not share what remains in proportion to their seeded bytes (each keeps its seeded share
// of the rest). When every type states a count, the figure is split by production bytes and
// checked against them (within 2×); when the stated types alone fill it, nothing is left for the
// others, which keep their seeded counts, and plan says so. Without a storage figure the storage
// is the production counts' bytes (types without one at their seeded count).
func (b *builder) scaleContainers() {
	d := b.d
	pool := d.Scale.StorageGB
	var inPool split
	var poolStates []*cstate
	for _, st := range b.order {
		if st.s.c.StorageGB > 0 {
			pool -= st.s.c.StorageGB
			continue
		}
		poolStates = append(poolStates, st)
		inPool.add(st.split())
	}
	if d.Scale.StorageGB > 0 && pool <= 0 && len(poolStates) > 0 {
		b.p.Warnings = append(b.p.Warnings, Warning{Code: "scale-storage", Subject: "scale.storageGB",
			Message: fmt.Sprintf("scale.storageGB is %.3g GB, but the containers' own storageGB already add up to %.3g GB, leaving nothing for %s: raise scale.storageGB to the total of every container, or give those containers their own storageGB",
				d.Scale.StorageGB, d.Scale.StorageGB-pool, names(poolStates))})
		pool = 0
	}
	poolScale, poolShare := 1.0, 1.0 // the unstated types' factor in the pool, and the bytes' share of it
	poolBasis := ""
	if pool > 0 {
		poolScale, poolShare, poolBasis = b.fill(pool, inPool, "scale.storageGB", "scale.storageGB")
	}
	for _, st := range b.order {
		c := st.s.c
		sp := st.split()
		share := 1.0
		switch {
		case c.StorageGB > 0:
			st.unstatedScale, _, st.plan.StorageBasis = b.fill(c.StorageGB, sp, "the storageGB of "+c.Name, c.Name)
			if st.plan.StorageBasis != basisNoRoom {
				st.plan.StorageBasis = basisContainer
			}
			st.stated = true
		case pool > 0:
			st.unstatedScale, share, st.plan.StorageBasis = poolScale, poolShare, poolBasis
			st.stated = true
		case len(sp.stated) > 0:
			st.unstatedScale, st.plan.StorageBasis, st.stated = 1, basisCounts, true
		default:
			st.unstatedScale, st.plan.StorageBasis = 1, basisSeeded
		}
		st.plan.StorageGB = share * (sp.statedGB + st.unstatedScale*sp.unstatedSeededGB)
		if c.StorageGB > 0 {
			st.plan.StorageGB = c.StorageGB
		}
		b.productionCounts(st)
		// Partitions for the static query estimate: from the designed throughput and storage.
		mode, ru := designedThroughput(c)
		st.plan.Designed = Throughput{Mode: mode, RU: ru}
		st.plan.Partitions = b.rc.PartitionsFor(mode, st.plan.StorageGB, ru)
		if c.Partitions > 0 {
			st.plan.Partitions = c.Partitions
		}
	}
	// A child type may have its parent in another container: every production sizer counts the
	// other containers' types at production too (type names are unique in a design).
	all := map[string]float64{}
	for _, st := range b.order {
		if st.stated {
			maps.Copy(all, st.prod)
		}
	}
	for _, st := range b.order {
		if st.ps != nil {
			for t, n := range all {
				if _, own := st.prod[t]; !own {
					st.ps.prod[t] = n
				}
			}
		}
	}
}

// fill shares gb of storage (named figure, warned about under subject) between the stated and the
// unstated types of sp. It returns the factor the unstated types' seeded counts are scaled by, the
// factor from the production documents' bytes to the storage (1 unless every count is stated and
// the figure disagrees: the storage is then the figure's share by production bytes), and the basis.
func (b *builder) fill(gb float64, sp split, figure, subject string) (scale, share float64, basis string) {
	total := sp.statedGB + sp.unstatedSeededGB
	switch {
	case total <= 0:
		return 1, 1, basisBySeeded
	case len(sp.stated) == 0:
		return gb / sp.unstatedSeededGB, 1, basisBySeeded
	case len(sp.unstated) == 0:
		if sp.statedGB > storageAgreeFactor*gb || sp.statedGB < gb/storageAgreeFactor {
			b.warnDisagree(gb, sp, figure, subject)
		}
		// The figure is split by production bytes: every type's count is as stated, the storage
		// is the figure's (the warning says when they disagree).
		return 1, gb / sp.statedGB, basisByProduction
	}
	rest := gb - sp.statedGB
	if rest < sp.unstatedSeededGB {
		// The stated types take (nearly) all of it: the rest would hold fewer documents than
		// were seeded.
		b.p.Warnings = append(b.p.Warnings, Warning{Code: "scale-storage", Subject: subject,
			Message: fmt.Sprintf("the production counts of %s make about %.3g GB at the estimated document sizes, leaving %.3g GB of the %.3g GB %s gives for %s, less than their seeded documents take (%.3g GB): they are planned at their seeded counts. State `production` for %s too, or correct %s or the counts",
				strings.Join(sp.stated, ", "), sp.statedGB, max(rest, 0), gb, figure, strings.Join(sp.unstated, ", "), sp.unstatedSeededGB, strings.Join(sp.unstated, ", "), figure)})
		return 1, 1, basisNoRoom
	}
	return rest / sp.unstatedSeededGB, 1, basisRemainder
}

// warnDisagree says that every type's production count × its estimated size and a storage figure
// disagree, with the numbers and what to change: the counts, the sizes, or the figure.
func (b *builder) warnDisagree(gb float64, sp split, figure, subject string) {
	have := sp.statedGB * 1e9 / sp.statedDocs
	implied := gb * 1e9 / sp.statedDocs
	dir := "less"
	if sp.statedGB > gb {
		dir = "more"
	}
	b.p.Warnings = append(b.p.Warnings, Warning{Code: "scale-storage", Subject: subject,
		Message: fmt.Sprintf("the production counts (%s documents: %s) make about %.3g GB at the estimated document sizes, %.2g× %s than the %.3g GB %s states (they should agree within %g×). "+
			"%.3g GB over those documents is about %s each; the designed fields make about %s. "+
			"If the %.3g GB is right, the documents are %s than their fields say (add the missing fields, or targetBytes) or `production` is too %s; "+
			"if the counts and fields are right, set %s to about %.3g",
			humanCount(sp.statedDocs), strings.Join(sp.stated, ", "), sp.statedGB, ratio(gb, sp.statedGB), dir, gb, figure, storageAgreeFactor,
			gb, kb(implied), kb(have),
			gb, pickWord(dir == "less", "bigger", "smaller"), pickWord(dir == "less", "low", "high"),
			figure, sp.statedGB)})
}

func pickWord(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// humanCount writes a document count as people say it: 22 million, 35,000.
func humanCount(n float64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.3g billion", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.3g million", n/1e6)
	}
	s := fmt.Sprintf("%.0f", n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func ratio(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if b <= 0 {
		return 0
	}
	return a / b
}

func kb(bytes float64) string {
	if bytes >= 1024 {
		return fmt.Sprintf("%.2g KB", bytes/1024)
	}
	return fmt.Sprintf("%.0f B", bytes)
}

func names(sts []*cstate) string {
	var ns []string
	for _, st := range sts {
		ns = append(ns, st.s.c.Name)
	}
	return strings.Join(ns, ", ")
}

// productionCounts sets the container's documents per type at production: a type's stated
// production count, else its seeded count × the container's unstatedScale (the storage figure's
// remainder over the unstated types' seeded bytes; 1 without a storage figure).
func (b *builder) productionCounts(st *cstate) {
	st.prod = map[string]float64{}
	for i := range st.s.c.Documents {
		dt := &st.s.c.Documents[i]
		n := st.s.count(dt, 0) * st.unstatedScale
		if dt.Production > 0 {
			n = dt.Production
		}
		st.prod[dt.Type] = n
		st.plan.Documents[i].Production = round(n, 0)
	}
	st.plan.ProductionScale = st.stated
	if st.stated {
		st.plan.LoadBasis = LoadProduction
		st.ps = &sizer{d: st.s.d, c: st.s.c, pol: st.s.pol, seeded: st.s.seeded, prod: st.prod, rules: st.s.rules}
		for i := range st.s.c.Documents {
			full, _ := st.ps.partitionDist(&st.s.c.Documents[i])
			st.plan.Documents[i].ProductionKeyValues = round(full.Card, 0)
			st.plan.Documents[i].ProductionBusiestShare = full.Share
		}
	}
}
