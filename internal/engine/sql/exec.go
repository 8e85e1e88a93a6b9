package sql

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/index"
)

// DefaultMaxWork is the evaluation-step budget of an execution when Options.MaxWork is 0. One step
// is one expression node evaluated, one JOIN row or one document visited: a filter over 100,000
// documents takes under a million steps, so the default leaves two orders of magnitude of headroom,
// while a runaway JOIN cross product (about 50 ns a step, BenchmarkCrossJoinBounded) stops within
// about five seconds.
const DefaultMaxWork = 100_000_000

// DefaultMaxAlloc is the allocation budget of an execution when Options.MaxAlloc is 0, in bytes
// of memory as allocBytes estimates them (assumed: the engine's own bound, thirty-two 4 MB pages).
// Projecting 100,000 documents to a few properties takes about 20 MB. It used to count units
// (elements and properties) rather than bytes, and `SELECT x, y, z FROM c JOIN x IN c.arr JOIN y IN
// c.arr JOIN z IN c.arr` over one 1,000-element array reached 9 GB of heap before any bound stopped
// it (issue 30).
const DefaultMaxAlloc = 128 << 20

// DefaultMaxItemBytes is the largest result item an execution returns: the service's "Maximum
// response size (for example, paginated query) 4 MB" (concepts-limits.md, "Per-request limits"), since
// a page holds at least one item.
const DefaultMaxItemBytes = 4 << 20

// DefaultMaxOutputBytes bounds the new values one execution builds (assumed: the engine's own bound;
// the service pages a result of any size, while this engine keeps a partition's result between
// pages). 64 MB is sixteen full pages of built values.
const DefaultMaxOutputBytes = 64 << 20

// Execute evaluates q over src in the source's order, with the service's semantics, and reports the
// facts the cost model charges as the service would have executed the query against opts.Policy.
//
// Items may share structure with the source documents (SELECT * returns the stored body itself):
// callers must not modify them. Errors are *Error, *MissingCompositeIndexError,
// *ExcludedOrderByError, *WorkLimitError or *AllocLimitError; all are 400 Bad Request in the service's terms.
// A panic while executing (a fault of the evaluator or of src) is recovered as an *EvalFault.
func Execute(q *Query, src Source, opts Options) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, &EvalFault{Value: fmt.Sprint(r), Stack: debug.Stack()}
		}
	}()
	return execute(q, src, opts)
}

