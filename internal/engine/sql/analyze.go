package sql

import (
	"errors"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/index"
)

// Analysis is what a parsed query and a container's indexing policy say about an execution before
// any document is read: which WHERE predicates the index serves (the decision Execute's planner
// makes), how ORDER BY is served, and the clauses that shape the result. A planner without data
// (validate plan) reads it instead of re-deriving the rules.
type Analysis struct {
	// Shape is the query's clauses, as Query.Shape reports them.
	Shape Shape
	// Filters are the top-level AND-ed predicates of WHERE, in query order.
	Filters []Filter
	// Narrowing reports that the index serves at least one filter: only the documents matching the
	// served filters are loaded.
	Narrowing bool
	// FullScan reports that WHERE has filters but the index serves none of them: every document in
	// scope is loaded and evaluated.
	FullScan bool
	// IndexLookups is the number of index seeks Execute counts: one per served comparison, one per
	// IN value, plus one for ORDER BY.
	IndexLookups int
	// Unindexed are the paths that filters compare but the policy does not index, each once.
	Unindexed [][]string
	// Functions are the system functions (one entry per call) in filters the index does not serve:
	// they run on every loaded document, like UPPER in UPPER(c.name) = "X".
	Functions []string
	// OrderBy are the ORDER BY items that map to document paths.
	OrderBy []index.OrderItem
	// SearchSort is an ORDER BY of a search score (RANK, VectorDistance): sorted in memory.
	SearchSort bool
	// OrderByErr is the 400 the service answers for this ORDER BY under the policy:
	// *MissingCompositeIndexError, *ExcludedOrderByError, or *Error when an item is not a document
	// path. It is nil when the ORDER BY can run (or there is none).
	OrderByErr error
	// OrderStreams reports that the index returns the matching documents already in ORDER BY order.
	// With an ORDER BY and OrderStreams false, the matching documents are sorted in memory.
	OrderStreams bool
	// Top is the n of TOP n, or -1 when there is no TOP or its count is a parameter.
	Top int
	// Aggregates are the aggregate functions of the SELECT list (COUNT, SUM, ...), one per call.
	Aggregates []string
	// IndexOnlyAggregate reports that the index answers the aggregates alone (aggindex.go): no
	// document is loaded; the entries of each of AggregatePaths for the matching documents are read.
	IndexOnlyAggregate bool
	AggregatePaths     [][]string
	// Joins are the JOIN clauses, in query order.
	Joins []Join
	// FromIn is the array that FROM alias IN path iterates (from the document root), nil when FROM
	// names the documents: each element is a row, as a JOIN's are.
	FromIn []string
	// SortCalls and ItemCalls are the system functions called in ORDER BY (RANK included) and in
	// the SELECT list: evaluated on every row an in-memory sort keeps, on every result otherwise.
	SortCalls, ItemCalls []string
	// GroupPaths are the document paths of the GROUP BY expressions that are paths (a computed
	// grouping key has none): the estimator counts the groups from their distinct values.
	GroupPaths [][]string
	// Projection is what SELECT returns.
	Projection Projection
	// CompositeSlices are the composite indexes that serve a range filter with the equality filters
	// leading it (indexreads.go's composites): each is the indexes into Filters of its members,
	// which it reads as one slice, the documents matching them all.
	CompositeSlices [][]int
	// TypeLiteral is the string that an equality filter compares with a type-like property (see
	// TypeLikeNames), "" when there is none; TypePath is that property.
	TypeLiteral string
	TypePath    []string
}

// FilterKind classifies a WHERE predicate.
type FilterKind int

// Filter kinds. Only a predicate between a document path and constants gets a kind other than
// FilterOther.
const (
	// FilterOther is any predicate that is not one of the shapes below (OR, NOT, a comparison of two
	// paths, a function around the path, ...).
	FilterOther FilterKind = iota
	// FilterEqual is "path = constant".
	FilterEqual
	// FilterIn is "path IN (constants...)".
	FilterIn
	// FilterRange is "path < constant" (<, <=, >, >=, !=) or "path BETWEEN constant AND constant".
	FilterRange
	// FilterFunction is a system function on a path with constant arguments, such as
	// STARTSWITH(c.name, "a") or ARRAY_CONTAINS(c.tags, @t).
	FilterFunction
)

