package sql

import (
	"fmt"

	"github.com/cosmosdv/validate/internal/engine/index"
)

// binder resolves identifiers to slots of the row environment, looks up functions, collects
// aggregates and checks the rules the service enforces before execution.
type binder struct {
	text      string
	next      int
	slotPaths map[int][]string
}

type scopeEntry struct {
	name string
	slot int
}

func (b *binder) errAt(pos int, code, msg string) error {
	return errAt(b.text, pos, pos, code, msg)
}

func (b *binder) bindQuery(q *Query, outer []scopeEntry) error {
	scope := append([]scopeEntry(nil), outer...)
	if f := q.from; f != nil {
		if !q.sub {
			src, err := b.rootify(f.src)
			if err != nil {
				return err
			}
			f.src = src
		} else if err := b.bindExpr(q, f.src, scope, false); err != nil {
			return err
		}
		f.slot = b.next
		b.next++
		if p, ok := b.exprPath(f.src); ok {
			if f.in {
				p = append(p, index.ArrayElem)
			}
			b.slotPaths[f.slot] = p
		}
		scope = append(scope, scopeEntry{f.alias, f.slot})
	}
	for i := range q.joins {
		j := &q.joins[i]
		if j.sub != nil {
			if err := b.bindQuery(j.sub, scope); err != nil {
				return err
			}
		} else {
			if err := b.bindExpr(q, j.src, scope, false); err != nil {
				return err
			}
		}
		j.slot = b.next
		b.next++
		if j.src != nil {
			if p, ok := b.exprPath(j.src); ok {
				b.slotPaths[j.slot] = append(p, index.ArrayElem)
			}
		}
		scope = append(scope, scopeEntry{j.alias, j.slot})
	}
	if q.star {
		if q.from == nil {
			return errPlain("SC2020", "'SELECT *' is not valid if FROM clause is omitted.")
		}
		if len(q.joins) > 0 {
			return errPlain("SC2021", "'SELECT *' is only valid with a single input set.")
		}
	}
	if q.where != nil {
		if err := b.bindExpr(q, q.where, scope, false); err != nil {
			return err
		}
		q.conjuncts = splitAnd(q.where, nil)
	}
	unnamed := 0
	seen := map[string]bool{}
	for i := range q.items {
		it := &q.items[i]
		if err := b.bindExpr(q, it.e, scope, true); err != nil {
			return err
		}
		if q.value {
			continue
		}
		if it.alias == "" {
			switch e := it.e.(type) {
			case *member:
				it.alias = e.name
			case *ident:
				it.alias = e.name
			default:
				unnamed++
				it.alias = fmt.Sprintf("$%d", unnamed)
			}
		}
		if seen[it.alias] {
			return errPlain("SC2022", "Duplicate alias '%s' in the SELECT list.", it.alias)
		}
		seen[it.alias] = true
	}
	for _, g := range q.groupBy {
		if err := b.bindExpr(q, g, scope, false); err != nil {
			return err
		}
	}
	for _, o := range q.orderBy {
		if err := b.bindExpr(q, o.e, scope, false); err != nil {
			return err
		}
	}
	if len(q.groupBy) > 0 && len(q.orderBy) > 0 {
		return errPlain("SC2030", "ORDER BY is not supported together with GROUP BY.")
	}
	if len(q.groupBy) > 0 || len(q.aggs) > 0 {
		if q.star {
			return errPlain("SC2031", "'SELECT *' is not valid with GROUP BY or aggregate functions.")
		}
		keys := map[string]bool{}
		for _, g := range q.groupBy {
			keys[g.String()] = true
		}
		for _, it := range q.items {
			if bad := ungrouped(it.e, keys); bad != "" {
				return errPlain("SC2102", "Property reference '%s' is invalid in the select list because it is not contained in either an aggregate function or the GROUP BY clause.", bad)
			}
		}
	}
	return nil
}

// ungrouped returns the first reference in e that is neither a GROUP BY expression nor inside an
// aggregate, or "".
func ungrouped(e expr, keys map[string]bool) string {
	if keys[e.String()] {
		return ""
	}
	if _, isRef := refRoot(e); isRef {
		if _, bare := e.(*ident); !bare {
			return e.String()
		}
	}
	switch x := e.(type) {
	case *ident:
		return x.name
	case *call:
		if x.agg > 0 {
			return ""
		}
	case *subquery:
		return "" // correlated subqueries over group keys are evaluated on the group's first row
	}
	for _, c := range children(e) {
		if bad := ungrouped(c, keys); bad != "" {
			return bad
		}
	}
	return ""
}

// refRoot reports whether e is a property path from an alias.
func refRoot(e expr) (*ident, bool) {
	for {
		switch x := e.(type) {
		case *member:
			e = x.x
		case *indexExpr:
			e = x.x
		case *ident:
			return x, true
		default:
			return nil, false
		}
	}
}

// children returns e's direct sub-expressions (not those of subqueries).
func children(e expr) []expr {
	switch x := e.(type) {
	case *member:
		return []expr{x.x}
	case *indexExpr:
		return []expr{x.x, x.idx}
	case *unary:
		return []expr{x.x}
	case *binary:
		return []expr{x.l, x.r}
	case *between:
		return []expr{x.x, x.lo, x.hi}
	case *inExpr:
		return append([]expr{x.x}, x.list...)
	case *likeExpr:
		if x.escape != nil {
			return []expr{x.x, x.pattern, x.escape}
		}
		return []expr{x.x, x.pattern}
	case *ternary:
		return []expr{x.cond, x.then, x.els}
	case *call:
		return x.args
	case *arrayLit:
		return x.elems
	case *objectLit:
		return x.vals
	}
	return nil
}