func execute(q *Query, src Source, opts Options) (*Result, error) {
	if q == nil {
		return nil, errors.New("execute: nil query")
	}
	params := make(map[string]any, len(opts.Params))
	for k, v := range opts.Params {
		params[k] = normalize(v)
	}
	for name := range q.params {
		if _, ok := params[name]; !ok {
			return nil, errPlain("SC2002", "The parameter '%s' is referenced in the query but no value was given for it.", name)
		}
	}
	x := &execCtx{
		params:  params,
		now:     opts.Now,
		maxWork: opts.MaxWork,
		regexps: map[string]*regexp.Regexp{},
		seed:    1,
		countFn: true,
		recheck: opts.Recheck,
	}
	if x.now.IsZero() {
		x.now = time.Now()
	}
	if x.maxWork <= 0 {
		x.maxWork = DefaultMaxWork
	}
	x.maxAlloc = opts.MaxAlloc
	if x.maxAlloc <= 0 {
		x.maxAlloc = DefaultMaxAlloc
	}
	x.fields, x.whole = q.fields, q.whole
	x.env = make([]any, q.nslots)
	for i := range x.env {
		x.env[i] = Undefined
	}
	x.vecFns = map[*call]string{}
	if err := checkSearch(q, opts.Search, x); err != nil {
		return nil, err
	}
	orderItems, err := checkOrderBy(q, opts.Policy)
	if err != nil {
		return nil, err
	}
	pl := buildPlan(q, opts.Policy)
	x.work += pl.work // planning counts against the same budget as evaluation
	if !x.step() {
		return nil, x.err
	}
	lv, err := newLevel(q, x)
	if err != nil {
		return nil, err
	}
	res := &Result{Items: []any{}}
	lv.emit = func(v any) bool {
		res.Items = append(res.Items, v)
		return x.spend(sliceSlot)
	}
	streams := len(q.orderBy) > 0 && pl.orderStreams(q, opts.Policy, orderItems)
	pkEq := pl.pkOrderPaths(opts.Policy, orderItems, opts.Rules, opts.PartitionKey)
	walked, entries := false, 0
	lk := &lookups{} // the served filters' index lookups, made once for the execution and the count
	if sp := planStream(q, pl, opts.Policy, orderItems, streams, pkEq); sp != nil && !opts.Whole && src != nil {
		ordered, _ := src.(OrderedSource)
		if ordered == nil && q.where != nil {
			// A filtered ORDER BY is charged as its walk (below), whatever the source keeps.
			ordered = sortedSource{src, x}
		}
		if ordered != nil {
			entries, walked = runStreamed(ordered, sp, x, lv, pl, res, opts)
		}
	}
	if walked {
		res.Streamed = true
		streams = true
	} else if opts.Page != nil && opts.Page.After != nil {
		return nil, ErrNotStreamed
	} else if q.from == nil {
		lv.runNoFrom()
	} else if lv.remaining != 0 && src != nil {
		if lv.sorting && !lv.bounded && q.where == nil && len(q.joins) == 0 && !q.from.in {
			lv.rows = make([]sortRow, 0, src.Len()) // one row per document: no regrowing
		}
		runTop(q, src, x, lv, pl, &res.Facts, lk)
	}
	if x.err == nil {
		lv.finish()
	}
	if x.err != nil {
		return nil, x.err
	}
	f := &res.Facts
	f.DocsOutput = len(res.Items)
	maxItem, maxOut := opts.MaxItemBytes, opts.MaxOutputBytes
	if maxItem <= 0 {
		maxItem = DefaultMaxItemBytes
	}
	if maxOut <= 0 {
		maxOut = DefaultMaxOutputBytes
	}
	var built int64
	if x.stored != nil {
		res.Stored = make([]*Document, len(res.Items))
	}
	for i, it := range res.Items {
		if d := x.storedOf(it); d != nil {
			res.Stored[i] = d
			f.BytesOutput += int64(d.Size)
			continue
		}
		// Measured before anything encodes it: an item or a result past its bound is refused.
		if n := jsonLowerBound(it, maxItem); n > maxItem {
			return nil, &ResultSizeError{Limit: maxItem, Item: true}
		} else if built += n; built > maxOut {
			return nil, &ResultSizeError{Limit: maxOut}
		}
		f.BytesOutput += jsonSize(it)
	}
	f.FunctionCalls = x.fnCalls
	f.IndexLookups = pl.lookups
	if len(q.orderBy) > 0 {
		f.IndexLookups++
	}
	var matched int
	aggs, idxAgg := indexOnlyAggregate(q, pl, opts.Policy, opts.Rules)
	if opts.Recheck != nil {
		idxAgg = false // each document is loaded to re-check the key range (Options.Recheck)
	}
	if !walked {
		// A walk read only the entries it walked (added below); anything else counts each served
		// predicate's entries over every document in scope. TOP without ORDER BY does not stop the
		// index work (indexreads.go): every served read is counted whole, whatever was loaded.
		f.IndexReads, matched = countIndexReads(q, pl, opts.Policy, src, x, streams,
			idxAgg && opts.Rules.Is(cost.RuleAggregateSeekPostings, cost.AltPostings), lk)
	}
	if x.err != nil {
		return nil, x.err
	}
	if idxAgg {
		if q.where == nil && src != nil {
			matched = src.Len() // no filter: every document in scope
		}
		// The index answers the aggregate (aggindex.go): no document is loaded; each aggregated
		// path's entries of the matching documents are read instead.
		f.DocsLoaded, f.BytesLoaded, f.DocsEvaluated = 0, 0, 0
		for _, r := range aggs {
			f.IndexReads = append(f.IndexReads, cost.IndexRead{Kind: "aggregate", Predicate: r.text,
				Index: index.FormatPath(r.path), Entries: matched})
		}
	}
	if len(q.orderBy) > 0 {
		if streams {
			// The index hands documents over in order: a plan without grouping stops loading them once
			// TOP or OFFSET+LIMIT items are produced.
			if (!walked || q.where == nil) && len(q.joins) == 0 && !q.distinct && lv.cap >= 0 && f.DocsLoaded > lv.cap {
				if f.DocsLoaded > 0 {
					f.BytesLoaded = f.BytesLoaded * int64(lv.cap) / int64(f.DocsLoaded)
				}
				f.DocsLoaded = lv.cap
			}
			if !walked || q.where == nil {
				entries = f.DocsLoaded
			}
			kind := "order"
			if len(pl.eqPaths) > 0 {
				kind = "composite" // the equalities and the ORDER BY paths, one composite index
			}
			f.IndexReads = append(f.IndexReads, cost.IndexRead{Kind: kind, Predicate: orderText(q), Index: orderIndex(opts.Policy, pl, orderItems), Entries: entries})
		} else {
			f.SortedInMemory = lv.sorted
		}
	}
	f.IndexEntriesRead, f.IndexScanValues = sumEntries(f.IndexReads)
	if opts.PopulateIndexMetrics {
		res.IndexMetrics = pl.metrics(q, opts.Policy, orderItems)
	}
	return res, nil
}

