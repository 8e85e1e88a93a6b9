package sql

import (
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/index"
)

// plan is how the service would have run the WHERE clause against the indexing policy: which
// top-level conjuncts an index serves (they narrow the documents loaded) and which are evaluated on
// loaded documents.
//
// Served predicates: =, !=, <, <=, >, >=, IN and BETWEEN between an indexed path and a constant;
// ARRAY_CONTAINS / ARRAY_CONTAINS_ANY / ARRAY_CONTAINS_ALL on an array whose elements are indexed;
// STARTSWITH, ENDSWITH, CONTAINS, StringEquals, RegexMatch and the IS_* type checks on an indexed
// path (the service answers the last group with a scan of the index rather than a seek, but still
// loads only matching documents); OR and NOT of served predicates. Anything else (a function around
// the path such as UPPER(c.name) = "X", a comparison of two paths, an excluded path) is residual.
// With no served conjunct a WHERE clause makes the execution a full scan.
type plan struct {
	served    []expr
	residual  []expr
	narrowing bool
	fullScan  bool
	// lookups counts index seeks: one per served comparison, one per IN value.
	lookups int
	// lookup is a top-level equality an IndexedSource can answer.
	lookup *lookupPlan
	// usedPaths and missingPaths feed the index metrics.
	used    []pathUse
	missing []pathUse
	eqPaths []index.OrderItem
	rangeP  []index.OrderItem
	// work is what planning cost, in evaluation steps: one per predicate node checked against the
	// policy and one per 16 bytes of filter text rendered. Execute charges it to the query's budget.
	work int
}

type lookupPlan struct {
	path []string
	val  expr
}

type pathUse struct {
	path   []string
	filter string
}

func buildPlan(q *Query, pol *index.Compiled) *plan {
	pl := &plan{}
	for _, c := range q.conjuncts {
		a := &servability{q: q, pol: pol}
		// The conjunct's text names it in the index metrics: rendered once, not once per path it
		// uses (an OR of n terms uses n paths, and rendering it n times made planning cubic).
		text := ""
		filter := func() string {
			if text == "" {
				text = c.String()
				pl.work += len(text) / 16
			}
			return text
		}
		if a.check(c) {
			pl.served = append(pl.served, c)
			pl.lookups += a.seeks
			for _, p := range a.used {
				pl.used = append(pl.used, pathUse{path: p, filter: filter()})
			}
			if b, ok := c.(*binary); ok {
				if p, val, ok := pathConst(q, b); ok {
					item := index.OrderItem{Path: p}
					if b.op == "=" {
						pl.eqPaths = append(pl.eqPaths, item)
						if pl.lookup == nil && !hasElem(p) && len(p) > 0 {
							pl.lookup = &lookupPlan{path: p, val: val}
						}
					} else if b.op != "!=" {
						pl.rangeP = append(pl.rangeP, item)
					}
				}
			}
		} else {
			pl.residual = append(pl.residual, c)
		}
		for _, p := range a.unindexed {
			pl.missing = append(pl.missing, pathUse{path: p, filter: filter()})
		}
		pl.work += a.steps
	}
	pl.narrowing = len(pl.served) > 0
	pl.fullScan = !pl.narrowing && len(pl.residual) > 0
	return pl
}

func hasElem(p []string) bool {
	for _, s := range p {
		if s == index.ArrayElem {
			return true
		}
	}
	return false
}

// pathConst matches "path op constant" (either side) and returns the path and the constant.
func pathConst(q *Query, b *binary) ([]string, expr, bool) {
	if p, ok := pathOf(b.l, q.slotPaths); ok && isConst(b.r) {
		return p, b.r, true
	}
	if p, ok := pathOf(b.r, q.slotPaths); ok && isConst(b.l) {
		return p, b.l, true
	}
	return nil, nil, false
}

// isConst reports whether e has the same value in every row.
func isConst(e expr) bool {
	switch x := e.(type) {
	case *literal, *param:
		return true
	case *unary:
		return isConst(x.x)
	case *arrayLit:
		for _, el := range x.elems {
			if !isConst(el) {
				return false
			}
		}
		return true
	case *objectLit:
		for _, v := range x.vals {
			if !isConst(v) {
				return false
			}
		}
		return true
	}
	return false
}

