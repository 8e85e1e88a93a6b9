package sql

import (
	"math"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/jsonorder"
	"github.com/google/btree"
)

// Streamed ORDER BY. The service walks a range or composite index in order and stops once the page,
// or TOP / OFFSET+LIMIT, is full; a continuation resumes the walk. A source that keeps documents in
// an ORDER BY's order (OrderedSource, with an OrderIndex) lets Execute do the same instead of
// visiting and sorting every document.

// Order is the order of a query's ORDER BY as an index keeps it: the ORDER BY values of each
// document compared with jsonorder, item by item in each item's direction, ties in the source's
// Scan order. Orders with the same Key are the same order.
type Order struct {
	key   string
	slot  int // the FROM alias the ORDER BY paths start from
	exprs []expr
	desc  []bool
}

// Key identifies the order: the ORDER BY paths and directions as the query wrote them.
func (o *Order) Key() string { return o.key }

// Values returns d's ORDER BY values (Undefined where a path is missing), as Execute evaluates them.
func (o *Order) Values(body map[string]any) []any {
	out := make([]any, len(o.exprs))
	for i, e := range o.exprs {
		out[i] = o.value(e, body)
	}
	return out
}

// value evaluates one ORDER BY path on a document: the forms pathOf accepts, with eval's semantics.
func (o *Order) value(e expr, body map[string]any) any {
	switch n := e.(type) {
	case *ident:
		if n.slot == o.slot {
			return body
		}
	case *member:
		if m, ok := o.value(n.x, body).(map[string]any); ok {
			if v, ok := m[n.name]; ok {
				return v
			}
		}
	case *indexExpr:
		lit, _ := n.idx.(*literal)
		if lit == nil {
			return Undefined
		}
		switch b := o.value(n.x, body).(type) {
		case []any:
			if f, ok := lit.val.(float64); ok && isInteger(f) && f >= 0 && int(f) < len(b) {
				return b[int(f)]
			}
		case map[string]any:
			if s, ok := lit.val.(string); ok {
				if v, ok := b[s]; ok {
					return v
				}
			}
		}
	}
	return Undefined
}

// compare orders two documents' values, each item in its direction, over the items both have
// (a bound's values may be a prefix); 0 when they tie.
func (o *Order) compare(a, b []any) int {
	for k := range min(len(a), len(b)) {
		if c := orderCompare(a[k], b[k]); c != 0 {
			if o.desc[k] {
				return -c
			}
			return c
		}
	}
	return 0
}

// Cursor is a position in an OrderIndex: after the document with these values and sequence number.
// It stays valid across writes (a document added after it in the order is walked when resumed).
type Cursor struct {
	vals []any
	seq  uint64
	// bound, when not 0, makes the cursor a position between documents rather than a document: -1
	// before every document whose leading values equal vals (which may be fewer than the order's
	// items), +1 after all of them. A walk from a bound starts at the first document past it.
	bound int8
}

type orderEntry[T any] struct {
	vals  []any
	seq   uint64
	bound int8
	item  T
}

// OrderIndex keeps a source's items (T: its documents, as it stores them) in an Order, ties by
// the sequence number the source gives each (which must follow its Scan order). Add and Remove
// must not run concurrently with anything else; Walks may run concurrently with each other. It is
// a B-tree (github.com/google/btree): O(log n) per write, and a walk costs O(log n) plus the items
// it visits.
type OrderIndex[T any] struct {
	o *Order
	t *btree.BTreeG[orderEntry[T]]
}

// NewOrderIndex returns an empty index in o's order.
func NewOrderIndex[T any](o *Order) *OrderIndex[T] {
	less := func(a, b orderEntry[T]) bool {
		if c := o.compare(a.vals, b.vals); c != 0 {
			return c < 0
		}
		if a.bound != 0 || b.bound != 0 {
			return a.bound < b.bound // a bound against a document it ties with on the bound's values
		}
		return a.seq < b.seq
	}
	return &OrderIndex[T]{o: o, t: btree.NewG(32, less)}
}

// Add indexes item, whose document body is body, under seq.
func (ix *OrderIndex[T]) Add(body map[string]any, seq uint64, item T) {
	ix.t.ReplaceOrInsert(orderEntry[T]{vals: ix.o.Values(body), seq: seq, item: item})
}

// Remove drops the item indexed under seq with this body (the body it was added with).
func (ix *OrderIndex[T]) Remove(body map[string]any, seq uint64) {
	ix.t.Delete(orderEntry[T]{vals: ix.o.Values(body), seq: seq})
}