// runStreamed executes a query whose ORDER BY streams (planStream) by walking src in its order
// from opts.Page.After (or from the plan's prefix and bound), and stops once TOP or OFFSET+LIMIT is
// complete, the page is full or the walk leaves the prefix or passes the bound. Each document
// walked is filtered with WHERE as runTop filters it and counted as runTop counts it (loaded when
// the served filters pass, evaluated when a residual filter runs on it), as the service's index
// walk loads it; entries is the number of index entries the walk read, one per document walked.
// With a page, a document whose item does not fit ends the walk uncounted and sets res.Next to
// resume after the last document counted. ok is false, having done nothing, when src keeps no such
// order or the plan's constants cannot be sought (the query then runs whole).
func runStreamed(src OrderedSource, sp *streamPlan, x *execCtx, lv *level, pl *plan, res *Result, opts Options) (entries int, ok bool) {
	w, ok := sp.walkRange(x)
	if !ok {
		return 0, false
	}
	pg := opts.Page
	after := w.start
	if pg != nil && pg.After != nil {
		after = pg.After
		lv.skip = 0 // the first page returned an item, so it was past OFFSET
		if lv.remaining > 0 {
			lv.remaining = max(0, lv.remaining-pg.Emitted)
		}
	}
	if lv.remaining == 0 {
		return 0, true
	}
	slot := lv.q.from.slot
	var bytes int64
	var last *Cursor
	more := false
	// Under rule order-top-unserved-filter=scans (cost.Rules), a TOP or OFFSET+LIMIT with a filter
	// the index does not serve does not stop at its items: the walk goes on, loading and evaluating
	// every document the served filters keep, and returns nothing more.
	scanRest := len(pl.residual) > 0 && lv.cap >= 0 && opts.Rules.Is(cost.RuleTopUnservedFilter, cost.AltScans)
	full := false
	filter := func() (loaded, pass bool) {
		x.countFn = false
		defer func() { x.countFn = true }()
		for _, c := range pl.served {
			if b, ok := truth(x.eval(c)); !ok || !b {
				return false, false
			}
		}
		x.countFn = true
		if x.recheck != nil && !x.recheck(x.doc) {
			return true, false
		}
		for _, c := range pl.residual {
			if b, ok := truth(x.eval(c)); !ok || !b {
				return true, false
			}
		}
		return true, true
	}
	ok = src.WalkOrdered(sp.order, after, func(d *Document, at *Cursor) bool {
		switch w.visit(at.vals) {
		case -1:
			return true
		case 1:
			return false
		}
		if !x.step() {
			return false
		}
		x.doc, x.docBody = d, x.bodyWith(d, lv.q.walkFields, lv.q.walkWhole) // ORDER BY values come from the index
		x.env[slot] = x.docBody
		loaded, pass := true, true
		if lv.q.where != nil || x.recheck != nil {
			loaded, pass = filter()
			if x.err != nil {
				return false
			}
		}
		if full {
			entries++
			last = at
			docFacts{loaded: loaded, evaluated: loaded, size: d.Size, rows: 1, fullScan: pl.fullScan}.addTo(&res.Facts)
			return true
		}
		var v any
		has := false
		if pass {
			v, has = lv.project()
			if x.err != nil {
				return false
			}
		}
		if has && lv.skip == 0 && pg != nil {
			var n int64
			if d := x.storedOf(v); d != nil {
				n = int64(d.Size)
			} else {
				n = jsonSize(v)
			}
			if len(res.Items) >= pg.Size || (len(res.Items) > 0 && pg.MaxBytes > 0 && bytes+n > pg.MaxBytes) {
				more = true // the next page starts with this document
				return false
			}
			bytes += n
		}
		entries++
		last = at
		docFacts{loaded: loaded, evaluated: loaded && (len(pl.residual) > 0 || x.recheck != nil), size: d.Size, rows: 1, fullScan: pl.fullScan}.addTo(&res.Facts)
		if !has {
			return true
		}
		if !lv.push(v) && x.err == nil && scanRest {
			full = true
			return true
		}
		return lv.remaining != 0 && x.err == nil
	})
	if !ok {
		return 0, false
	}
	if more {
		res.Next = last
	}
	return entries, true
}

