package sql

import (
	"strings"

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

// compare orders two documents' values, each item in its direction; 0 when they tie.
func (o *Order) compare(a, b []any) int {
	for k := range a {
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
}

type orderEntry[T any] struct {
	vals []any
	seq  uint64
	item T
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
	ix.t.AscendGreaterOrEqual(orderEntry[T]{vals: after.vals, seq: after.seq}, func(e orderEntry[T]) bool {
		if e.seq == after.seq && ix.o.compare(e.vals, after.vals) == 0 {
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

// streamOrder returns the Order a query's ORDER BY streams in from an OrderedSource, or nil when the
// query needs every document: a top-level query over the container's documents (FROM c), no WHERE
// (with a filter the index walk would read entries the page does not use, and the service's facts
// for it are counted over the whole result), JOIN, GROUP BY, aggregate, DISTINCT or search score,
// and a projection of paths, literals and array or object constructors only (no function calls or
// subqueries, whose calls and errors are counted over every row).
func streamOrder(q *Query, streams bool) *Order {
	if !streams || q.from == nil || q.from.in || q.where != nil || len(q.joins) > 0 || len(q.groupBy) > 0 ||
		len(q.aggs) > 0 || q.distinct || len(q.orderBy) == 0 {
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
	o := &Order{slot: q.from.slot}
	parts := make([]string, len(q.orderBy))
	for i, it := range q.orderBy {
		if it.rank {
			return nil
		}
		if _, ok := pathOf(it.e, q.slotPaths); !ok {
			return nil
		}
		o.exprs = append(o.exprs, it.e)
		o.desc = append(o.desc, it.desc)
		parts[i] = it.e.String() // the path as written, array positions included
		if it.desc {
			parts[i] += " DESC"
		}
	}
	o.key = strings.Join(parts, ",")
	return o
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
