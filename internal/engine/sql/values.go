package sql

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
)

// undefinedType is the type of Undefined.
type undefinedType struct{}

// Undefined is the query language's undefined value: a missing property, a comparison across types,
// a function applied to the wrong type. It never appears in Result.Items: projections omit it.
var Undefined any = undefinedType{}

func isUndefined(v any) bool {
	_, ok := v.(undefinedType)
	return ok
}

// Type ranks used by ORDER BY and by MIN/MAX across types. The service documents the order
// undefined < null < boolean < number < string (order-by.md). Arrays after strings and objects
// after arrays is the order the .NET SDK adopted when ORDER BY on arrays and objects was added
// ("arrays come before objects but after strings", azure-cosmos-dotnet-v3 pull request 853).
// Within arrays, and within objects, the service orders by a hash; here they compare equal.
const (
	rankUndefined = iota
	rankNull
	rankBool
	rankNumber
	rankString
	rankArray
	rankObject
)

func typeRank(v any) int {
	switch v.(type) {
	case undefinedType:
		return rankUndefined
	case nil:
		return rankNull
	case bool:
		return rankBool
	case float64:
		return rankNumber
	case string:
		return rankString
	case []any:
		return rankArray
	case map[string]any:
		return rankObject
	}
	return rankUndefined
}

// orderCompare orders any two values the way ORDER BY does: by type rank, then by value within
// numbers, strings and booleans. Arrays and objects compare equal among themselves.
func orderCompare(a, b any) int {
	ra, rb := typeRank(a), typeRank(b)
	if ra != rb {
		if ra < rb {
			return -1
		}
		return 1
	}
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case float64:
		y := b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case string:
		return strings.Compare(x, b.(string))
	}
	return 0
}

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
