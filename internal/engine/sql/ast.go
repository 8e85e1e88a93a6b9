package sql

import (
	"encoding/json"
	"strconv"
	"strings"
)

// expr is a node of a scalar expression.
type expr interface {
	// String renders the expression in query syntax (used for index metrics and GROUP BY matching).
	String() string
}

type literal struct{ val any } // val may be undefined

type param struct{ name string }

// ident is a reference to an alias, resolved at bind time to a slot of the row environment.
type ident struct {
	name string
	pos  int
	slot int
}

// root is the container itself in a top-level FROM (e.g. the "c" of "FROM x IN c.tags").
type root struct{ name string }

type member struct {
	x    expr
	name string
	// pos is the byte offset of the property name in the query text (of the string literal for
	// c["name"]).
	pos int
}

type indexExpr struct {
	x   expr
	idx expr
}

type unary struct {
	op string
	x  expr
}

type binary struct {
	op   string
	l, r expr
}

type between struct {
	x, lo, hi expr
	not       bool
}

type inExpr struct {
	x    expr
	list []expr
	not  bool
}

type likeExpr struct {
	x, pattern, escape expr
	not                bool
	// re caches the compiled pattern when pattern (and escape) are literals.
	re *likeMatcher
}

type ternary struct{ cond, then, els expr }

type call struct {
	name string // upper case
	args []expr
	udf  bool
	pos  int
	fn   *builtin
	agg  int // aggregate slot + 1, 0 for a scalar function
}

type arrayLit struct{ elems []expr }

type objectLit struct {
	keys []string
	vals []expr
}

type subKind int

const (
	subScalar subKind = iota
	subExists
	subArray
)

type subquery struct {
	q    *Query
	kind subKind
}

func (l *literal) String() string { return formatLiteral(l.val) }
func (p *param) String() string   { return p.name }
func (i *ident) String() string   { return i.name }
func (r *root) String() string    { return r.name }
func (m *member) String() string  { return m.x.String() + "." + m.name }
func (x *indexExpr) String() string {
	return x.x.String() + "[" + x.idx.String() + "]"
}
func (u *unary) String() string {
	if u.op == "NOT" {
		return "(NOT " + u.x.String() + ")"
	}
	return "(" + u.op + u.x.String() + ")"
}
func (b *binary) String() string { return "(" + b.l.String() + " " + b.op + " " + b.r.String() + ")" }
func (b *between) String() string {
	not := ""
	if b.not {
		not = "NOT "
	}
	return "(" + b.x.String() + " " + not + "BETWEEN " + b.lo.String() + " AND " + b.hi.String() + ")"
}
func (x *inExpr) String() string {
	parts := make([]string, len(x.list))
	for i, e := range x.list {
		parts[i] = e.String()
	}
	not := ""
	if x.not {
		not = "NOT "
	}
	return "(" + x.x.String() + " " + not + "IN (" + strings.Join(parts, ", ") + "))"
}
func (l *likeExpr) String() string {
	not := ""
	if l.not {
		not = "NOT "
	}
	s := "(" + l.x.String() + " " + not + "LIKE " + l.pattern.String()
	if l.escape != nil {
		s += " ESCAPE " + l.escape.String()
	}
	return s + ")"
}
func (t *ternary) String() string {
	return "(" + t.cond.String() + " ? " + t.then.String() + " : " + t.els.String() + ")"
}
func (c *call) String() string {
	parts := make([]string, len(c.args))
	for i, e := range c.args {
		parts[i] = e.String()
	}
	name := c.name
	if c.fn != nil {
		name = c.fn.name
	}
	if c.udf {
		name = "udf." + name
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}
func (a *arrayLit) String() string {
	parts := make([]string, len(a.elems))
	for i, e := range a.elems {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
func (o *objectLit) String() string {
	parts := make([]string, len(o.keys))
	for i, k := range o.keys {
		parts[i] = strconv.Quote(k) + ": " + o.vals[i].String()
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
func (s *subquery) String() string {
	switch s.kind {
	case subExists:
		return "EXISTS(" + s.q.text + ")"
	case subArray:
		return "ARRAY(" + s.q.text + ")"
	}
	return "(" + s.q.text + ")"
}

func formatLiteral(v any) string {
	if isUndefined(v) {
		return "undefined"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "undefined"
	}
	return string(b)
}

// selectItem is one projection of a SELECT list.
type selectItem struct {
	e     expr
	text  string // the expression as written
	alias string // explicit alias or derived property name ("$1" for unnamed)
}

// fromClause is the FROM of a query: alias iterates over src (evaluated per input document for a
// top-level query, in the outer row for a subquery), over its elements when in is set.
type fromClause struct {
	alias string
	src   expr
	in    bool
	slot  int
}

// joinClause is one JOIN: alias iterates over the elements of src, or over the results of sub.
type joinClause struct {
	alias string
	src   expr
	sub   *Query
	slot  int
}

type orderItem struct {
	e    expr
	text string // the expression as written
	desc bool
	rank bool // ORDER BY RANK: by relevance, most relevant first (search.go)
}

// Query is a parsed, bound query. It is immutable after Parse and safe for concurrent Execute calls.
type Query struct {
	text     string
	distinct bool
	top      expr
	value    bool
	star     bool
	items    []selectItem
	from     *fromClause
	joins    []joinClause
	where    expr
	groupBy  []expr
	orderBy  []orderItem
	offset   expr
	limit    expr
	// nslots is the size of the row environment of the outermost query (all nested levels).
	nslots int
	// aggs are the aggregate calls of this level (SELECT list), indexed by call.agg-1.
	aggs []*call
	// params are the parameter names used anywhere in the query.
	params map[string]bool
	// slotPaths maps a slot to the document path its alias stands for (nil when it is not a path).
	slotPaths map[int][]string
	// conjuncts are the top-level AND-ed predicates of WHERE.
	conjuncts []expr
	sub       bool
	// orderByAt is the byte offset of the first ORDER BY item in text.
	orderByAt int
	// spans are the clauses as written, for the cross-partition rewrite (xpart.go).
	spans querySpans
	// fields and whole are what an execution reads of a stored document (docFields); walkFields
	// and walkWhole what an ordered walk reads of it (walkFields).
	fields, walkFields map[string]bool
	whole, walkWhole   bool
}

// querySpans keeps the text of the clauses a cross-partition plan rewrites around.
type querySpans struct {
	list    string // the projection: "*", "VALUE e" or the items with their aliases
	listEnd int
	from    string // "FROM ... [JOIN ...]"
	where   string // the WHERE condition
	groupBy []string
}

// Text returns the query text as given to Parse.
func (q *Query) Text() string { return q.text }

// Shape reports the query's clauses.
func (q *Query) Shape() Shape {
	if q == nil {
		return Shape{}
	}
	return Shape{
		Top:         q.top != nil,
		OffsetLimit: q.offset != nil || q.limit != nil,
		Distinct:    q.distinct,
		GroupBy:     len(q.groupBy) > 0,
		Aggregate:   len(q.aggs) > 0,
		Value:       q.value,
		OrderBy:     len(q.orderBy),
	}
}

// Params returns the parameter names ("@name") the query references, sorted.
func (q *Query) Params() []string {
	out := make([]string, 0, len(q.params))
	for p := range q.params {
		out = append(out, p)
	}
	sortStrings(out)
	return out
}