// sortedSource keeps a plain Source's documents in an order for one execution, so that a query
// whose ORDER BY streams is executed, and charged, as over a source that keeps its indexes.
type sortedSource struct {
	Source
	x *execCtx // decodes documents given as Raw
}

func (s sortedSource) WalkOrdered(o *Order, after *Cursor, fn func(d *Document, at *Cursor) bool) bool {
	ix := NewOrderIndex[*Document](o)
	var seq uint64
	s.Scan(func(d *Document) bool {
		ix.Add(s.x.bodyOf(d), seq, d)
		seq++
		return true
	})
	ix.Walk(after, fn)
	return true
}

// runTop iterates the documents of src (or those an index lookup returns) through q's FROM and
// JOINs, filters with WHERE and feeds the level, counting the execution facts.
func runTop(q *Query, src Source, x *execCtx, lv *level, pl *plan, f *cost.QueryFacts, lk *lookups) {
	visit := func(d *Document) bool {
		if !x.step() {
			return false
		}
		rows, loaded := 0, false
		cont := lv.iterFrom(x.visiting(d), func() bool {
			rows++
			x.countFn = false
			for _, c := range pl.served {
				if b, ok := truth(x.eval(c)); !ok || !b {
					x.countFn = true
					return x.err == nil
				}
			}
			loaded = true
			x.countFn = true
			if x.recheck != nil && !x.recheck(d) {
				return x.err == nil // outside the request's key range: loaded, evaluated, dropped
			}
			for _, c := range pl.residual {
				if b, ok := truth(x.eval(c)); !ok || !b {
					return x.err == nil
				}
			}
			if x.err != nil {
				return false
			}
			return lv.accept()
		})
		if !pl.narrowing {
			loaded = true
		}
		if !loaded {
			// The index kept this document out: the service never loads it, so none of its rows
			// is iterated (the executor expands the JOIN before it checks the served filters).
			rows = 0
		}
		evaluated := loaded && (len(pl.residual) > 0 || x.recheck != nil)
		docFacts{loaded: loaded, evaluated: evaluated, size: d.Size, rows: rows, fullScan: pl.fullScan}.addTo(f)
		return cont && x.err == nil
	}
	if len(q.joins) == 0 && !q.from.in {
		// One row per document: visiting only the documents of the served read whose lookup
		// returned the fewest gives the facts a scan gives.
		var best *lookup
		for _, l := range lk.forReads(q, pl, src, x) {
			if l != nil && (best == nil || len(l.docs) < len(best.docs)) {
				best = l
			}
		}
		if x.err != nil {
			return
		}
		if best != nil {
			for _, d := range best.docs {
				if !visit(d) {
					break
				}
			}
			return
		}
	}
	if is, ok := src.(IndexedSource); ok && pl.lookup != nil {
		v := x.eval(pl.lookup.val)
		switch v.(type) {
		case string, float64, bool, nil:
			if docs, ok := is.Lookup(pl.lookup.path, v); ok {
				for _, d := range docs {
					if !visit(d) {
						break
					}
				}
				return
			}
		}
	}
	src.Scan(visit)
}

