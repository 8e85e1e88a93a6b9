package sql

// ORDER BY in memory: the order of two rows, and the bounded heap that keeps only the rows a TOP or
// OFFSET+LIMIT can return. Both keep the service's order exactly: orderCompare across types
// (undefined < null < boolean < number < string < array < object), each item in its direction, and
// rows whose keys tie in the order they arrived, as the stable sort this replaces did.

// orderDesc reports, per ORDER BY item of q, whether it sorts descending.
func orderDesc(x *execCtx, q *Query) []bool {
	desc := make([]bool, len(q.orderBy))
	for i, o := range q.orderBy {
		desc[i] = o.desc || o.rank
		if c, ok := o.e.(*call); ok && c.name == "VECTORDISTANCE" {
			// The closest first, whatever the direction written (vector-search.md): the
			// highest similarity, or the smallest euclidean distance.
			desc[i] = x.callDistance(c) != "euclidean"
		}
	}
	return desc
}

// compareKeys orders two rows' ORDER BY keys, each item in its direction; 0 when they tie.
func (lv *level) compareKeys(a, b []any) int {
	for k := range a {
		c := orderCompare(a[k], b[k])
		if c == 0 {
			continue
		}
		if lv.desc[k] {
			return -c
		}
		return c
	}
	return 0
}

// compareRows is the total order of sorted rows: their keys, then their arrival.
func (lv *level) compareRows(a, b sortRow) int {
	if c := lv.compareKeys(a.keys, b.keys); c != 0 {
		return c
	}
	return a.seq - b.seq
}

// newKeys returns room for one row's ORDER BY keys, cut from a chunk shared by many rows so that
// an unbounded sort does not allocate once per row.
func (lv *level) newKeys() []any {
	n := len(lv.q.orderBy)
	if len(lv.keyArena) < n {
		lv.keyArena = make([]any, 256*n)
	}
	keys := lv.keyArena[:n:n]
	lv.keyArena = lv.keyArena[n:]
	return keys
}

// acceptBounded takes one row of a level with TOP or OFFSET+LIMIT (cap > 0). lv.rows is a heap of
// at most cap rows with the last in order at its root: a row that comes before the root replaces
// it, any other row can never be returned. The row is still projected, as every row of an unbounded
// sort is, so evaluation (function calls, errors, budgets) is the same either way; only rows that
// give an item (ok) are kept, since push skips the others.
func (lv *level) acceptBounded(seq int) bool {
	x, q := lv.x, lv.q
	if lv.keyBuf == nil {
		lv.keyBuf = make([]any, len(q.orderBy))
	}
	keys := lv.keyBuf
	for i, o := range q.orderBy {
		keys[i] = x.eval(o.e)
	}
	v, ok := lv.project()
	if x.err != nil || !ok {
		clear(keys)
		return x.err == nil
	}
	if len(lv.rows) < lv.cap {
		lv.rows = append(lv.rows, sortRow{keys: append([]any(nil), keys...), v: v, ok: true, seq: seq})
		lv.siftUp(len(lv.rows) - 1)
		clear(keys)
		return true
	}
	// A later arrival that ties the root comes after it: only a strictly earlier key replaces it.
	if root := &lv.rows[0]; lv.compareKeys(keys, root.keys) < 0 {
		copy(root.keys, keys)
		root.v, root.seq = v, seq
		lv.siftDown(0)
	}
	clear(keys)
	return true
}

// siftUp and siftDown keep lv.rows a heap with the last row in order at the root.
func (lv *level) siftUp(i int) {
	h := lv.rows
	for i > 0 {
		p := (i - 1) / 2
		if lv.compareRows(h[p], h[i]) >= 0 {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (lv *level) siftDown(i int) {
	h := lv.rows
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && lv.compareRows(h[r], h[l]) > 0 {
			m = r
		}
		if lv.compareRows(h[i], h[m]) >= 0 {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