// Walk calls fn with each item after the cursor (nil: from the first) in order, with the cursor
// that resumes after it, until fn returns false.
func (ix *OrderIndex[T]) Walk(after *Cursor, fn func(item T, at *Cursor) bool) {
	visit := func(e orderEntry[T]) bool { return fn(e.item, &Cursor{vals: e.vals, seq: e.seq}) }
	if after == nil {
		ix.t.Ascend(visit)
		return
	}
	ix.t.AscendGreaterOrEqual(orderEntry[T]{vals: after.vals, seq: after.seq, bound: after.bound}, func(e orderEntry[T]) bool {
		if after.bound == 0 && e.seq == after.seq && ix.o.compare(e.vals, after.vals) == 0 {
			return true // the cursor's own item
		}
		return visit(e)
	})
}

// OrderedSource is a Source that can hand its documents over in an ORDER BY's order.
// WalkOrdered calls fn with the documents Scan would visit, in o's order (ties in Scan order),
// starting after the cursor (nil: from the first), with the cursor that resumes after each, until
// fn returns false; ok=false when the source keeps no such order (Execute then visits every
// document and sorts). Sources keep an OrderIndex per Order.Key, built on first use and kept up to
// date on every write.
type OrderedSource interface {
	Source
	WalkOrdered(o *Order, after *Cursor, fn func(d *Document, at *Cursor) bool) (ok bool)
}

// Page asks Execute for one page of a streamed ORDER BY: at most Size items and MaxBytes of items
// (one item always), resuming after a cursor a previous page returned.
type Page struct {
	Size     int
	MaxBytes int64
	// After is the previous page's Result.Next; nil for the first page.
	After *Cursor
	// Emitted is how many items the previous pages returned (TOP and LIMIT count them).
	Emitted int
}

// streamPlan is how an ORDER BY streams from an OrderedSource: the order to walk, the equality
// filters whose values lead it (a composite index with the equality paths first, walked from their
// prefix) and the range filters on its first ORDER BY path (the walk starts at one bound and stops
// past the other). Every document walked is filtered with the whole WHERE clause; a conjunct the
// index does not serve is evaluated on each document the walk loads.
type streamPlan struct {
	order *Order
	eqs   []expr // the constants of the leading equality items, in order
	lo    *walkBound
	hi    *walkBound
}

// walkBound is a constant bound on the first ORDER BY path's values (in ascending value order).
type walkBound struct {
	val  expr
	incl bool
}