// docFacts are the facts of one visited document.
type docFacts struct {
	loaded    bool
	evaluated bool
	size      int
	rows      int
	fullScan  bool
}

// add accumulates one document's facts.
func (d docFacts) addTo(f *cost.QueryFacts) {
	if d.loaded {
		f.DocsLoaded++
		f.BytesLoaded += int64(d.size)
	}
	if d.evaluated {
		f.DocsEvaluated++
	}
	if d.rows > 1 {
		f.JoinRows += d.rows - 1
	}
	if d.fullScan {
		f.FullScan = true
	}
}

// level is the execution state of one query level (the top-level query or one subquery run).
type level struct {
	q         *Query
	x         *execCtx
	emit      func(v any) bool
	skip      int
	remaining int // -1: unlimited
	cap       int // TOP or OFFSET+LIMIT, -1 when neither
	grouping  bool
	groups    map[string]*group
	order     []*group
	sorting   bool
	rows      []sortRow // every row to sort; a bounded level keeps only the best cap, as a heap
	sorted    int       // rows sorted in memory (the fact the cost model charges)
	bounded   bool      // TOP or OFFSET+LIMIT without DISTINCT or RANK: keep cap rows, not all
	desc      []bool    // per ORDER BY item: descending
	keyBuf    []any     // scratch keys of a bounded level's candidate row
	keyArena  []any     // where an unbounded level's rows take their keys from, a chunk at a time
	seen      map[string]bool
}

type group struct {
	env  []any
	accs []aggAcc
}

type sortRow struct {
	keys []any
	v    any
	ok   bool
	seq  int // arrival order: ties keep it, as a stable sort would
}

func newLevel(q *Query, x *execCtx) (*level, error) {
	lv := &level{q: q, x: x, remaining: -1, cap: -1}
	count := func(e expr, what string) (int, error) {
		v := x.eval(e)
		f, ok := v.(float64)
		if !ok || !isInteger(f) || f < 0 {
			return 0, errPlain("SC2060", "The %s value must be a non-negative integer; got %s.", what, formatLiteral(v))
		}
		return int(f), nil
	}
	if q.top != nil {
		n, err := count(q.top, "TOP")
		if err != nil {
			return nil, err
		}
		lv.remaining, lv.cap = n, n
	}
	if q.offset != nil {
		off, err := count(q.offset, "OFFSET")
		if err != nil {
			return nil, err
		}
		lim, err := count(q.limit, "LIMIT")
		if err != nil {
			return nil, err
		}
		lv.skip = off
		if lv.remaining < 0 || lim < lv.remaining {
			lv.remaining = lim
		}
		lv.cap = off + lv.remaining
	}
	lv.grouping = len(q.groupBy) > 0 || len(q.aggs) > 0
	lv.sorting = !lv.grouping && len(q.orderBy) > 0
	if lv.sorting {
		lv.desc = orderDesc(x, q)
		lv.bounded = lv.cap > 0 && !q.distinct && !q.orderBy[0].rank
	}
	if lv.grouping {
		lv.groups = map[string]*group{}
	}
	if q.distinct {
		lv.seen = map[string]bool{}
	}
	return lv, nil
}