// rootify turns the leading identifier of a top-level FROM source into the container root.
func (b *binder) rootify(e expr) (expr, error) {
	switch x := e.(type) {
	case *ident:
		return &root{name: x.name}, nil
	case *member:
		inner, err := b.rootify(x.x)
		if err != nil {
			return nil, err
		}
		return &member{x: inner, name: x.name, pos: x.pos}, nil
	case *indexExpr:
		inner, err := b.rootify(x.x)
		if err != nil {
			return nil, err
		}
		if err := b.bindExpr(nil, x.idx, nil, false); err != nil {
			return nil, err
		}
		return &indexExpr{x: inner, idx: x.idx}, nil
	}
	return nil, errPlain("SC1001", "Syntax error, the FROM clause must name the container or a path in it.")
}

// exprPath returns the document path e stands for, if it is a property path.
func (b *binder) exprPath(e expr) ([]string, bool) {
	return pathOf(e, b.slotPaths)
}

func pathOf(e expr, slotPaths map[int][]string) ([]string, bool) {
	switch x := e.(type) {
	case *root:
		return []string{}, true
	case *ident:
		p, ok := slotPaths[x.slot]
		if !ok {
			return nil, false
		}
		return append([]string(nil), p...), true
	case *member:
		p, ok := pathOf(x.x, slotPaths)
		if !ok {
			return nil, false
		}
		return append(p, x.name), true
	case *indexExpr:
		p, ok := pathOf(x.x, slotPaths)
		if !ok {
			return nil, false
		}
		if lit, ok := x.idx.(*literal); ok {
			if _, isNum := lit.val.(float64); isNum {
				return append(p, index.ArrayElem), true
			}
		}
	}
	return nil, false
}

func (b *binder) bindExpr(q *Query, e expr, scope []scopeEntry, allowAgg bool) error {
	return b.walk(q, e, scope, allowAgg, false)
}

func (b *binder) walk(q *Query, e expr, scope []scopeEntry, allowAgg, inAgg bool) error {
	switch x := e.(type) {
	case *ident:
		for i := len(scope) - 1; i >= 0; i-- {
			if scope[i].name == x.name {
				x.slot = scope[i].slot
				return nil
			}
		}
		return b.errAt(x.pos, "SC2001", fmt.Sprintf("Identifier '%s' could not be resolved.", x.name))
	case *subquery:
		return b.bindQuery(x.q, scope)
	case *call:
		if x.udf {
			return b.errAt(x.pos, "SC2005", fmt.Sprintf("User-defined function 'udf.%s' is not supported by this engine.", x.name))
		}
		fn, ok := builtins[x.name]
		if !ok {
			return b.errAt(x.pos, "SC2005", fmt.Sprintf("'%s' is not a recognized built-in function name.", x.name))
		}
		if len(x.args) < fn.min || (fn.max >= 0 && len(x.args) > fn.max) {
			return b.errAt(x.pos, "SC2050", fmt.Sprintf("The %s function requires %s argument(s).", fn.name, arity(fn)))
		}
		x.fn = fn
		if fn.agg {
			if inAgg {
				return b.errAt(x.pos, "SC2103", fmt.Sprintf("Aggregate function '%s' cannot be nested in another aggregate.", fn.name))
			}
			if !allowAgg || q == nil {
				return b.errAt(x.pos, "SC2101", fmt.Sprintf("Aggregate function '%s' is not allowed here; aggregates may appear only in the SELECT list.", fn.name))
			}
			q.aggs = append(q.aggs, x)
			x.agg = len(q.aggs)
			for _, a := range x.args {
				if err := b.walk(q, a, scope, true, true); err != nil {
					return err
				}
			}
			return nil
		}
	case *likeExpr:
		defer func() {
			if lp, ok := x.pattern.(*literal); ok {
				pat, ok1 := lp.val.(string)
				esc, ok2 := "", true
				if x.escape != nil {
					le, isLit := x.escape.(*literal)
					esc, ok2 = "", false
					if isLit {
						esc, ok2 = le.val.(string)
					}
				}
				if ok1 && ok2 {
					x.re = compileLike(pat, esc)
				}
			}
		}()
	}
	for _, c := range children(e) {
		if err := b.walk(q, c, scope, allowAgg, inAgg); err != nil {
			return err
		}
	}
	return nil
}

func arity(fn *builtin) string {
	switch {
	case fn.max == fn.min:
		return fmt.Sprint(fn.min)
	case fn.max < 0:
		return fmt.Sprintf("at least %d", fn.min)
	}
	return fmt.Sprintf("%d to %d", fn.min, fn.max)
}

// splitAnd flattens the top-level AND conjuncts of e. A literal true conjunct filters nothing (WHERE
// keeps a row when the whole filter is true, and x AND true is true exactly when x is), so it is
// left out: the SDKs' ORDER BY rewrite puts "(true) AND (filter)" in every range's query, and the
// planner must see the filter alone to use the index that serves it.
func splitAnd(e expr, out []expr) []expr {
	if b, ok := e.(*binary); ok && b.op == "AND" {
		out = splitAnd(b.l, out)
		return splitAnd(b.r, out)
	}
	if l, ok := e.(*literal); ok && l.val == true {
		return out
	}
	return append(out, e)
}
