package importer

import (
	"context"
	"fmt"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
)

// A draft must not seed, nor suggest, a logical partition the service refuses. Before a TODO suggests
// a skewed distribution for a key (dist: zipf), the draft with that distribution is planned at its
// production counts (plan, the one home of the busiest partition's figures) and the suggestion is
// made only when the busiest key value stays within the item limit (the variant parses: the design
// package refuses a type that can exceed 2 MB), under half the 20 GB logical-partition limit (full
// key) and within its physical partition's throughput. A distribution the draft sets itself (children
// per parent drawn zipf from a relationship's "max") is dropped when it breaks the same bounds.

// skewMargin is the share of the logical-partition limit above which a draft warns and suggests no
// skew: assumed (no published figure): half the limit, so that a year's growth or a larger real
// document than the draft's examples stays under it. cost.HotPartition flags the same half.
const skewMargin = 0.5

// maxSkewPlans bounds the plans one import runs to check distributions.
const maxSkewPlans = 24

// skewCand is a key field whose TODO may suggest a distribution.
type skewCand struct {
	path     string // the field's path in the draft, for its TODO
	ci, ti   int
	field    string
	keyPath  string
	typeName string
}

// busiest is what plan says about a container's busiest logical partition.
type busiest struct {
	gb, ru, capRU float64
	share, prod   float64 // the type's busiest share and production count
}

func (b *builder) planned(ctx context.Context, d *design.Design, ci int, typ string) (busiest, bool) {
	if ctx.Err() != nil {
		return busiest{}, false
	}
	out, err := b.emitDesign(d)
	if err != nil {
		return busiest{}, false
	}
	pd, perr := design.Parse(out, "draft.yaml")
	if perr != nil || pd == nil {
		return busiest{}, false
	}
	p, err := plan.Build(pd, plan.Options{})
	if err != nil || ci >= len(d.Containers) {
		return busiest{}, false
	}
	var c plan.Container
	found := false
	for _, pc := range p.Containers {
		if pc.Name == d.Containers[ci].Name {
			c, found = pc, true
		}
	}
	if !found {
		return busiest{}, false
	}
	r := busiest{gb: c.BusiestGB, ru: c.BusiestRUs, capRU: c.Hot.CapacityRU}
	for _, dt := range c.Documents {
		if dt.Type == typ {
			r.share, r.prod = dt.ProductionBusiestShare, dt.Production
			if r.share == 0 {
				r.share = dt.BusiestShare
			}
		}
	}
	return r, true
}

// emitDesign writes d as the draft would be written, without comments.
func (b *builder) emitDesign(d *design.Design) ([]byte, error) {
	tmp := &builder{o: b.o, d: *d, notes: map[string][]string{}}
	return tmp.emit()
}