// planStream returns how q's ORDER BY streams from an OrderedSource, or nil when the query needs
// every document. It streams a top-level query over the container's documents (FROM c) without
// JOIN, GROUP BY, aggregate, DISTINCT or search score, whose projection is paths, literals and
// array or object constructors only (no function calls or subqueries, whose calls and errors are
// counted over every row), and whose WHERE clause, if any, has only conjuncts of these kinds:
//
//   - a comparison (=, <, <=, >, >=, !=) or BETWEEN of the first ORDER BY path with a constant,
//     the index serving it: the ORDER BY's own index, read from the bound;
//   - a predicate the index does not serve (evaluated on each document the walk loads).
//
// A served predicate of any other kind (IN, a range or an equality on a path the ORDER BY does not
// name, CONTAINS, an OR, ...) leaves the query to the full execution, and to the cost model's
// reading of it (plan.orderStreams). An equality on a path the ORDER BY does not name does not
// stream even with a composite index of that path and the ORDER BY's: the service uses a composite
// index for an ORDER BY only when the index has exactly the ORDER BY's paths, so WHERE c.a = @x
// ORDER BY c.b is the docs' "Query using range index" and WHERE c.a = @x ORDER BY c.a, c.b the one
// the composite (a, b) serves (index-policy.md, "Queries with a filter and ORDER BY",
// MicrosoftDocs/azure-databases-docs). The partition key is no exception (assumed: the docs name
// none, and the composite index is per partition all the same).
//
// pkEq (plan.pkOrderPaths, rule pk-equality-order-composite=streams) names partition-key paths whose
// equalities the walk's source pins (a single-partition query's logical partition): they are
// checked on each document walked, as a served filter, and do not stop the stream.
func planStream(q *Query, pl *plan, pol *index.Compiled, order []index.OrderItem, streams bool, pkEq [][]string) *streamPlan {
	if q.from == nil || q.from.in || len(q.joins) > 0 || len(q.groupBy) > 0 ||
		len(q.aggs) > 0 || q.distinct || len(q.orderBy) == 0 || len(order) != len(q.orderBy) {
		return nil
	}
	if _, ok := q.from.src.(*root); !ok {
		return nil
	}
	if !q.star {
		for _, it := range q.items {
			if !pureProjection(it.e) {
				return nil
			}
		}
	}
	for _, it := range q.orderBy {
		if it.rank {
			return nil
		}
	}
	sp := &streamPlan{}
	if q.where != nil {
		served := map[expr]bool{}
		for _, c := range pl.served {
			served[c] = true
		}
		inOrder := func(p []string) int {
			for i, it := range order {
				if slices.Equal(it.Path, p) {
					return i
				}
			}
			return -1
		}
		// pinned holds the equality constants of ORDER BY items; ranges the comparisons of each.
		pinned := map[int]expr{}
		type cmpBound struct {
			lo, hi     expr
			loIn, hiIn bool
		}
		ranges := map[int][]cmpBound{}
		for _, c := range q.conjuncts {
			if !served[c] {
				continue // residual: evaluated on each document walked
			}
			switch b := c.(type) {
			case *binary:
				p, val, ok := pathConst(q, b)
				if !ok {
					return nil
				}
				i := inOrder(p)
				if i < 0 && b.op == "=" && slices.ContainsFunc(pkEq, func(k []string) bool { return slices.Equal(k, p) }) {
					continue // the partition key's equality: the source's, checked on each document walked
				}
				if i < 0 {
					return nil // a path the ORDER BY does not name: not read in its walk
				}
				op := b.op
				if _, onLeft := pathOf(b.l, q.slotPaths); !onLeft {
					op = mirrored(op)
				}
				switch op {
				case "=":
					if _, dup := pinned[i]; !dup {
						pinned[i] = val
					}
				case ">", ">=":
					ranges[i] = append(ranges[i], cmpBound{lo: val, loIn: op == ">="})
				case "<", "<=":
					ranges[i] = append(ranges[i], cmpBound{hi: val, hiIn: op == "<="})
				default:
					ranges[i] = append(ranges[i], cmpBound{}) // != : checked on each document walked
				}
			case *between:
				p, ok := pathOf(b.x, q.slotPaths)
				i := -1
				if ok {
					i = inOrder(p)
				}
				if i < 0 || !isConst(b.lo) || !isConst(b.hi) {
					return nil
				}
				ranges[i] = append(ranges[i], cmpBound{lo: b.lo, loIn: true, hi: b.hi, hiIn: true})
			default:
				return nil
			}
		}
		// The ORDER BY items an equality pins from the first on act as a prefix of the walk (the
		// composite index's entries of those values, in the order of the items after them); a
		// range may bound the next item: the walk starts at the bound and stops past the other,
		// as a composite index serving equality + range + ORDER BY is read (index-policy.md,
		// "composite indexes": equality filters first, then one range filter, then ORDER BY).
		m := 0
		for ; m < len(order); m++ {
			if _, ok := pinned[m]; !ok {
				break
			}
		}
		if len(pinned) != m {
			return nil // an equality on a later item only: not a prefix of the walk
		}
		for i := range ranges {
			if i < m {
				// A range on a pinned item: the equality decides; the range is checked on each
				// document walked (the whole WHERE clause is).
				continue
			}
			if i != m {
				return nil
			}
		}
		if m == len(order) {
			// Every ORDER BY item pinned: the last one's equality bounds the walk instead.
			m--
			ranges[m] = append(ranges[m], cmpBound{lo: pinned[m], loIn: true, hi: pinned[m], hiIn: true})
		}
		for i := range m {
			sp.eqs = append(sp.eqs, pinned[i])
		}
		for _, r := range ranges[m] {
			sp.bound(r.lo, r.loIn, r.hi, r.hiIn)
		}
	} else if !streams {
		return nil
	}
	o := &Order{slot: q.from.slot}
	parts := make([]string, 0, len(q.orderBy))
	for _, it := range q.orderBy {
		o.exprs = append(o.exprs, it.e)
		o.desc = append(o.desc, it.desc)
		part := it.e.String() // the path as written, array positions included
		if it.desc {
			part += " DESC"
		}
		parts = append(parts, part)
	}
	o.key = strings.Join(parts, ",")
	sp.order = o
	return sp
}

// mirrored is the comparison with its operands swapped (5 < c.b is c.b > 5).
func mirrored(op string) string {
	switch op {
	case "<":
		return ">"
	case ">":
		return "<"
	case "<=":
		return ">="
	case ">=":
		return "<="
	}
	return op
}