// String names the kind as the service's documentation would: "equality", "in", "range",
// "function" or "other".
func (k FilterKind) String() string {
	switch k {
	case FilterEqual:
		return "equality"
	case FilterIn:
		return "in"
	case FilterRange:
		return "range"
	case FilterFunction:
		return "function"
	}
	return "other"
}

// Filter is one top-level AND-ed predicate of WHERE.
type Filter struct {
	// Text is the predicate in query syntax, as index metrics name it.
	Text string
	Kind FilterKind
	// Path is the document path the predicate tests (property names, "[]" for an array element),
	// for every kind but FilterOther. ARRAY_CONTAINS tests the elements: its path ends in "[]".
	Path []string
	// Literal is the constant of a FilterEqual when it is a literal (string, number, bool or nil;
	// HasLiteral tells nil from none); Param is the parameter name ("@x") when it is a parameter.
	Literal    any
	HasLiteral bool
	Param      string
	// Op is the comparison of a FilterRange as if the path were on the left ("<", "<=", ">", ">=",
	// "!=") or "BETWEEN", "NOT BETWEEN"; "IN" or "NOT IN" for a FilterIn.
	Op string
	// Values are the constants of a FilterRange (one bound, or BETWEEN's two), a FilterIn (the
	// list) or a FilterFunction (the arguments after the path; ARRAY_CONTAINS's element alone), in
	// order; each is a literal's value, or a Param for a parameter. Values is nil when a constant is
	// neither (an array, an object, an expression).
	Values []any
	// Function is the system function of a FilterFunction, e.g. "ARRAY_CONTAINS".
	Function string
	// Served reports that the index serves the predicate.
	Served bool
}

// Join is one JOIN clause.
type Join struct {
	Alias string
	// Path is the array the JOIN iterates (from the document root); nil for a subquery or an
	// expression that is not a document path.
	Path     []string
	Subquery bool
}

// ProjectionKind is the form of a SELECT list.
type ProjectionKind int

// Projection kinds.
const (
	// ProjectStar is SELECT *: the whole document.
	ProjectStar ProjectionKind = iota
	// ProjectValue is SELECT VALUE expr: the bare value of one expression.
	ProjectValue
	// ProjectList is SELECT expr [AS name], ...: an object of the listed properties.
	ProjectList
)

// Projection is what a query's SELECT returns.
type Projection struct {
	Kind ProjectionKind
	// Items are the projected expressions (one for ProjectValue, none for ProjectStar).
	Items []Projected
}

// Projected is one expression of a SELECT list.
type Projected struct {
	// Name is the property name in the result (explicit alias or derived); "" for SELECT VALUE.
	Name string
	// Path is the document path of the expression when IsPath (an empty Path is the whole document,
	// as in SELECT VALUE c).
	Path   []string
	IsPath bool
	// Aggregate reports that the expression contains an aggregate function.
	Aggregate bool
	// Object and Array report an object literal ({"a": c.x}) or an array literal ([c.x]), whose
	// Members are its properties (each with its Name) or its elements, projected in turn: the
	// shapes of a cross-partition rewrite (orderByItems, payload, groupByItems, aggregate partials).
	Object, Array bool
	Members       []Projected
}

// TypeLikeNames are the property names (lower case, "_" and "-" removed) whose equality with a string
// literal Analyze reports as TypeLiteral: the usual names of a document-type discriminator.
var TypeLikeNames = []string{"type", "doctype", "documenttype", "entitytype", "itemtype", "recordtype", "kind"}

// Analyze reads q against the indexing policy pol (nil = everything indexed) with the planner Execute
// uses, without documents. A nil q gives an empty Analysis.
func Analyze(q *Query, pol *index.Compiled) Analysis { return AnalyzeWith(q, pol, nil, nil) }

