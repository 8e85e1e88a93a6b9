package sql

import (
	"math"
	"slices"

	"github.com/cosmosdv/validate/internal/jsonorder"
	"github.com/google/btree"
)

// Indexed lookups. A source that keeps, per indexed path, the documents under each scalar value
// (ValueIndex) answers the served equality, IN and range filters of a query from the postings of
// the values they name (ValueSource) instead of visiting every document in scope. Execute runs the
// query over those documents and counts the index reads from them (indexreads.go): the same
// evaluation over a superset of the matching documents, so the facts are those of a full scan.

// Range is a range of scalar values in the service's order (jsonorder): from Lo to Hi, each bound
// included when its Incl is set. A nil bound (HasLo or HasHi false) leaves that side open up to
// the end of the other bound's type: a comparison holds only between values of one type, so
// c.n > 5 needs numbers above 5 and nothing after them.
type Range struct {
	Lo, Hi         any
	HasLo, HasHi   bool
	LoIncl, HiIncl bool
}

// ValueSource is an IndexedSource that also answers IN and range lookups from its index on path,
// exactly, as a ValueIndex does: Lookup returns the documents in scope whose value at path equals
// v, LookupIn those whose value equals one of vals, LookupRange those whose value lies in r. All
// three return documents in Scan order and ok=false when the source keeps no index for path. Their
// number is counted as the index entries the filter reads, so unlike IndexedSource's, a superset is
// not harmless. vals and the bounds are strings, numbers, booleans or null.
type ValueSource interface {
	IndexedSource
	LookupIn(path []string, vals []any) (docs []*Document, ok bool)
	LookupRange(path []string, r Range) (docs []*Document, ok bool)
}

// posting is the items under one value, in sequence order.
type posting[T any] struct {
	val   any
	seqs  []uint64
	items []T
}

// ValueIndex keeps items (T: a source's documents, as it stores them) under the scalar values of
// one path, each value's items in sequence order (which must follow the source's Scan order), with
// the values themselves in the service's order for ranges. Add and Remove must not run
// concurrently with anything else; lookups may run concurrently with each other. Objects and
// arrays are not kept (no equality or range filter the index serves matches them).
type ValueIndex[T any] struct {
	byVal map[any]*posting[T]
	tree  *btree.BTreeG[*posting[T]]
}

// NewValueIndex returns an empty index.
func NewValueIndex[T any]() *ValueIndex[T] {
	return &ValueIndex[T]{
		byVal: map[any]*posting[T]{},
		tree:  btree.NewG(32, func(a, b *posting[T]) bool { return jsonorder.Compare(a.val, b.val) < 0 }),
	}
}

// indexKey returns v as a key of the index: ok is false for anything but a string, number, boolean
// or null; -0 is 0.
func indexKey(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool, string:
		return v, true
	case float64:
		if math.IsNaN(x) {
			return nil, false
		}
		if x == 0 {
			return float64(0), true
		}
		return x, true
	}
	return nil, false
}

// Add keeps item, whose sequence number is seq, under v; a value that is not a scalar is ignored.
func (ix *ValueIndex[T]) Add(v any, seq uint64, item T) {
	k, ok := indexKey(v)
	if !ok {
		return
	}
	p := ix.byVal[k]
	if p == nil {
		p = &posting[T]{val: k}
		ix.byVal[k] = p
		ix.tree.ReplaceOrInsert(p)
	}
	n := len(p.seqs)
	if n == 0 || p.seqs[n-1] < seq { // the common case: a new document comes last
		p.seqs = append(p.seqs, seq)
		p.items = append(p.items, item)
		return
	}
	i, found := slices.BinarySearch(p.seqs, seq)
	if found {
		p.items[i] = item
		return
	}
	p.seqs = slices.Insert(p.seqs, i, seq)
	p.items = slices.Insert(p.items, i, item)
}

// Remove drops the item kept under v with sequence number seq.
func (ix *ValueIndex[T]) Remove(v any, seq uint64) {
	k, ok := indexKey(v)
	if !ok {
		return
	}
	p := ix.byVal[k]
	if p == nil {
		return
	}
	i, found := slices.BinarySearch(p.seqs, seq)
	if !found {
		return
	}
	var zero T
	p.items[i] = zero
	p.seqs = slices.Delete(p.seqs, i, i+1)
	p.items = slices.Delete(p.items, i, i+1)
	if len(p.seqs) == 0 {
		delete(ix.byVal, k)
		ix.tree.Delete(p)
	}
}

// Equal returns the items under v in sequence order (shared with the index: do not modify).
func (ix *ValueIndex[T]) Equal(v any) []T {
	k, ok := indexKey(v)
	if !ok {
		return nil
	}
	if p := ix.byVal[k]; p != nil {
		return p.items
	}
	return nil
}

// In returns the items under any of vals, in sequence order.
func (ix *ValueIndex[T]) In(vals []any) []T {
	var ps []*posting[T]
	for _, v := range vals {
		k, ok := indexKey(v)
		if !ok {
			continue
		}
		if p := ix.byVal[k]; p != nil && !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	return merge(ps)
}

// Range returns the items under the values in r, in sequence order.
func (ix *ValueIndex[T]) Range(r Range) []T {
	var ps []*posting[T]
	var start any
	var rank int
	switch {
	case r.HasLo:
		k, ok := indexKey(r.Lo)
		if !ok {
			return nil
		}
		start, rank = k, jsonorder.Rank(k)
	case r.HasHi:
		k, ok := indexKey(r.Hi)
		if !ok {
			return nil
		}
		rank = jsonorder.Rank(k)
		start = leastOfRank(rank)
	default:
		return nil
	}
	hi, hasHi := any(nil), false
	if r.HasHi {
		k, ok := indexKey(r.Hi)
		if !ok {
			return nil
		}
		hi, hasHi = k, true
	}
	ix.tree.AscendGreaterOrEqual(&posting[T]{val: start}, func(p *posting[T]) bool {
		if r.HasLo && !r.LoIncl && jsonorder.Compare(p.val, start) == 0 {
			return true
		}
		if hasHi {
			c := jsonorder.Compare(p.val, hi)
			if c > 0 || (c == 0 && !r.HiIncl) {
				return false
			}
		} else if jsonorder.Rank(p.val) != rank {
			return false
		}
		ps = append(ps, p)
		return true
	})
	return merge(ps)
}

// merge returns the items of several postings in sequence order.
func merge[T any](ps []*posting[T]) []T {
	switch len(ps) {
	case 0:
		return nil
	case 1:
		return ps[0].items
	}
	n := 0
	for _, p := range ps {
		n += len(p.seqs)
	}
	type entry struct {
		seq  uint64
		item T
	}
	all := make([]entry, 0, n)
	for _, p := range ps {
		for i, s := range p.seqs {
			all = append(all, entry{s, p.items[i]})
		}
	}
	slices.SortFunc(all, func(a, b entry) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	out := make([]T, len(all))
	for i, e := range all {
		out[i] = e.item
	}
	return out
}