// bound narrows the walk to the values between lo and hi (nil: unbounded on that side). The first
// bound of each side is kept; a second filter on the same side is evaluated on each document.
func (sp *streamPlan) bound(lo expr, loIncl bool, hi expr, hiIncl bool) {
	if lo != nil && sp.lo == nil {
		sp.lo = &walkBound{val: lo, incl: loIncl}
	}
	if hi != nil && sp.hi == nil {
		sp.hi = &walkBound{val: hi, incl: hiIncl}
	}
}

// walkRange is a streamPlan's bounds evaluated for one execution: where the walk starts and when
// it stops. Entries of another type than the bounds' are skipped before them and end the walk
// after them; a document past the end bound ends it.
type walkRange struct {
	start *Cursor
	eqs   []any
	pos   int // the first ORDER BY item's position in the order's values
	desc  bool
	rank  int // the bounds' type rank; -1 when unbounded
	lo    any
	hi    any
	loIn  bool
	hiIn  bool
	hasLo bool
	hasHi bool
}

// scalar reports whether v is a value the index keeps as one term an equality or a range can seek.
func scalar(v any) bool {
	switch v.(type) {
	case nil, bool, float64, string:
		return true
	}
	return false
}

// walkRange evaluates sp's constants; ok is false when an equality's value is not a scalar (the
// query then runs whole).
func (sp *streamPlan) walkRange(x *execCtx) (walkRange, bool) {
	w := walkRange{pos: len(sp.eqs), desc: sp.order.desc[len(sp.eqs)], rank: -1}
	for _, e := range sp.eqs {
		v := x.eval(e)
		if !scalar(v) {
			return w, false
		}
		w.eqs = append(w.eqs, v)
	}
	if sp.lo != nil {
		if v := x.eval(sp.lo.val); scalar(v) {
			w.lo, w.loIn, w.hasLo, w.rank = v, sp.lo.incl, true, jsonorder.Rank(v)
		}
	}
	if sp.hi != nil {
		if v := x.eval(sp.hi.val); scalar(v) && (w.rank < 0 || jsonorder.Rank(v) == w.rank) {
			w.hi, w.hiIn, w.hasHi, w.rank = v, sp.hi.incl, true, jsonorder.Rank(v)
		}
	}
	// Start at the bound the walk meets first: the lower in ascending order, the upper in
	// descending; without it, at the least value of the bounds' type where there is one.
	vals := append([]any{}, w.eqs...)
	first, incl, has := w.lo, w.loIn, w.hasLo
	if w.desc {
		first, incl, has = w.hi, w.hiIn, w.hasHi
	}
	if !has && w.rank >= 0 && !w.desc {
		first, incl, has = leastOfRank(w.rank), true, true
	}
	if has {
		vals = append(vals, first)
	}
	if len(vals) > 0 {
		w.start = &Cursor{vals: vals, bound: -1}
		if has && !incl {
			w.start.bound = 1
		}
	}
	return w, x.err == nil
}

// leastOfRank is the least value of a scalar type rank.
func leastOfRank(r int) any {
	switch r {
	case jsonorder.RankBool:
		return false
	case jsonorder.RankNumber:
		return math.Inf(-1)
	case jsonorder.RankString:
		return ""
	}
	return nil
}

// visit tells what to do with an entry of the walk: walk it (0), skip it uncounted, as a seek
// would have (-1), or end the walk before it (1).
func (w *walkRange) visit(vals []any) int {
	for i, v := range w.eqs {
		if orderCompare(vals[i], v) != 0 {
			return 1 // past the equality prefix
		}
	}
	if w.rank < 0 {
		return 0
	}
	v := vals[w.pos]
	if r := jsonorder.Rank(v); r != w.rank {
		if (r < w.rank) != w.desc {
			return -1 // before the bounds' type in the walk's direction
		}
		return 1
	}
	end, in, has := w.hi, w.hiIn, w.hasHi
	if w.desc {
		end, in, has = w.lo, w.loIn, w.hasLo
	}
	if has {
		c := orderCompare(v, end)
		if w.desc {
			c = -c
		}
		if c > 0 || (c == 0 && !in) {
			return 1
		}
	}
	return 0
}

// pureProjection reports whether evaluating e calls no function and runs no subquery.
func pureProjection(e expr) bool {
	switch n := e.(type) {
	case *literal, *param, *ident:
		return true
	case *member:
		return pureProjection(n.x)
	case *indexExpr:
		return pureProjection(n.x) && pureProjection(n.idx)
	case *arrayLit:
		for _, el := range n.elems {
			if !pureProjection(el) {
				return false
			}
		}
		return true
	case *objectLit:
		for _, v := range n.vals {
			if !pureProjection(v) {
				return false
			}
		}
		return true
	}
	return false
}