// AnalyzeWith is Analyze under the rule selection rules (cost.Rules; nil = defaults) for a
// container whose partition-key paths are pk (nil = none known), as Execute reads them from its
// Options: the estimator reads a query with the alternatives the engine executes.
func AnalyzeWith(q *Query, pol *index.Compiled, rules *cost.Selection, pk [][]string) Analysis {
	a := Analysis{Top: -1}
	if q == nil {
		return a
	}
	a.Shape = q.Shape()
	for _, it := range q.orderBy {
		a.SortCalls = appendCalls(a.SortCalls, it.e)
	}
	for _, it := range q.items {
		a.ItemCalls = appendCalls(a.ItemCalls, it.e)
	}
	for _, e := range q.groupBy {
		if p, ok := pathOf(e, q.slotPaths); ok {
			a.GroupPaths = append(a.GroupPaths, p)
		}
	}
	pl := buildPlan(q, pol)
	a.Narrowing, a.FullScan, a.IndexLookups = pl.narrowing, pl.fullScan, pl.lookups

	for _, c := range q.conjuncts {
		f := describeFilter(q, c)
		f.Served = slices.Contains(pl.served, c)
		if !f.Served {
			a.Functions = appendCalls(a.Functions, c)
		}
		if f.Kind == FilterEqual && a.TypeLiteral == "" && len(f.Path) > 0 {
			if s, ok := f.Literal.(string); ok && isTypeLike(f.Path[len(f.Path)-1]) {
				a.TypeLiteral, a.TypePath = s, f.Path
			}
		}
		a.Filters = append(a.Filters, f)
	}
	reads := pl.classify(q)
	sl, _ := composites(reads, pol)
	for _, one := range sl {
		var members []int
		ranged := false
		for _, i := range one.members {
			members = append(members, slices.Index(q.conjuncts, pl.served[i]))
			ranged = ranged || reads[i].kind == readRange
		}
		if ranged && !slices.Contains(members, -1) {
			a.CompositeSlices = append(a.CompositeSlices, members)
		}
	}
	for _, m := range pl.missing {
		if !slices.ContainsFunc(a.Unindexed, func(p []string) bool { return slices.Equal(p, m.path) }) {
			a.Unindexed = append(a.Unindexed, m.path)
		}
	}

	order, err := checkOrderBy(q, pol)
	a.OrderByErr = err
	var missing *MissingCompositeIndexError
	var excluded *ExcludedOrderByError
	switch {
	case err == nil:
		a.OrderBy = order
		a.OrderStreams = len(order) > 0 && pl.orderStreams(q, pol, order)
		pkEq := pl.pkOrderPaths(pol, order, rules, pk)
		if len(order) > 0 && q.where != nil && planStream(q, pl, pol, order, a.OrderStreams, pkEq) != nil {
			// A filter on the ORDER BY path, or one the index does not serve, read or evaluated
			// along the walk in order (ordered.go): Execute walks it whatever the source.
			a.OrderStreams = true
		}
	case errors.As(err, &missing):
		a.OrderBy = missing.Items
	case errors.As(err, &excluded):
		a.OrderBy = []index.OrderItem{excluded.Item}
	}
	if len(q.orderBy) > 0 {
		a.IndexLookups++
	}
	a.SearchSort = len(q.orderBy) == 1 && isRankable(q.orderBy[0])

	if lit, ok := q.top.(*literal); ok {
		if n, ok := lit.val.(float64); ok {
			a.Top = int(n)
		}
	}
	for _, agg := range q.aggs {
		a.Aggregates = append(a.Aggregates, agg.fn.name)
	}
	if reads, ok := indexOnlyAggregate(q, pl, pol, rules); ok {
		a.IndexOnlyAggregate = true
		for _, r := range reads {
			a.AggregatePaths = append(a.AggregatePaths, r.path)
		}
	}
	if q.from != nil && q.from.in {
		if p := q.slotPaths[q.from.slot]; len(p) > 0 && p[len(p)-1] == index.ArrayElem {
			a.FromIn = slices.Clone(p[:len(p)-1])
		}
	}
	for _, j := range q.joins {
		jn := Join{Alias: j.alias, Subquery: j.sub != nil}
		if j.src != nil {
			if p, ok := pathOf(j.src, q.slotPaths); ok {
				jn.Path = p
			}
		}
		a.Joins = append(a.Joins, jn)
	}
	a.Projection = projection(q)
	return a
}