// checkSkew runs after the draft is built: it checks the distributions the draft sets and those its
// TODOs would suggest, writing what it found in the TODOs.
func (b *builder) checkSkew(ctx context.Context) {
	defer func() {
		if recover() != nil {
			// The check is advice; a draft is written without it rather than not at all.
			b.headerGap("the skew check could not plan this draft: check each key's distribution with `validate plan`")
		}
	}()
	hasProd := false
	for _, c := range b.d.Containers {
		for _, t := range c.Documents {
			hasProd = hasProd || t.Production > 0
		}
	}
	rc := cost.Current
	limitGB := rc.LogicalMaxGB.Value
	plans := 0
	// The draft's own per-parent zipf.
	for ci := range b.d.Containers {
		c := &b.d.Containers[ci]
		for ti := range c.Documents {
			t := &c.Documents[ti]
			if t.Parent == nil || t.Parent.Per.Dist != "zipf" || plans >= maxSkewPlans {
				continue
			}
			plans++
			with, ok := b.planned(ctx, &b.d, ci, t.Type)
			if !ok || with.gb <= limitGB*skewMargin && (with.capRU <= 0 || with.ru <= with.capRU) {
				continue
			}
			t.Parent.Per.Dist = ""
			plans++
			without, _ := b.planned(ctx, &b.d, ci, t.Type)
			b.todo(fmt.Sprintf("containers[%d].documents[%d].parent", ci, ti),
				"children per %s not drawn zipf (the relationship's max suggests skew): at production counts the busiest %s would hold %s GB in one logical partition (limit %g GB, warned from %g GB) and need %s RU/s (its physical partition serves %s); uniform: %s GB, %s RU/s. Reproduce the skew with a key that splits the busiest parent",
				t.Parent.Type, t.Parent.Type, sig3(with.gb), limitGB, limitGB*skewMargin, sig3(with.ru), sig3(with.capRU), sig3(without.gb), sig3(without.ru))
		}
	}
	for _, k := range b.skewCands {
		if plans >= maxSkewPlans || ctx.Err() != nil {
			b.todo(k.path, "key %s: set dist zipf or hot only after checking the busiest value with `validate plan` (the import checks at most %d distributions)", k.keyPath, maxSkewPlans)
			continue
		}
		if !hasProd {
			b.todo(k.path, "key %s: no production counts, so a skewed dist cannot be checked against the %g GB logical-partition limit: give production counts, then set dist zipf or hot if the hot-partition analysis says the key is skewed, and check `validate plan`", k.keyPath, limitGB)
			continue
		}
		c := &b.d.Containers[k.ci]
		f, ok := c.Documents[k.ti].Fields.Lookup(k.field)
		if !ok {
			continue
		}
		plans += 2
		base, ok1 := b.planned(ctx, &b.d, k.ci, k.typeName)
		f.Dist = "zipf"
		with, ok2 := b.planned(ctx, &b.d, k.ci, k.typeName)
		f.Dist = ""
		if !ok1 {
			continue
		}
		if !ok2 {
			b.todo(k.path, "key %s: dist zipf would make the draft invalid (the item limit or another bound): do not set it", k.keyPath)
			continue
		}
		part := fmt.Sprintf("the busiest %s value", strings.TrimPrefix(k.keyPath, "/"))
		if len(c.PartitionKey) > 1 {
			part = fmt.Sprintf("the busiest logical partition (the full key %s)", strings.Join(c.PartitionKey, ", "))
		}
		figures := fmt.Sprintf("%s would hold %s of %s %s documents (%s GB; limit %g GB, warned from %g GB) and need %s RU/s (a physical partition serves at most %s; uniform: %s GB, %s RU/s)",
			part, pct(with.share), human(with.prod), k.typeName, sig3(with.gb), limitGB, limitGB*skewMargin, sig3(with.ru), sig3(rc.PartitionMaxRU.Value), sig3(base.gb), sig3(base.ru))
		switch {
		case with.gb > limitGB:
			b.todo(k.path, "key %s: do NOT set dist zipf: at production counts %s: over the logical-partition limit. If the hot-partition analysis says this key is skewed, the key needs another level or a suffix (hierarchical key, write sharding)", k.keyPath, figures)
		case with.gb > limitGB*skewMargin:
			b.todo(k.path, "key %s: dist zipf is not suggested: at production counts %s: within %g%% of the logical-partition limit. If the key is skewed, split its busiest values (hierarchical key, suffix)", k.keyPath, figures, (1-skewMargin)*100)
		case with.ru > rc.PartitionMaxRU.Value && base.ru <= rc.PartitionMaxRU.Value:
			b.todo(k.path, "key %s: dist zipf is not suggested: at production counts %s: more than any physical partition serves. If the key is skewed, split its busiest values (hierarchical key, suffix)", k.keyPath, figures)
		default:
			more := ""
			if with.capRU > 0 && with.ru > with.capRU {
				more = fmt.Sprintf("; its physical partition gets %s RU/s of the container's throughput as drafted: raise the throughput with it", sig3(with.capRU))
			}
			b.todo(k.path, "key %s: if the hot-partition analysis says this key is skewed, dist zipf stays within the limits at production counts: %s%s", k.keyPath, figures, more)
		}
	}
}

func sig3(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 1000:
		return human(v)
	case v >= 10:
		return fmt.Sprintf("%.0f", v)
	case v >= 1:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

func pct(v float64) string {
	if v >= 0.01 {
		return fmt.Sprintf("%.0f%%", v*100)
	}
	return fmt.Sprintf("%.2g%%", v*100)
}
