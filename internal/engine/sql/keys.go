package sql

import "slices"

// KeyEqualities reports, for each of the given document paths (the partition-key paths, as property
// names from the root, e.g. ["tenantId"] or ["address","city"]), the scalar values that the WHERE
// clause fixes for it through a top-level AND-ed predicate: "path = constant" (either side),
// "path IN (constants...)", or several of them (their values intersected).
//
// The result has one entry per path: nil when WHERE does not pin that path, otherwise the distinct
// values the path may take, in first-seen order. An empty, non-nil entry means the predicates
// contradict each other (no document can match). Constants are literals, parameters (looked up in
// params, "@name" keys) and negated numbers; only strings, numbers, booleans and null count, since
// objects and arrays cannot be partition-key values.
//
// The engine uses this to route a query whose partition key sits in WHERE rather than in the
// request header, as the service's gateway does.
func (q *Query) KeyEqualities(paths [][]string, params map[string]any) [][]any {
	out := make([][]any, len(paths))
	if q == nil {
		return out
	}
	for _, c := range q.conjuncts {
		path, vals, ok := q.keyPredicate(c, params)
		if !ok {
			continue
		}
		for i, p := range paths {
			if !slices.Equal(p, path) {
				continue
			}
			if out[i] == nil {
				out[i] = vals
			} else {
				out[i] = intersectScalars(out[i], vals)
			}
		}
	}
	return out
}

// SingleKey reports the one full key WHERE pins: every path fixed to exactly one value by
// KeyEqualities' rules. It is how the gateway tells a query that reads one logical partition from
// a cross-partition one when the request carries no key (azcosmos v1.5.0, NewQueryItemsPager: a
// query that filters on only some of the key paths is a cross-partition query).
func (q *Query) SingleKey(paths [][]string, params map[string]any) ([]any, bool) {
	eq := q.KeyEqualities(paths, params)
	key := make([]any, len(eq))
	for i, vs := range eq {
		if len(vs) != 1 {
			return nil, false
		}
		key[i] = vs[0]
	}
	return key, len(key) > 0
}

// keyPredicate matches "path = const", "const = path" and "path IN (consts)". ok is false for any
// other shape, or when a constant is not a scalar (the predicate then pins nothing for routing).
func (q *Query) keyPredicate(e expr, params map[string]any) (path []string, vals []any, ok bool) {
	switch x := e.(type) {
	case *binary:
		if x.op != "=" {
			return nil, nil, false
		}
		p, c, ok := pathConst(q, x)
		if !ok {
			return nil, nil, false
		}
		v, ok := constScalar(c, params)
		if !ok {
			return nil, nil, false
		}
		return p, []any{v}, true
	case *inExpr:
		if x.not {
			return nil, nil, false
		}
		p, ok := pathOf(x.x, q.slotPaths)
		if !ok {
			return nil, nil, false
		}
		vals := make([]any, 0, len(x.list))
		for _, el := range x.list {
			v, ok := constScalar(el, params)
			if !ok {
				return nil, nil, false
			}
			if !containsScalar(vals, v) {
				vals = append(vals, v)
			}
		}
		return p, vals, true
	}
	return nil, nil, false
}

// constScalar evaluates a constant expression to a scalar JSON value.
func constScalar(e expr, params map[string]any) (any, bool) {
	var v any
	switch x := e.(type) {
	case *literal:
		v = x.val
	case *param:
		p, ok := params[x.name]
		if !ok {
			return nil, false
		}
		v = normalize(p)
	case *unary:
		inner, ok := constScalar(x.x, params)
		f, isNum := inner.(float64)
		if !ok || !isNum {
			return nil, false
		}
		switch x.op {
		case "-":
			v = -f
		case "+":
			v = f
		default:
			return nil, false
		}
	default:
		return nil, false
	}
	switch v.(type) {
	case nil, bool, string, float64:
		return v, true
	}
	return nil, false
}

func containsScalar(vals []any, v any) bool {
	for _, w := range vals {
		if deepEqual(w, v) {
			return true
		}
	}
	return false
}

func intersectScalars(a, b []any) []any {
	out := []any{}
	for _, v := range a {
		if containsScalar(b, v) {
			out = append(out, v)
		}
	}
	return out
}