// runNoFrom runs a query without FROM: a single row.
func (lv *level) runNoFrom() {
	if lv.remaining == 0 {
		return
	}
	if lv.q.where != nil {
		if b, ok := truth(lv.x.eval(lv.q.where)); !ok || !b {
			return
		}
	}
	lv.accept()
}

// iterFrom binds the FROM alias (and JOINs) for one input value and calls row for every row,
// stopping when row returns false. doc is the container document for a top-level query.
func (lv *level) iterFrom(doc map[string]any, row func() bool) bool {
	x, f := lv.x, lv.q.from
	var v any
	if doc != nil {
		v = evalOnDoc(x, f.src, doc)
	} else {
		v = x.eval(f.src)
	}
	if f.in {
		arr, ok := v.([]any)
		if !ok {
			return true
		}
		for _, el := range arr {
			x.env[f.slot] = el
			if !lv.iterJoins(0, row) {
				return false
			}
		}
		return true
	}
	if isUndefined(v) {
		return true
	}
	x.env[f.slot] = v
	return lv.iterJoins(0, row)
}

// evalOnDoc evaluates a top-level FROM source (a path from the container root) on doc.
func evalOnDoc(x *execCtx, e expr, doc map[string]any) any {
	switch n := e.(type) {
	case *root:
		return doc
	case *member:
		m, ok := evalOnDoc(x, n.x, doc).(map[string]any)
		if !ok {
			return Undefined
		}
		v, ok := m[n.name]
		if !ok {
			return Undefined
		}
		return v
	case *indexExpr:
		arr, ok := evalOnDoc(x, n.x, doc).([]any)
		f, ok2 := x.eval(n.idx).(float64)
		if !ok || !ok2 || !isInteger(f) || f < 0 || int(f) >= len(arr) {
			return Undefined
		}
		return arr[int(f)]
	}
	return Undefined
}

func (lv *level) iterJoins(i int, row func() bool) bool {
	x := lv.x
	if i == len(lv.q.joins) {
		return row()
	}
	j := lv.q.joins[i]
	var arr []any
	if j.sub != nil {
		arr = x.runSub(j.sub, -1)
	} else {
		a, ok := x.eval(j.src).([]any)
		if !ok {
			return x.err == nil
		}
		arr = a
	}
	for _, el := range arr {
		if !x.step() {
			return false
		}
		x.env[j.slot] = el
		if !lv.iterJoins(i+1, row) {
			return false
		}
	}
	return x.err == nil
}

// accept takes one row that passed WHERE. It returns false when no more rows are needed.
func (lv *level) accept() bool {
	x, q := lv.x, lv.q
	switch {
	case lv.grouping:
		var b strings.Builder
		for _, g := range q.groupBy {
			canonicalKey(&b, x.eval(g))
			b.WriteByte('|')
		}
		key := b.String()
		g, ok := lv.groups[key]
		if !ok {
			if !x.spend(groupBytes + len(key) + sliceSlot*len(x.env) + aggAccBytes*len(q.aggs)) {
				return false
			}
			g = &group{env: append([]any(nil), x.env...), accs: make([]aggAcc, len(q.aggs))}
			if q.from != nil {
				x.noteStored(x.env[q.from.slot]) // projected in finish, after other documents
			}
			lv.groups[key] = g
			lv.order = append(lv.order, g)
		}
		for i, a := range q.aggs {
			g.accs[i].add(a.name, x.eval(a.args[0]))
		}
		return x.err == nil
	case lv.sorting:
		seq := lv.sorted
		lv.sorted++
		if lv.bounded {
			return lv.acceptBounded(seq)
		}
		keys := lv.newKeys()
		for i, o := range q.orderBy {
			keys[i] = x.eval(o.e)
		}
		v, ok := lv.project()
		lv.rows = append(lv.rows, sortRow{keys: keys, v: v, ok: ok, seq: seq})
		return x.spend(sortRowBytes+sliceSlot*len(keys)) && x.err == nil
	}
	v, ok := lv.project()
	if x.err != nil {
		return false
	}
	if !ok {
		return true
	}
	return lv.push(v)
}