// servability checks one predicate against the policy.
type servability struct {
	steps     int // predicate nodes checked
	q         *Query
	pol       *index.Compiled
	seeks     int
	used      [][]string
	unindexed [][]string
}

func (a *servability) indexed(p []string) bool {
	if a.pol.Indexed(p) {
		a.used = append(a.used, p)
		return true
	}
	a.unindexed = append(a.unindexed, p)
	return false
}

func (a *servability) check(e expr) bool {
	a.steps++
	q := a.q
	switch x := e.(type) {
	case *literal:
		b, ok := x.val.(bool)
		return ok && b
	case *binary:
		switch x.op {
		case "AND", "OR":
			l := a.check(x.l)
			r := a.check(x.r)
			if x.op == "AND" {
				return l || r
			}
			return l && r
		case "=", "!=", "<", ">", "<=", ">=":
			p, _, ok := pathConst(q, x)
			if !ok {
				return false
			}
			a.seeks++
			return a.indexed(p)
		}
	case *unary:
		if x.op == "NOT" {
			return a.check(x.x)
		}
	case *between:
		p, ok := pathOf(x.x, q.slotPaths)
		if !ok || !isConst(x.lo) || !isConst(x.hi) {
			return false
		}
		a.seeks++
		return a.indexed(p)
	case *inExpr:
		p, ok := pathOf(x.x, q.slotPaths)
		if !ok {
			return false
		}
		for _, el := range x.list {
			if !isConst(el) {
				return false
			}
		}
		a.seeks += len(x.list)
		return a.indexed(p)
	case *call:
		if x.fn == nil || !x.fn.index || len(x.args) == 0 {
			return false
		}
		p, ok := pathOf(x.args[0], q.slotPaths)
		if !ok {
			return false
		}
		for _, arg := range x.args[1:] {
			if !isConst(arg) {
				return false
			}
		}
		a.seeks++
		if strings.HasPrefix(x.fn.name, "ARRAY_CONTAINS") {
			p = append(p, index.ArrayElem)
		}
		return a.indexed(p)
	}
	return false
}

// metrics renders the plan in the service's index-metrics vocabulary.
func (pl *plan) metrics(q *Query, pol *index.Compiled, order []index.OrderItem) *IndexMetrics {
	m := &IndexMetrics{
		UtilizedSingleIndexes:     []SingleIndex{},
		PotentialSingleIndexes:    []SingleIndex{},
		UtilizedCompositeIndexes:  []CompositeIndex{},
		PotentialCompositeIndexes: []CompositeIndex{},
	}
	seen := map[string]bool{}
	for _, u := range pl.used {
		spec := index.FormatPath(u.path)
		if seen["u"+spec] {
			continue
		}
		seen["u"+spec] = true
		m.UtilizedSingleIndexes = append(m.UtilizedSingleIndexes, SingleIndex{FilterExpression: u.filter, IndexSpec: spec, IndexImpactScore: "High"})
	}
	for _, u := range pl.missing {
		spec := index.FormatPath(u.path)
		if seen["p"+spec] {
			continue
		}
		seen["p"+spec] = true
		m.PotentialSingleIndexes = append(m.PotentialSingleIndexes, SingleIndex{FilterExpression: u.filter, IndexSpec: spec, IndexImpactScore: "High"})
	}
	if len(order) == 1 && !seen["u"+index.FormatPath(order[0].Path)] {
		m.UtilizedSingleIndexes = append(m.UtilizedSingleIndexes, SingleIndex{IndexSpec: index.FormatPath(order[0].Path), IndexImpactScore: "High"})
	}
	if len(order) > 1 {
		if comp, ok := pol.FindComposite(order); ok {
			m.UtilizedCompositeIndexes = append(m.UtilizedCompositeIndexes, CompositeIndex{IndexSpecs: comp.Specs, IndexImpactScore: "High"})
		}
	}
	// A filter combined with an ORDER BY, or an equality with a range filter, is served best by a
	// composite index with the equality paths first (the service's documented guidance for
	// composite indexes with filters).
	var want []index.OrderItem
	switch {
	case len(pl.eqPaths) > 0 && len(order) > 0:
		want = appendNewPaths(want, append(dropPaths(pl.eqPaths, order), order...))
	case len(pl.eqPaths) > 0 && len(pl.rangeP) > 0:
		want = appendNewPaths(want, append(dropPaths(pl.eqPaths, pl.rangeP[:1]), pl.rangeP[0]))
	}
	if len(want) > 1 && !pol.HasComposite(want) {
		m.PotentialCompositeIndexes = append(m.PotentialCompositeIndexes, CompositeIndex{IndexSpecs: compositeSpecs(want), IndexImpactScore: "High"})
	}
	return m
}

