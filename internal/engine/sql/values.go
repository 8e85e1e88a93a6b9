package sql

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/jsonorder"
)

// undefinedType is the type of Undefined.
type undefinedType = jsonorder.Undefined

// Undefined is the query language's undefined value: a missing property, a comparison across types,
// a function applied to the wrong type. It never appears in Result.Items: projections omit it.
var Undefined any = undefinedType{}

func isUndefined(v any) bool {
	_, ok := v.(undefinedType)
	return ok
}

const (
	rankUndefined = jsonorder.RankUndefined
	rankNull      = jsonorder.RankNull
	rankBool      = jsonorder.RankBool
	rankNumber    = jsonorder.RankNumber
	rankString    = jsonorder.RankString
	rankArray     = jsonorder.RankArray
	rankObject    = jsonorder.RankObject
)

// typeRank is v's type rank in the service's order (internal/jsonorder).
func typeRank(v any) int { return jsonorder.Rank(v) }

// orderCompare orders any two values the way ORDER BY does (internal/jsonorder).
func orderCompare(a, b any) int { return jsonorder.Compare(a, b) }

// compareSameType compares a and b for the relational operators: ok is false (the result is
// undefined) when they are not both numbers, both strings, both booleans or both null.
func compareSameType(a, b any) (int, bool) {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			return 0, false
		}
		switch {
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		case x == y:
			return 0, true
		}
		return 0, false // NaN
	case string:
		y, ok := b.(string)
		if !ok {
			return 0, false
		}
		return strings.Compare(x, y), true
	case bool:
		y, ok := b.(bool)
		if !ok {
			return 0, false
		}
		return orderCompare(x, y), true
	case nil:
		if b == nil {
			return 0, true
		}
	}
	return 0, false
}

// equalValues is the = operator: ok is false (undefined) when either side is undefined or the types
// differ. Arrays and objects compare deeply.
func equalValues(a, b any) (eq, ok bool) {
	if isUndefined(a) || isUndefined(b) || typeRank(a) != typeRank(b) {
		return false, false
	}
	return deepEqual(a, b), true
}

func deepEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !deepEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !deepEqual(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// canonicalKey writes a canonical encoding of v (object keys sorted) used for DISTINCT and GROUP BY.
func canonicalKey(b *strings.Builder, v any) {
	switch x := v.(type) {
	case undefinedType:
		b.WriteString("u")
	case nil:
		b.WriteString("n")
	case bool:
		if x {
			b.WriteString("t")
		} else {
			b.WriteString("f")
		}
	case float64:
		b.WriteString("d")
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case string:
		b.WriteString("s")
		b.WriteString(strconv.Quote(x))
	case []any:
		b.WriteString("[")
		for _, e := range x {
			canonicalKey(b, e)
			b.WriteString(",")
		}
		b.WriteString("]")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for _, k := range keys {
			b.WriteString(strconv.Quote(k))
			b.WriteString(":")
			canonicalKey(b, x[k])
			b.WriteString(",")
		}
		b.WriteString("}")
	}
}

// jsonSize is the length of v's JSON encoding.
func jsonSize(v any) int64 {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return int64(len(b))
}

// normalize converts a parameter value to the decoded-JSON shapes the evaluator works on.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, string, float64, undefinedType:
		return v
	case int:
		return float64(x)
	case int8:
		return float64(x)
	case int16:
		return float64(x)
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	case uint:
		return float64(x)
	case uint8:
		return float64(x)
	case uint16:
		return float64(x)
	case uint32:
		return float64(x)
	case uint64:
		return float64(x)
	case float32:
		return float64(x)
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return Undefined
		}
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Undefined
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return Undefined
	}
	return out
}

// isInteger reports whether f holds an integral value that fits int64 exactly.
func isInteger(f float64) bool {
	return !math.IsInf(f, 0) && !math.IsNaN(f) && f == math.Trunc(f) && math.Abs(f) < 1<<53
}

// jsonLowerBound is a lower bound of v's JSON size that stops counting once it passes limit (it
// then returns a value above limit): it walks v without building anything, so a result of shared
// structure (an ARRAY subquery repeating stored documents) is measured against a budget before
// anything encodes it.
func jsonLowerBound(v any, limit int64) int64 {
	var n int64
	var walk func(v any)
	walk = func(v any) {
		if n > limit {
			return
		}
		switch t := v.(type) {
		case string:
			n += int64(len(t)) + 2
		case []any:
			n += 2 + int64(max(len(t)-1, 0))
			for _, e := range t {
				walk(e)
				if n > limit {
					return
				}
			}
		case map[string]any:
			n += 2 + int64(max(len(t)-1, 0))
			for k, e := range t {
				n += int64(len(k)) + 3
				walk(e)
				if n > limit {
					return
				}
			}
		default:
			n++
		}
	}
	walk(v)
	return n
}