// push emits one projected item through DISTINCT, OFFSET and TOP/LIMIT.
func (lv *level) push(v any) bool {
	if lv.remaining == 0 {
		return false
	}
	if lv.seen != nil {
		var b strings.Builder
		canonicalKey(&b, v)
		if lv.seen[b.String()] {
			return true
		}
		lv.seen[b.String()] = true
	}
	if lv.skip > 0 {
		lv.skip--
		return true
	}
	if !lv.emit(v) {
		return false
	}
	if lv.remaining > 0 {
		lv.remaining--
	}
	return lv.remaining != 0
}

// project evaluates the SELECT list for the current row; ok is false when VALUE gives undefined.
func (lv *level) project() (any, bool) {
	x, q := lv.x, lv.q
	if q.star {
		v := x.env[q.from.slot]
		x.noteStored(v)
		return v, !isUndefined(v)
	}
	if q.value {
		v := x.eval(q.items[0].e)
		x.noteStored(v)
		return v, !isUndefined(v)
	}
	out := make(map[string]any, len(q.items))
	for _, it := range q.items {
		if v := x.eval(it.e); !isUndefined(v) {
			out[it.alias] = v
		}
	}
	if !x.spend(allocBytes(out)) {
		return Undefined, false
	}
	return out, true
}

// finish produces the items of grouped or sorted levels.
func (lv *level) finish() {
	x, q := lv.x, lv.q
	switch {
	case lv.grouping:
		if len(lv.order) == 0 && len(q.groupBy) == 0 {
			env := append([]any(nil), x.env...)
			if q.from != nil {
				env[q.from.slot] = Undefined
				for _, j := range q.joins {
					env[j.slot] = Undefined
				}
			}
			lv.order = append(lv.order, &group{env: env, accs: make([]aggAcc, len(q.aggs))})
		}
		saved, savedEnv := x.aggVals, append([]any(nil), x.env...)
		for _, g := range lv.order {
			copy(x.env, g.env)
			vals := make([]any, len(g.accs))
			for i := range g.accs {
				vals[i] = g.accs[i].result(q.aggs[i].name)
			}
			x.aggVals = vals
			v, ok := lv.project()
			if x.err != nil {
				break
			}
			if ok && !lv.push(v) {
				break
			}
		}
		x.aggVals = saved
		copy(x.env, savedEnv)
	case lv.sorting:
		if len(q.orderBy) > 0 && q.orderBy[0].rank {
			rankRows(lv.x, lv.rows, q.orderBy[0].e)
		}
		if lv.bounded {
			slices.SortFunc(lv.rows, lv.compareRows) // a heap: arrival order is in seq, not in place
			for _, r := range lv.rows {
				if !lv.push(r.v) {
					break
				}
			}
			break
		}
		// Rows are in arrival order: a stable sort of their positions on the keys alone keeps it
		// for ties, moves 4 bytes a swap, and profits from runs already in order.
		rows := lv.rows
		perm := make([]int32, len(rows))
		for i := range perm {
			perm[i] = int32(i)
		}
		slices.SortStableFunc(perm, func(a, b int32) int { return lv.compareKeys(rows[a].keys, rows[b].keys) })
		for _, i := range perm {
			if r := &rows[i]; r.ok && !lv.push(r.v) {
				break
			}
		}
	}
}

