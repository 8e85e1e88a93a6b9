// Package jsonorder is the service's order of JSON values, shared by the engine's evaluator
// (internal/engine/sql) and the client-side cross-partition pipeline (internal/probe/fanout), which
// must merge the partitions' streams in exactly the order one partition would sort them.
package jsonorder

import "strings"

// Undefined is the value of a missing property or of a function applied to the wrong type. It
// sorts before every other value.
type Undefined struct{}

// Type ranks for ORDER BY and for MIN/MAX across types. The service documents undefined < null <
// boolean < number < string (query/order-by.md, "ORDER BY across types"). Arrays after strings and
// objects after arrays is the order the .NET SDK adopted when ORDER BY on arrays and objects was
// added ("arrays come before objects but after strings", azure-cosmos-dotnet-v3 pull request 853).
// Within arrays, and within objects, the service orders by a hash; here they compare equal.
const (
	RankUndefined = iota
	RankNull
	RankBool
	RankNumber
	RankString
	RankArray
	RankObject
)

// Rank is v's type rank; anything that is not a JSON value ranks as undefined.
func Rank(v any) int {
	switch v.(type) {
	case Undefined:
		return RankUndefined
	case nil:
		return RankNull
	case bool:
		return RankBool
	case float64:
		return RankNumber
	case string:
		return RankString
	case []any:
		return RankArray
	case map[string]any:
		return RankObject
	}
	return RankUndefined
}

// Compare orders any two values the way ORDER BY does: by type rank, then by value within
// booleans (false first), numbers and strings (ordinal). Arrays and objects compare equal among
// themselves.
func Compare(a, b any) int {
	ra, rb := Rank(a), Rank(b)
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
