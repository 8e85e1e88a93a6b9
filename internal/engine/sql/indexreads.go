package sql

import (
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/jsonorder"
)

// Index work. The planner decides which predicates the index serves (plan.go); this file counts how
// many index entries serving them reads, as the service's inverted index does (index-overview.md,
// "Index usage" and "Index usage details": values sorted per path, each with the list of its items;
// index-policy.md: composite indexes for filters on several properties):
//
//   - an equality or IN is an index seek: "constant per equality filter", "incredibly low,
//     regardless of the total data volume". It reads no entry per matching document: its cost is the
//     seek itself (IndexLookups, one per comparison and per IN value, priced by the rate card);
//   - a range (<, <=, >, >=, !=, BETWEEN, STARTSWITH) is a precise index scan: a binary search for
//     the bound, then "reading all remaining index pages": it reads the entries inside the range;
//   - CONTAINS, ENDSWITH, RegexMatch, StringEquals and the IS_* checks are a full index scan: it
//     "scans through the distinct set of possible values", so it reads one entry per distinct value
//     of the path in scope ("increases linearly based on the cardinality"), not one per document,
//     each a value the function is evaluated on (QueryFacts.IndexScanValues, priced apart from a
//     range's entries); with a seek beside it the engine "does the index seek first" and evaluates the scan only on
//     the index pages of the seek's items ("Queries with complex filter expressions"): then it reads
//     at most one entry per document the seeks keep;
//   - several filters: each range reads its range, each seek is a seek (no proportional work);
//   - a composite index whose leading paths are equality filters and whose next path is a range
//     filter reads only the slice that matches them all; at most one range filter per composite
//     index, the rest keep their range indexes (troubleshoot-query-performance.md, "Optimize
//     queries that have filters on multiple properties"; devblogs "New ways to use composite indexes",
//     2021: one composite per range filter); a composite of equalities only is a seek;
//   - an ORDER BY served in order by the index walks its entries until the result is complete.
//
// TOP without ORDER BY does not stop the index work: the devblog's SELECT TOP 10 with one equality
// and two ranges over 9 million items costs 533.47 RU with range indexes and 72.23 RU with a
// composite per range, hundreds and tens of RU for 10 items (docs/fidelity.md). Only a walk in
// ORDER BY order stops (ordered.go).
//
// Counts are over the documents in scope: the logical partition of a single-partition query (the
// partition key is part of every lookup, so a key's entries are found together), the physical
// partition otherwise. One entry per matching document is counted; an array path holding several
// matching elements in one document is counted once (assumed: posting lists are per document).

// readKind is how the index serves one predicate.
type readKind int

const (
	readOther readKind = iota
	readEqual
	readIn
	readRange
	readScan
)

func (k readKind) String() string {
	switch k {
	case readEqual:
		return "equality"
	case readIn:
		return "in"
	case readRange:
		return "range"
	case readScan:
		return "scan"
	}
	return "other"
}

// servedRead is one served predicate and the path its index read is on.
type servedRead struct {
	e    expr
	kind readKind
	path []string
	// probe is the expression whose presence a whole-path scan counts (the function's path argument).
	probe expr
}

// indexScanFns are the index-served functions that scan every entry of their path.
var indexScanFns = map[string]bool{"CONTAINS": true, "ENDSWITH": true, "REGEXMATCH": true, "STRINGEQUALS": true}

