package importer

import (
	"fmt"
	"math"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
)

type containerGroups struct {
	idx    int
	path   string
	groups []*typeGroup
}

// seededRoot is the most documents a drafted root type seeds: enough to sample from and to spread over
// partitions, small enough to run in seconds. Production size is scale.storageGB's business.
const seededRoot = 500

func (b *builder) relation(parent, child string) *relation {
	p, c := strings.ToLower(singular(parent)), strings.ToLower(singular(child))
	for i := range b.rels {
		r := &b.rels[i]
		if (r.parent == p || strings.HasSuffix(r.parent, p) || strings.HasSuffix(p, r.parent)) &&
			(r.child == c || strings.HasSuffix(r.child, c) || strings.HasSuffix(c, r.child)) {
			return r
		}
	}
	return nil
}

func (b *builder) scaleOf(name string) (float64, bool) {
	v, _, ok := b.scaleWithSource(name)
	return v, ok
}

// scaleWithSource is scaleOf and where the requirements state it.
func (b *builder) scaleWithSource(name string) (float64, string, bool) {
	n := strings.ToLower(singular(strings.ReplaceAll(name, "-", "")))
	if v, ok := b.scale[n]; ok {
		return v, b.scaleFrom[n], true
	}
	for _, k := range sortedKeys(b.scale) {
		if strings.HasSuffix(n, k) || strings.HasSuffix(k, n) {
			return b.scale[k], b.scaleFrom[k], true
		}
	}
	return 0, "", false
}

// productionCounts sets each type's production count where the requirements give one: its own
// scale figure, else (a child) its parent's production times the relationship's average per parent.
// A parent chain is at most a few deep: passes repeat until nothing changes.
func (b *builder) productionCounts() {
	for changed, pass := true, 0; changed && pass < 8; pass++ {
		changed = false
		for _, cg := range b.groups {
			c := &b.d.Containers[cg.idx]
			for ti, g := range cg.groups {
				t := &c.Documents[ti]
				if t.Production > 0 {
					continue
				}
				tp := fmt.Sprintf("%s.documents[%d].production", cg.path, ti)
				if v, from, ok := b.scaleWithSource(g.name); ok && v >= 1 {
					t.Production, changed = math.Round(v), true
					if strings.HasPrefix(from, "the scale table") || strings.HasPrefix(from, "the sentence") {
						b.note(tp, "production count from %s", from)
					} else {
						b.todo(tp, "production count from the requirements' scale: %s", from)
					}
					continue
				}
				if g.parent == nil {
					continue
				}
				pp := b.production(g.parent.name)
				if r := b.relation(g.parent.name, g.name); r != nil && r.avg > 0 && pp > 0 {
					t.Production, changed = math.Round(pp*r.avg), true
					b.todo(tp, "production count = %s %ss × %g per %s, from %s: %q (%s line %d)",
						human(pp), g.parent.name, r.avg, g.parent.name, r.source(), excerpt(r.text, 100), orWord(r.file, b.reqName()), r.line)
				}
			}
		}
	}
}

// production is the production count set for the type drafted as name (0 when none).
func (b *builder) production(name string) float64 {
	for _, cg := range b.groups {
		for ti, g := range cg.groups {
			if g.name == name {
				return b.d.Containers[cg.idx].Documents[ti].Production
			}
		}
	}
	return 0
}

// sizeCounts sets root counts (from the requirements' scale, scaled down, else a default), children
// per parent (from the relationships, else the examples) and key cardinalities.
func (b *builder) sizeCounts() {
	biggest, nowBiggest := 0.0, 0.0
	for _, cg := range b.groups {
		for _, g := range cg.groups {
			if g.parent == nil {
				if v, ok := b.scaleOf(g.name); ok {
					biggest = math.Max(biggest, v)
				}
				if v, ok := b.scaleNow[b.scaleKey(g.name)]; ok {
					nowBiggest = math.Max(nowBiggest, v)
				}
			}
		}
	}
	for _, cg := range b.groups {
		c := &b.d.Containers[cg.idx]
		for ti, g := range cg.groups {
			tp := fmt.Sprintf("%s.documents[%d]", cg.path, ti)
			t := &c.Documents[ti]
			if g.parent != nil {
				t.Parent = &design.Parent{Type: g.parent.name}
				b.perOf(tp, g, t)
				continue
			}
			if v, ok := b.scaleOf(g.name); ok && biggest > 0 {
				if now, ok := b.scaleNow[b.scaleKey(g.name)]; ok && nowBiggest > 0 {
					t.Count = int(math.Max(20, math.Round(now/nowBiggest*seededRoot)))
					b.note(tp+".count", "the scale gives %s %ss at its first horizon and %s at its last; seeded %d, scaled down in proportion to the first", human(now), g.name, human(v), t.Count)
					continue
				}
				t.Count = int(math.Max(20, math.Round(v/biggest*seededRoot)))
				b.todo(tp+".count", "the requirements give %s %ss in production; seeded %d, scaled down in proportion", human(v), g.name, t.Count)
			} else {
				t.Count = 200
				b.todo(tp+".count", "no count for %q in the requirements; 200 seeded documents", g.name)
			}
		}
	}
}