// describeFilter classifies one conjunct the way the planner's servability check reads it.
func describeFilter(q *Query, c expr) Filter {
	f := Filter{Text: c.String()}
	switch x := c.(type) {
	case *binary:
		p, val, ok := pathConst(q, x)
		if !ok {
			return f
		}
		switch x.op {
		case "=":
			f.Kind = FilterEqual
			switch v := val.(type) {
			case *literal:
				if !isUndefined(v.val) {
					f.Literal, f.HasLiteral = v.val, true
				}
			case *param:
				f.Param = v.name
			}
		case "!=", "<", ">", "<=", ">=":
			f.Kind, f.Op = FilterRange, x.op
			if pl, ok := pathOf(x.l, q.slotPaths); !ok || !slices.Equal(pl, p) {
				f.Op = flipped[x.op] // constant < path reads as path > constant
			}
			f.Values = constValues(val)
		default:
			return f
		}
		f.Path = p
	case *between:
		if p, ok := pathOf(x.x, q.slotPaths); ok && isConst(x.lo) && isConst(x.hi) {
			f.Kind, f.Path, f.Op = FilterRange, p, "BETWEEN"
			if x.not {
				f.Op = "NOT BETWEEN"
			}
			f.Values = constValues(x.lo, x.hi)
		}
	case *inExpr:
		p, ok := pathOf(x.x, q.slotPaths)
		if ok && !slices.ContainsFunc(x.list, func(e expr) bool { return !isConst(e) }) {
			f.Kind, f.Path, f.Op = FilterIn, p, "IN"
			if x.not {
				f.Op = "NOT IN"
			}
			f.Values = constValues(x.list...)
		}
	case *call:
		if x.fn == nil || x.fn.agg || len(x.args) == 0 {
			return f
		}
		p, ok := pathOf(x.args[0], q.slotPaths)
		if !ok || slices.ContainsFunc(x.args[1:], func(e expr) bool { return !isConst(e) }) {
			return f
		}
		if strings.HasPrefix(x.fn.name, "ARRAY_CONTAINS") {
			p = append(p, index.ArrayElem)
			switch {
			case len(x.args) < 2:
			case x.fn.name == "ARRAY_CONTAINS":
				f.Values = constValues(x.args[1]) // the element looked for (not the partial-match flag)
			default:
				f.Values = constValues(x.args[1:]...) // _ANY, _ALL: every element looked for
			}
		} else {
			f.Values = constValues(x.args[1:]...) // the term, prefix or substring, and options
		}
		f.Kind, f.Path, f.Function = FilterFunction, p, x.fn.name
	}
	return f
}

// Param names a query parameter among a Filter's Values.
type Param string

// flipped is the comparison with its operands swapped.
var flipped = map[string]string{"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!="}

// constValues is the values of constant expressions: a literal's value or a Param; nil when one is
// neither.
func constValues(es ...expr) []any {
	out := make([]any, 0, len(es))
	for _, e := range es {
		switch v := e.(type) {
		case *literal:
			if isUndefined(v.val) {
				return nil
			}
			out = append(out, v.val)
		case *param:
			out = append(out, Param(v.name))
		default:
			return nil
		}
	}
	return out
}

// appendCalls appends the names of the system functions e calls (not inside subqueries).
func appendCalls(dst []string, e expr) []string {
	if c, ok := e.(*call); ok && c.fn != nil && !c.fn.agg {
		dst = append(dst, c.fn.name)
	}
	for _, ch := range children(e) {
		dst = appendCalls(dst, ch)
	}
	return dst
}

func isTypeLike(name string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
	return slices.Contains(TypeLikeNames, n)
}

func projection(q *Query) Projection {
	switch {
	case q.star:
		return Projection{Kind: ProjectStar}
	case q.value:
		pr := Projection{Kind: ProjectValue}
		for _, it := range q.items {
			pr.Items = append(pr.Items, projected(q, it.e, ""))
		}
		return pr
	}
	pr := Projection{Kind: ProjectList}
	for _, it := range q.items {
		pr.Items = append(pr.Items, projected(q, it.e, it.alias))
	}
	return pr
}

func projected(q *Query, e expr, name string) Projected {
	p, ok := pathOf(e, q.slotPaths)
	if ok && p == nil {
		p = []string{} // the document itself
	}
	pr := Projected{Name: name, Path: p, IsPath: ok, Aggregate: hasAggregate(e)}
	switch x := e.(type) {
	case *objectLit:
		pr.Object = true
		for i, k := range x.keys {
			pr.Members = append(pr.Members, projected(q, x.vals[i], k))
		}
	case *arrayLit:
		pr.Array = true
		for _, el := range x.elems {
			pr.Members = append(pr.Members, projected(q, el, ""))
		}
	}
	return pr
}

func hasAggregate(e expr) bool {
	if c, ok := e.(*call); ok && c.agg > 0 {
		return true
	}
	return slices.ContainsFunc(children(e), hasAggregate)
}