// classify returns the served predicates with the kind of index read each needs.
func (pl *plan) classify(q *Query) []servedRead {
	out := make([]servedRead, 0, len(pl.served))
	for _, c := range pl.served {
		r := servedRead{e: c}
		switch x := c.(type) {
		case *binary:
			if p, _, ok := pathConst(q, x); ok {
				r.path = p
				switch x.op {
				case "=":
					r.kind = readEqual
				case "<", ">", "<=", ">=", "!=":
					r.kind = readRange
				}
			}
		case *between:
			if p, ok := pathOf(x.x, q.slotPaths); ok {
				r.kind, r.path = readRange, p
			}
		case *inExpr:
			if p, ok := pathOf(x.x, q.slotPaths); ok {
				r.kind, r.path = readIn, p
			}
		case *call:
			if x.fn != nil && len(x.args) > 0 {
				if p, ok := pathOf(x.args[0], q.slotPaths); ok {
					r.path = p
					switch name := x.fn.name; {
					case name == "STARTSWITH":
						r.kind = readRange
					case indexScanFns[name] || strings.HasPrefix(name, "IS_"):
						r.kind, r.probe = readScan, x.args[0]
					case strings.HasPrefix(name, "ARRAY_CONTAINS"):
						r.kind, r.path = readEqual, append(p, index.ArrayElem)
					}
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// slice is one group of predicates read together from one composite index.
type slice struct {
	members []int // indexes into the served reads
	comp    index.Composite
}

// composites assigns composite indexes: for each range predicate, the composite with the most
// leading equality paths followed by the range's path; then, for the equalities left, a composite
// made of equality paths only. It returns the slices and which reads they cover.
func composites(reads []servedRead, pol *index.Compiled) ([]slice, []bool) {
	covered := make([]bool, len(reads))
	comps := pol.Composites()
	if len(comps) == 0 {
		return nil, covered
	}
	eqOf := func(p []string) int {
		for i, r := range reads {
			if r.kind == readEqual && slices.Equal(r.path, p) {
				return i
			}
		}
		return -1
	}
	// leadingEqs returns the reads of comp's first n paths when each is an equality filter.
	leadingEqs := func(comp index.Composite, n int) ([]int, bool) {
		var m []int
		for _, p := range comp.Paths[:n] {
			i := eqOf(p)
			if i < 0 {
				return nil, false
			}
			m = append(m, i)
		}
		return m, true
	}
	var out []slice
	for ri, r := range reads {
		if r.kind != readRange {
			continue
		}
		best, bestK := -1, 0
		var bestM []int
		for ci, comp := range comps {
			k := len(comp.Paths) - 1
			if k < 1 || !slices.Equal(comp.Paths[k], r.path) {
				continue
			}
			if m, ok := leadingEqs(comp, k); ok && k > bestK {
				best, bestK, bestM = ci, k, m
			}
		}
		if best >= 0 {
			out = append(out, slice{members: append(bestM, ri), comp: comps[best]})
			covered[ri] = true
			for _, i := range bestM {
				covered[i] = true
			}
		}
	}
	for _, comp := range comps {
		if len(comp.Paths) < 2 {
			continue
		}
		m, ok := leadingEqs(comp, len(comp.Paths))
		if !ok || !slices.ContainsFunc(m, func(i int) bool { return !covered[i] }) {
			continue
		}
		out = append(out, slice{members: m, comp: comp})
		for _, i := range m {
			covered[i] = true
		}
	}
	return out, covered
}

// countIndexReads counts the index entries the served predicates of pl read over src, and returns
// them per predicate or composite slice. streamsOrder drops equality reads that the ORDER BY's
// composite index serves (Execute adds that walk itself).
//
// matched is the number of documents every served predicate matches. postings makes a seek read
// its posting, one entry per matching document: an aggregate the index answers (aggindex.go)
// counts or sums over the documents the seek finds (rule aggregate-seek-postings, assumed: the
// April 2020 devblog's COUNT from the index, 24.58 RU over a 5 GB set, is not a constant seek).
func countIndexReads(q *Query, pl *plan, pol *index.Compiled, src Source, x *execCtx, streamsOrder, postings bool, lk *lookups) (reads []cost.IndexRead, matched int) {
	if len(pl.served) == 0 || src == nil || q.from == nil {
		return nil, 0
	}
	served := pl.classify(q)
	slices_, covered := composites(served, pol)
	if streamsOrder {
		for i, r := range served {
			if r.kind == readEqual {
				covered[i] = true
			}
		}
	}
	single := make([]int, len(served))
	sliced := make([]int, len(slices_))
	match := make([]bool, len(served))
	lv := &level{q: q, x: x, remaining: -1, cap: -1}
	// A document given as stored JSON is decoded as far as the served predicates (and the rows of
	// its FROM and JOINs they run over) read it, not the whole query.
	need := fieldWalker{paths: q.slotPaths, fields: map[string]bool{}}
	need.from(q)
	need.joins(q)
	for _, r := range served {
		need.expr(r.e)
		need.expr(r.probe)
	}
	savedCount := x.countFn
	x.countFn = false
	// A full index scan reads the distinct values of its path (distinct), a value that is not a
	// scalar (an object or array under IS_DEFINED) one entry per document holding it (others).
	distinct := make([]map[any]struct{}, len(served))
	others := make([]int, len(served))
	seeks := []int{}
	for i, r := range served {
		switch r.kind {
		case readScan:
			distinct[i] = map[any]struct{}{}
		case readEqual, readIn:
			seeks = append(seeks, i)
		}
	}
	seekDocs := 0 // documents every seek keeps: the pages a scan beside them is evaluated on
	// matchDoc sets match to the served predicates d satisfies in some row of its FROM and JOINs.
	matchDoc := func(d *Document) {
		clear(match)
		lv.iterFrom(x.bodyWith(d, need.fields, need.whole), func() bool {
			for i, r := range served {
				if r.kind == readScan {
					v := x.eval(r.probe)
					if isUndefined(v) {
						continue
					}
					if k, ok := indexKey(v); ok {
						distinct[i][k] = struct{}{}
					} else if !match[i] {
						others[i]++
					}
					match[i] = true
					continue
				}
				if match[i] {
					continue
				}
				if b, ok := truth(x.eval(r.e)); ok && b {
					match[i] = true
				}
			}
			return x.err == nil
		})
	}
	all := func(members []int) bool {
		for _, i := range members {
			if !match[i] {
				return false
			}
		}
		return true
	}
	every := make([]int, len(served))
	for i := range every {
		every[i] = i
	}
	if countByScan || !countFromLookups(lk.forReads(q, pl, src, x), served, slices_, covered, every, func(list []*Document, fn func()) {
		for _, d := range list {
			matchDoc(d)
			fn()
			if x.err != nil || !x.step() {
				return
			}
		}
	}, func(i int) bool { return match[i] }, all, single, sliced, &matched) {
		src.Scan(func(d *Document) bool {
			matchDoc(d)
			for i := range served {
				if match[i] {
					single[i]++
				}
			}
			if all(every) {
				matched++
			}
			if len(seeks) > 0 && all(seeks) {
				seekDocs++
			}
			for si, s := range slices_ {
				if all(s.members) {
					sliced[si]++
				}
			}
			return x.err == nil && x.step()
		})
	}
	x.countFn = savedCount
	for i, r := range served {
		if covered[i] {
			continue
		}
		idx := ""
		if r.path != nil {
			idx = index.FormatPath(r.path)
		}
		entries := single[i]
		switch r.kind {
		case readEqual, readIn:
			if !postings {
				entries = 0 // a seek: its cost is the seek (IndexLookups), constant per filter
			}
		case readScan:
			entries = len(distinct[i]) + others[i]
			if len(seeks) > 0 {
				entries = min(entries, seekDocs) // the seek first, the scan on its items' pages
			}
		}
		reads = append(reads, cost.IndexRead{Kind: r.kind.String(), Predicate: r.e.String(), Index: idx, Entries: entries})
	}
	for si, s := range slices_ {
		parts := make([]string, len(s.members))
		ranged := false
		for j, i := range s.members {
			parts[j] = served[i].e.String()
			ranged = ranged || served[i].kind == readRange
		}
		entries := sliced[si]
		if !ranged && !postings {
			entries = 0 // a composite of equalities only is a seek
		}
		reads = append(reads, cost.IndexRead{Kind: "composite", Predicate: strings.Join(parts, " AND "),
			Index: strings.Join(s.comp.Specs, ", "), Entries: entries})
	}
	return reads, matched
}

// countByScan makes countIndexReads scan every document in scope, as it did before lookups
// counted: the reference of TestLookupFactsMatchScan. Never set outside tests.
var countByScan bool

// countFromLookups counts what countIndexReads counts over every document in scope from the
// documents each served read's lookup returned (looked[i], nil where it has none): a read matches
// only documents of its own lookup, a composite slice and the intersection of every read only
// documents of any one member's, which is then the one with the fewest. visit runs matchDoc on
// each document of a list, then fn. It returns false, having counted nothing, when a read charged
// on its own, a slice or the intersection has no member with a lookup (the caller scans).
func countFromLookups(looked []*lookup, served []servedRead, slices_ []slice, covered []bool, every []int,
	visit func(list []*Document, fn func()), match func(int) bool, all func([]int) bool, single, sliced []int, matched *int) bool {
	if looked == nil {
		return false
	}
	smallest := func(members []int) int {
		best := -1
		for _, i := range members {
			if looked[i] != nil && (best < 0 || len(looked[i].docs) < len(looked[best].docs)) {
				best = i
			}
		}
		return best
	}
	for i := range served {
		if !covered[i] && looked[i] == nil {
			return false
		}
	}
	sliceFrom := make([]int, len(slices_))
	for si, s := range slices_ {
		if sliceFrom[si] = smallest(s.members); sliceFrom[si] < 0 {
			return false
		}
	}
	allFrom := smallest(every)
	if allFrom < 0 {
		return false
	}
	for i := range served {
		if !covered[i] && looked[i].exact {
			single[i] = len(looked[i].docs)
		} else if !covered[i] {
			visit(looked[i].docs, func() {
				if match(i) {
					single[i]++
				}
			})
		}
	}
	for si, s := range slices_ {
		visit(looked[sliceFrom[si]].docs, func() {
			if all(s.members) {
				sliced[si]++
			}
		})
	}
	visit(looked[allFrom].docs, func() {
		if all(every) {
			*matched++
		}
	})
	return true
}

// lookup is the documents one served read's index lookup returned, in Scan order. exact means
// they are the documents the read matches, no more (a ValueSource's lookup within one type), so
// their number is the read's entries.
type lookup struct {
	docs  []*Document
	exact bool
}

// lookups are the index lookups of an execution's served reads, made once (forReads) and shared by
// the execution (runTop visits the fewest) and the count of index reads.
type lookups struct {
	done   bool
	looked []*lookup
}

// forReads returns, per served read (pl.classify's order), the documents its lookup in src
// returns, nil where src cannot look it up: an equality, IN or range (comparison or BETWEEN)
// between a path outside arrays and scalar constants. The slice is nil when src keeps no index or
// no read has a lookup.
func (lk *lookups) forReads(q *Query, pl *plan, src Source, x *execCtx) []*lookup {
	if lk == nil {
		return nil
	}
	if lk.done {
		return lk.looked
	}
	lk.done = true
	is, _ := src.(IndexedSource)
	if is == nil || len(pl.served) == 0 {
		return nil
	}
	vs, _ := src.(ValueSource)
	out := make([]*lookup, len(pl.served))
	any_ := false
	for i, r := range pl.classify(q) {
		if len(r.path) == 0 || hasElem(r.path) {
			continue
		}
		var docs []*Document
		// A JOIN that yields no row for a document leaves it uncounted: only one row per document
		// makes an exact lookup's number the read's entries.
		ok, exact := false, vs != nil && len(q.joins) == 0 && !q.from.in
		switch e := r.e.(type) {
		case *binary:
			p, c, isPC := pathConst(q, e)
			if !isPC {
				continue
			}
			v, isScalar := indexKey(x.eval(c))
			if !isScalar {
				continue
			}
			op := e.op
			if _, left := pathOf(e.l, q.slotPaths); !left || !isConst(e.r) {
				op = flipOp(op) // constant op path
			}
			switch op {
			case "=":
				docs, ok = is.Lookup(p, v)
			case "<", "<=":
				if vs != nil {
					docs, ok = vs.LookupRange(p, Range{Hi: v, HasHi: true, HiIncl: op == "<="})
				}
			case ">", ">=":
				if vs != nil {
					docs, ok = vs.LookupRange(p, Range{Lo: v, HasLo: true, LoIncl: op == ">="})
				}
			}
		case *between:
			lo, okLo := indexKey(x.eval(e.lo))
			hi, okHi := indexKey(x.eval(e.hi))
			if e.not || !okLo || !okHi || vs == nil {
				continue
			}
			docs, ok = vs.LookupRange(r.path, Range{Lo: lo, Hi: hi, HasLo: true, HasHi: true, LoIncl: true, HiIncl: true})
			exact = jsonorder.Rank(lo) == jsonorder.Rank(hi) // across types the walk is a superset
		case *inExpr:
			if e.not || vs == nil {
				continue
			}
			vals := make([]any, 0, len(e.list))
			scalars := true
			for _, el := range e.list {
				v, ok := indexKey(x.eval(el))
				scalars = scalars && ok
				vals = append(vals, v)
			}
			if !scalars {
				continue
			}
			docs, ok = vs.LookupIn(r.path, vals)
		}
		if x.err != nil {
			return nil
		}
		if ok {
			out[i] = &lookup{docs: docs, exact: exact}
			any_ = true
		}
	}
	if any_ {
		lk.looked = out
	}
	return lk.looked
}

// flipOp is the comparison with its operands swapped.
func flipOp(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// sumEntries is the total of reads' entries (QueryFacts.IndexEntriesRead), and of them the
// distinct values full index scans read (QueryFacts.IndexScanValues: reads of kind "scan").
func sumEntries(reads []cost.IndexRead) (entries, scanValues int) {
	for _, r := range reads {
		entries += r.Entries
		if r.Kind == readScan.String() {
			scanValues += r.Entries
		}
	}
	return entries, scanValues
}

// orderText renders the ORDER BY clause for an index read.
func orderText(q *Query) string {
	parts := make([]string, len(q.orderBy))
	for i, o := range q.orderBy {
		parts[i] = o.e.String()
		if o.desc {
			parts[i] += " DESC"
		}
	}
	return "ORDER BY " + strings.Join(parts, ", ")
}

// orderIndex names the index an ORDER BY walks: its single path, or the composite index of the
// equality paths and the ORDER BY paths.
func orderIndex(pol *index.Compiled, pl *plan, order []index.OrderItem) string {
	if len(pl.eqPaths) == 0 && len(order) == 1 {
		return index.FormatPath(order[0].Path)
	}
	want := appendNewPaths(nil, append(dropPaths(pl.eqPaths, order), order...))
	for _, comp := range pol.Composites() {
		if len(comp.Paths) != len(want) {
			continue
		}
		same := true
		for i := range want {
			same = same && slices.Equal(comp.Paths[i], want[i].Path)
		}
		if same {
			return strings.Join(comp.Specs, ", ")
		}
	}
	return strings.Join(compositeSpecs(want), ", ")
}