// keyCardinalities sets how many distinct values the keys of root types that are not their own id
// have: seeded (cardinality, which decides the seeded partitions) and, where the requirements
// give the key's entity a production count ("400 tenants"), at production (productionCardinality,
// which decides how many documents a key value holds there). It runs after productionCounts, whose
// production counts bound productionCardinality. A guess is marked.
func (b *builder) keyCardinalities() {
	for _, cg := range b.groups {
		c := &b.d.Containers[cg.idx]
		for ti := range c.Documents {
			t := &c.Documents[ti]
			if t.Parent != nil {
				continue
			}
			for _, kp := range c.PartitionKey {
				segs := strings.Split(strings.TrimPrefix(kp, "/"), "/")
				if len(segs) != 1 {
					continue
				}
				f, ok := t.Fields.Lookup(segs[0])
				if !ok || f.Gen == "" || f.Unique || f.Cardinality > 0 || f.Gen == "isoTime" || f.Gen == "epoch" {
					continue
				}
				ent := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(segs[0], "Id"), "_id"), "ID")
				fp := fmt.Sprintf("%s.documents[%d].fields.%s", cg.path, ti, segs[0])
				n := max(2, t.Count/10)
				v, from, ok := b.scaleWithSource(ent)
				typed := false
				if !ok {
					// The key's entity is a type of the draft with a production count ("channel" for
					// /channelId): that many distinct values.
					if ty, p := b.typeProduction(ent); p >= 1 {
						v, from, ok, typed = p, fmt.Sprintf("the production count of %q", ty), true, true
					}
				}
				if ok && v >= 1 {
					n = max(2, min(int(v), t.Count/2))
				}
				f.Cardinality = n
				if ok && v >= 1 && (t.Production == 0 || math.Round(v) <= t.Production) {
					f.ProductionCardinality = math.Round(v)
					if typed {
						b.todo(fp, "key %s: %d distinct values seeded; productionCardinality %s, %s (one value per %s)",
							kp, n, human(v), from, ent)
						b.skewCands = append(b.skewCands, skewCand{path: fp, ci: cg.idx, ti: ti, field: segs[0], keyPath: kp, typeName: t.Type})
						continue
					}
					b.todo(fp, "key %s: %d distinct values seeded; productionCardinality %s from the requirements' scale: %s",
						kp, n, human(v), from)
					b.skewCands = append(b.skewCands, skewCand{path: fp, ci: cg.idx, ti: ti, field: segs[0], keyPath: kp, typeName: t.Type})
					continue
				}
				b.todo(fp, "key %s drawn from %d distinct values (a guess): set cardinality (seeded) and productionCardinality (in production; without it they are assumed to grow with the documents)", kp, n)
				b.skewCands = append(b.skewCands, skewCand{path: fp, ci: cg.idx, ti: ti, field: segs[0], keyPath: kp, typeName: t.Type})
			}
		}
	}
}

func (b *builder) perOf(tp string, g *typeGroup, t *design.DocType) {
	if r := b.relation(g.parent.name, g.name); r != nil && r.avg > 0 {
		hi := int(math.Round(2*r.avg - 1))
		lo := 1
		if r.avg < 1 {
			lo, hi = 0, 1
		}
		capped := ""
		if hi > 20 {
			hi, capped = 20, " (capped at 20 for seeding)"
		}
		t.Parent.Per = design.Per{Min: lo, Max: max(hi, lo)}
		if r.max > 2*r.avg {
			t.Parent.Per.Dist = "zipf"
		}
		if r.file != "" {
			b.todo(tp+".parent", "%d to %d per %s%s, from %q (%s line %d)", t.Parent.Per.Min, t.Parent.Per.Max, g.parent.name, capped, excerpt(r.text, 100), r.file, r.line)
			return
		}
		b.todo(tp+".parent", "%d to %d per %s%s, from the requirements: %q (line %d)", t.Parent.Per.Min, t.Parent.Per.Max, g.parent.name, capped, excerpt(r.text, 100), r.line)
		return
	}
	per := map[*object]int{}
	for _, p := range g.parentOf {
		per[p]++
	}
	most := 1
	for _, n := range per {
		most = max(most, n)
	}
	t.Parent.Per = design.Per{Min: 1, Max: max(3, 2*most)}
	b.todo(tp+".parent", "children of %q in the same partition in the examples; %d to %d per parent is a guess (give the ratio in the requirements' relationships)",
		g.parent.name, t.Parent.Per.Min, t.Parent.Per.Max)
}