// runSub runs a subquery in the current row and returns its items, at most limit (-1: all).
func (x *execCtx) runSub(q *Query, limit int) []any {
	lv, err := newLevel(q, x)
	if err != nil {
		if x.err == nil {
			x.err = err
		}
		return nil
	}
	var out []any
	lv.emit = func(v any) bool {
		out = append(out, v)
		return limit < 0 || len(out) < limit
	}
	row := func() bool {
		if q.where != nil {
			if b, ok := truth(x.eval(q.where)); !ok || !b {
				return x.err == nil
			}
		}
		return lv.accept()
	}
	if q.from == nil {
		lv.runNoFrom()
	} else if lv.remaining != 0 {
		lv.iterFrom(nil, row)
	}
	if x.err == nil {
		lv.finish()
	}
	return out
}

func (x *execCtx) evalSubquery(s *subquery) any {
	switch s.kind {
	case subExists:
		return len(x.runSub(s.q, 1)) > 0
	case subArray:
		out := x.runSub(s.q, -1)
		if out == nil {
			out = []any{}
		}
		return x.charge(out)
	}
	out := x.runSub(s.q, 1)
	if len(out) == 0 {
		return Undefined
	}
	return out[0]
}

// aggAcc accumulates one aggregate over a group.
type aggAcc struct {
	count int
	sum   float64
	n     int
	bad   bool
	best  any
	has   bool
}

func (a *aggAcc) add(name string, v any) {
	if isUndefined(v) {
		return
	}
	switch name {
	case "COUNT":
		a.count++
	case "SUM", "AVG":
		f, ok := v.(float64)
		if !ok {
			a.bad = true
			return
		}
		a.sum += f
		a.n++
	case "MIN", "MAX":
		switch v.(type) {
		case []any, map[string]any:
			a.bad = true
			return
		}
		if !a.has {
			a.best, a.has = v, true
			return
		}
		c := orderCompare(v, a.best)
		if name == "MIN" && c < 0 || name == "MAX" && c > 0 {
			a.best = v
		}
	}
}

func (a *aggAcc) result(name string) any {
	switch name {
	case "COUNT":
		return float64(a.count)
	case "SUM":
		if a.bad || math.IsInf(a.sum, 0) || math.IsNaN(a.sum) {
			return Undefined
		}
		return a.sum
	case "AVG":
		if a.bad || a.n == 0 || math.IsInf(a.sum, 0) || math.IsNaN(a.sum) {
			return Undefined
		}
		return a.sum / float64(a.n)
	}
	if a.bad || !a.has {
		return Undefined
	}
	return a.best
}

// checkOrderBy applies the service's index requirements to ORDER BY: every item must be a document
// path; one item needs its path indexed, two or more need a composite index.
func checkOrderBy(q *Query, pol *index.Compiled) ([]index.OrderItem, error) {
	if len(q.orderBy) == 0 || (len(q.orderBy) == 1 && isRankable(q.orderBy[0])) {
		return nil, nil // a search score: sorted in memory, whatever the policy
	}
	items := make([]index.OrderItem, 0, len(q.orderBy))
	for _, o := range q.orderBy {
		p, ok := pathOf(o.e, q.slotPaths)
		if !ok || len(p) == 0 {
			return nil, errPlain("SC2204", "Unsupported ORDER BY clause. ORDER BY item expression could not be mapped to a document path.")
		}
		items = append(items, index.OrderItem{Path: p, Desc: o.desc})
	}
	if len(items) == 1 {
		if !pol.Indexed(items[0].Path) {
			return nil, &ExcludedOrderByError{Item: items[0]}
		}
		return items, nil
	}
	if !pol.HasComposite(items) {
		return nil, &MissingCompositeIndexError{Items: items}
	}
	return items, nil
}