// appendNewPaths appends the items whose path is not in dst yet: an equality filter repeated in a
// query, or also sorted on, appears once in a composite index.
func appendNewPaths(dst, items []index.OrderItem) []index.OrderItem {
	for _, it := range items {
		dup := false
		for _, d := range dst {
			if slices.Equal(d.Path, it.Path) {
				dup = true
				break
			}
		}
		if !dup {
			dst = append(dst, it)
		}
	}
	return dst
}

// dropPaths returns items without those whose path is in drop.
func dropPaths(items, drop []index.OrderItem) []index.OrderItem {
	var out []index.OrderItem
	for _, it := range items {
		if !slices.ContainsFunc(drop, func(d index.OrderItem) bool { return slices.Equal(d.Path, it.Path) }) {
			out = append(out, it)
		}
	}
	return out
}

func compositeSpecs(items []index.OrderItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		dir := " ASC"
		if it.Desc {
			dir = " DESC"
		}
		out[i] = strings.TrimSuffix(index.FormatPath(it.Path), "/?") + dir
	}
	return out
}

// orderStreams reports whether the index returns the filtered rows already in ORDER BY order: no
// WHERE at all, or only index-served equality filters on ORDER BY paths, the ORDER BY's paths being
// one composite index. An equality on a path the ORDER BY does not name does not stream, whatever
// composite index holds it: the service uses a composite index for an ORDER BY only when the index
// has exactly the ORDER BY's paths; WHERE c.a = @x ORDER BY c.b is "Query using range index" and
// WHERE c.a = @x ORDER BY c.a, c.b the form the composite (a, b) serves (index-policy.md, "Queries
// with a filter and ORDER BY", MicrosoftDocs/azure-databases-docs). The partition key is no
// exception (assumed). Otherwise the service loads every matching document and sorts them itself.
// pkOrderPaths returns, under rule pk-equality-order-composite=streams (cost.Rules), the
// partition-key paths whose equalities the ORDER BY's walk may leave to its source: when every
// filter is an equality the index serves, those on paths the ORDER BY does not name are all on
// partition-key paths, and the policy holds the composite index of those paths (in the key's
// order, in the direction of the first ORDER BY item) followed by the ORDER BY's. nil otherwise,
// and always under the default (sorts).
func (pl *plan) pkOrderPaths(pol *index.Compiled, order []index.OrderItem, rules *cost.Selection, pk [][]string) [][]string {
	if len(pk) == 0 || len(order) == 0 || !rules.Is(cost.RulePKOrderComposite, cost.AltStreams) {
		return nil
	}
	if len(pl.residual) > 0 || len(pl.eqPaths) != len(pl.served) {
		return nil
	}
	dropped := dropPaths(pl.eqPaths, order)
	if len(dropped) == 0 {
		return nil
	}
	var lead []index.OrderItem
	var paths [][]string
	for _, p := range pk {
		if slices.ContainsFunc(dropped, func(d index.OrderItem) bool { return slices.Equal(d.Path, p) }) {
			lead = append(lead, index.OrderItem{Path: p, Desc: order[0].Desc})
			paths = append(paths, p)
		}
	}
	if len(lead) != len(dropped) {
		return nil // an equality on a path that is not the partition key's
	}
	if !pol.HasComposite(append(lead, order...)) {
		return nil
	}
	return paths
}

func (pl *plan) orderStreams(q *Query, pol *index.Compiled, order []index.OrderItem) bool {
	if len(q.conjuncts) == 0 {
		return true
	}
	if len(pl.residual) > 0 || len(pl.eqPaths) != len(pl.served) {
		return false
	}
	if len(dropPaths(pl.eqPaths, order)) > 0 {
		return false // an equality on a path the ORDER BY does not name
	}
	return pol.HasComposite(order)
}