// typeProduction is the production count of the draft's type named by an entity word ("channel"),
// with the type's name; 0 when no type is named so or it has no production count.
func (b *builder) typeProduction(ent string) (string, float64) {
	e := strings.ToLower(singular(ent))
	for _, c := range b.d.Containers {
		for _, t := range c.Documents {
			if strings.ToLower(t.Type) == e && t.Production > 0 {
				return t.Type, t.Production
			}
		}
	}
	return "", 0
}

// memberWords are the words a team uses for the documents of a parent that are not a type's name
// ("30 members a guild" counts player documents whose guildId names the guild).
var memberWords = map[string][]string{"member": {"player", "user", "account", "profile", "customer", "person"},
	"player": {"user", "account"}, "user": {"player", "account", "customer"}, "seat": {"ticket"}, "subscriber": {"user", "customer"}}

// refCardinalities uses per-parent counts for the references of root types ("about 30 members a
// guild": a player's guildId takes players ÷ 30 values; in production, the guilds' count).
func (b *builder) refCardinalities() {
	for _, r := range b.rels {
		if r.avg < 1 {
			continue
		}
		names := append([]string{r.child}, memberWords[r.child]...)
		for _, cg := range b.groups {
			c := &b.d.Containers[cg.idx]
			for ti := range c.Documents {
				t := &c.Documents[ti]
				if t.Parent != nil || !slicesContains(names, strings.ToLower(t.Type)) {
					continue
				}
				for _, fname := range []string{r.parent + "Id", r.parent + "_id", r.parent + "ID"} {
					f, ok := t.Fields.Lookup(fname)
					if !ok || f.Gen == "" || f.Unique || f.Cardinality > 0 || isKey(c, []string{fname}) {
						continue
					}
					fp := fmt.Sprintf("%s.documents[%d].fields.%s", cg.path, ti, fname)
					f.Cardinality = max(2, int(math.Round(float64(t.Count)/r.avg)))
					prod, how := 0.0, ""
					if ty, p := b.typeProduction(r.parent); p >= 1 {
						prod, how = p, fmt.Sprintf("the production count of %q", ty)
					} else if t.Production > 0 {
						prod, how = math.Round(t.Production/r.avg), fmt.Sprintf("%s %ss ÷ %g", human(t.Production), t.Type, r.avg)
					}
					if prod >= 1 && (t.Production == 0 || prod <= t.Production) && f.Cardinality >= 1 {
						f.ProductionCardinality = prod
					}
					what := ""
					if r.child != strings.ToLower(t.Type) {
						what = fmt.Sprintf(" (%ss read as %q documents)", r.child, t.Type)
					}
					if f.ProductionCardinality > 0 {
						b.todo(fp, "about %g %ss a %s%s, from %q (%s line %d): %d distinct values for %d seeded; productionCardinality %s, %s",
							r.avg, r.child, r.parent, what, excerpt(r.text, 90), orWord(r.file, b.reqName()), r.line, f.Cardinality, t.Count, human(prod), how)
					} else {
						b.todo(fp, "about %g %ss a %s%s, from %q (%s line %d): %d distinct values for %d seeded",
							r.avg, r.child, r.parent, what, excerpt(r.text, 90), orWord(r.file, b.reqName()), r.line, f.Cardinality, t.Count)
					}
					break
				}
			}
		}
	}
}

// source names where a relation was read, for the draft's comments.
func (r *relation) source() string {
	if r.file != "" {
		return "the text"
	}
	return "the requirements"
}

// scaleKey is the key of scale (and scaleNow) that scaleWithSource finds for name.
func (b *builder) scaleKey(name string) string {
	n := strings.ToLower(singular(strings.ReplaceAll(name, "-", "")))
	if _, ok := b.scale[n]; ok {
		return n
	}
	for _, k := range sortedKeys(b.scale) {
		if strings.HasSuffix(n, k) || strings.HasSuffix(k, n) {
			return k
		}
	}
	return n
}

func human(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%gB", math.Round(v/1e8)/10)
	case v >= 1e6:
		return fmt.Sprintf("%gM", math.Round(v/1e5)/10)
	case v >= 1e3:
		return fmt.Sprintf("%gK", math.Round(v/1e2)/10)
	}
	return fmt.Sprint(v)
}
