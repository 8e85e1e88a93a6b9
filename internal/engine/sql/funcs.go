package sql

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// builtin is a system function. Arguments arrive evaluated; a function returns Undefined when an
// argument has the wrong type, as the service does.
type builtin struct {
	name     string
	min, max int // max < 0: variadic
	agg      bool
	// index reports whether the service can serve the function from the index when its first argument
	// is an indexed path (used by the planner).
	index bool
	fn    func(x *execCtx, a []any) any
}

// builtins maps upper-case function names to their implementation.
var builtins = map[string]*builtin{}

func reg(name string, min, max int, fn func(x *execCtx, a []any) any) *builtin {
	b := &builtin{name: name, min: min, max: max, fn: fn}
	builtins[strings.ToUpper(name)] = b
	return b
}

// maxStringResult bounds strings that functions build (REPLICATE, CONCAT, ...). The service's
// REPLICATE documents a 10,000-character result limit (learn.microsoft.com/azure/cosmos-db/nosql/
// query/replicate); this engine applies it to every string-building function to bound memory.
const maxStringResult = 10000

func num(v any) (float64, bool) { f, ok := v.(float64); return f, ok }

// clampInt converts a numeric argument used as a count, position or index to an int within
// [lo, hi]; NaN is refused. A float64 outside int's range converts to an implementation-defined
// int in Go (the most negative one on amd64): unclamped, SUBSTRING('x', 9223372036854775807, 1)
// sliced a string at a negative offset and panicked with the partition's lock held (issue 30).
// Every builtin converts its numeric arguments through this function or checks them with
// isInteger (|n| < 2^53) before converting.
func clampInt(f float64, lo, hi int) (int, bool) {
	switch {
	case math.IsNaN(f):
		return 0, false
	case f <= float64(lo):
		return lo, true
	case f >= float64(hi):
		return hi, true
	}
	return int(f), true
}

// finite returns r, or Undefined when r is not a number JSON can carry.
func finite(r float64) any {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return Undefined
	}
	return r
}
func str(v any) (string, bool) { s, ok := v.(string); return s, ok }

func boolArg(a []any, i int) (bool, bool) {
	if i >= len(a) {
		return false, true
	}
	b, ok := a[i].(bool)
	return b, ok
}

func math1(name string, f func(float64) float64) {
	reg(name, 1, 1, func(_ *execCtx, a []any) any {
		x, ok := num(a[0])
		if !ok {
			return Undefined
		}
		r := f(x)
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return Undefined
		}
		return r
	})
}

func typeCheck(name string, f func(any) bool) {
	b := reg(name, 1, 1, func(_ *execCtx, a []any) any { return f(a[0]) })
	b.index = true
}

func init() {
	// Aggregates: evaluated by the executor, never through fn.
	for _, n := range []string{"COUNT", "SUM", "AVG", "MIN", "MAX"} {
		b := reg(n, 1, 1, nil)
		b.agg = true
	}

	// Type checking.
	typeCheck("IS_ARRAY", func(v any) bool { _, ok := v.([]any); return ok })
	typeCheck("IS_BOOL", func(v any) bool { _, ok := v.(bool); return ok })
	typeCheck("IS_DEFINED", func(v any) bool { return !isUndefined(v) })
	typeCheck("IS_NULL", func(v any) bool { return v == nil })
	typeCheck("IS_NUMBER", func(v any) bool { _, ok := v.(float64); return ok })
	typeCheck("IS_OBJECT", func(v any) bool { _, ok := v.(map[string]any); return ok })
	typeCheck("IS_STRING", func(v any) bool { _, ok := v.(string); return ok })
	typeCheck("IS_PRIMITIVE", func(v any) bool {
		r := typeRank(v)
		return r == rankNull || r == rankBool || r == rankNumber || r == rankString
	})
	typeCheck("IS_FINITE_NUMBER", func(v any) bool {
		f, ok := v.(float64)
		return ok && !math.IsInf(f, 0) && !math.IsNaN(f)
	})
	typeCheck("IS_INTEGER", func(v any) bool { f, ok := v.(float64); return ok && isInteger(f) })

	// Math.
	math1("ABS", math.Abs)
	math1("ACOS", math.Acos)
	math1("ASIN", math.Asin)
	math1("ATAN", math.Atan)
	math1("CEILING", math.Ceil)
	math1("COS", math.Cos)
	math1("COT", func(x float64) float64 { return 1 / math.Tan(x) })
	math1("DEGREES", func(x float64) float64 { return x * 180 / math.Pi })
	math1("EXP", math.Exp)
	math1("FLOOR", math.Floor)
	math1("LOG10", math.Log10)
	math1("RADIANS", func(x float64) float64 { return x * math.Pi / 180 })
	math1("ROUND", func(x float64) float64 { return math.Round(x) }) // half away from zero
	math1("SIGN", func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	})
	math1("SIN", math.Sin)
	math1("SQRT", math.Sqrt)
	math1("SQUARE", func(x float64) float64 { return x * x })
	math1("TAN", math.Tan)
	math1("TRUNC", math.Trunc)
	reg("PI", 0, 0, func(_ *execCtx, _ []any) any { return math.Pi })
	reg("ATN2", 2, 2, func(_ *execCtx, a []any) any {
		y, ok1 := num(a[0])
		x, ok2 := num(a[1])
		if !ok1 || !ok2 {
			return Undefined
		}
		return finite(math.Atan2(x, y)) // the service's ATN2(y, x) returns the angle of (y, x) as atan2(x, y)
	})
	reg("LOG", 1, 2, func(_ *execCtx, a []any) any {
		x, ok := num(a[0])
		if !ok || x <= 0 {
			return Undefined
		}
		if len(a) == 2 {
			b, ok := num(a[1])
			if !ok || b <= 0 || b == 1 {
				return Undefined
			}
			return finite(math.Log(x) / math.Log(b))
		}
		return finite(math.Log(x))
	})
	reg("POWER", 2, 2, func(_ *execCtx, a []any) any {
		x, ok1 := num(a[0])
		y, ok2 := num(a[1])
		if !ok1 || !ok2 {
			return Undefined
		}
		r := math.Pow(x, y)
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return Undefined
		}
		return r
	})
	reg("RAND", 0, 0, func(x *execCtx, _ []any) any { return x.rand() })
	reg("NumberBin", 1, 2, func(_ *execCtx, a []any) any {
		x, ok := num(a[0])
		if !ok {
			return Undefined
		}
		size := 1.0
		if len(a) == 2 {
			if size, ok = num(a[1]); !ok || size == 0 {
				return Undefined
			}
		}
		return finite(math.Floor(x/size) * size)
	})
	intOp := func(name string, f func(x, y int64) (int64, bool)) {
		reg(name, 2, 2, func(_ *execCtx, a []any) any {
			x, ok1 := num(a[0])
			y, ok2 := num(a[1])
			if !ok1 || !ok2 || !isInteger(x) || !isInteger(y) {
				return Undefined
			}
			r, ok := f(int64(x), int64(y))
			if !ok {
				return Undefined
			}
			return float64(r)
		})
	}
	intOp("IntAdd", func(x, y int64) (int64, bool) { return x + y, true })
	intOp("IntSub", func(x, y int64) (int64, bool) { return x - y, true })
	intOp("IntMul", func(x, y int64) (int64, bool) { return x * y, true })
	intOp("IntDiv", func(x, y int64) (int64, bool) {
		if y == 0 {
			return 0, false
		}
		return x / y, true
	})
	intOp("IntMod", func(x, y int64) (int64, bool) {
		if y == 0 {
			return 0, false
		}
		return x % y, true
	})
	intOp("IntBitAnd", func(x, y int64) (int64, bool) { return x & y, true })
	intOp("IntBitOr", func(x, y int64) (int64, bool) { return x | y, true })
	intOp("IntBitXor", func(x, y int64) (int64, bool) { return x ^ y, true })
	intOp("IntBitLeftShift", func(x, y int64) (int64, bool) { return x << uint64(y&63), y >= 0 })
	intOp("IntBitRightShift", func(x, y int64) (int64, bool) { return x >> uint64(y&63), y >= 0 })

	// Strings.
	reg("CONCAT", 2, -1, func(_ *execCtx, a []any) any {
		var b strings.Builder
		for _, v := range a {
			s, ok := str(v)
			if !ok {
				return Undefined
			}
			b.WriteString(s)
			if b.Len() > maxStringResult*100 {
				return Undefined
			}
		}
		return b.String()
	})
	strPred := func(name string, f func(s, sub string) bool) {
		b := reg(name, 2, 3, func(_ *execCtx, a []any) any {
			s, ok1 := str(a[0])
			sub, ok2 := str(a[1])
			ic, ok3 := boolArg(a, 2)
			if !ok1 || !ok2 || !ok3 {
				return Undefined
			}
			if ic {
				s, sub = strings.ToLower(s), strings.ToLower(sub)
			}
			return f(s, sub)
		})
		b.index = true
	}
	strPred("CONTAINS", strings.Contains)
	strPred("STARTSWITH", strings.HasPrefix)
	strPred("ENDSWITH", strings.HasSuffix)
	strPred("StringEquals", func(s, t string) bool { return s == t })
	reg("INDEX_OF", 2, 3, func(_ *execCtx, a []any) any {
		s, ok1 := str(a[0])
		sub, ok2 := str(a[1])
		if !ok1 || !ok2 {
			return Undefined
		}
		rs := []rune(s)
		start := 0
		if len(a) == 3 {
			f, ok := num(a[2])
			if !ok {
				return Undefined
			}
			if start, ok = clampInt(f, 0, len(rs)+1); !ok {
				return Undefined
			}
			if start > len(rs) {
				return -1.0
			}
		}
		i := strings.Index(string(rs[start:]), sub)
		if i < 0 {
			return -1.0
		}
		return float64(start + utf8.RuneCountInString(string(rs[start:])[:i]))
	})
	// LEFT and RIGHT keep the first or last n characters.
	edge := func(fromEnd bool) func(*execCtx, []any) any {
		return func(_ *execCtx, a []any) any {
			s, ok1 := str(a[0])
			n, ok2 := num(a[1])
			if !ok1 || !ok2 || !(n >= 0) {
				return Undefined
			}
			rs := []rune(s)
			if k, _ := clampInt(n, 0, len(rs)); k < len(rs) {
				if fromEnd {
					rs = rs[len(rs)-k:]
				} else {
					rs = rs[:k]
				}
			}
			return string(rs)
		}
	}
	reg("LEFT", 2, 2, edge(false))
	reg("RIGHT", 2, 2, edge(true))
	reg("LENGTH", 1, 1, func(_ *execCtx, a []any) any {
		s, ok := str(a[0])
		if !ok {
			return Undefined
		}
		return float64(utf8.RuneCountInString(s))
	})
	strFn := func(name string, f func(string) string) {
		reg(name, 1, 1, func(_ *execCtx, a []any) any {
			s, ok := str(a[0])
			if !ok {
				return Undefined
			}
			return f(s)
		})
	}
	strFn("LOWER", strings.ToLower)
	strFn("UPPER", strings.ToUpper)
	strFn("LTRIM", func(s string) string { return strings.TrimLeft(s, " \t\n\r") })
	strFn("RTRIM", func(s string) string { return strings.TrimRight(s, " \t\n\r") })
	strFn("TRIM", func(s string) string { return strings.Trim(s, " \t\n\r") })
	strFn("REVERSE", func(s string) string {
		rs := []rune(s)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return string(rs)
	})
	reg("REPLACE", 3, 3, func(_ *execCtx, a []any) any {
		s, ok1 := str(a[0])
		old, ok2 := str(a[1])
		nw, ok3 := str(a[2])
		if !ok1 || !ok2 || !ok3 {
			return Undefined
		}
		if old == "" {
			return s
		}
		if n := strings.Count(s, old); n > 0 && len(s)+n*(len(nw)-len(old)) > maxStringResult*100 {
			return Undefined
		}
		return strings.ReplaceAll(s, old, nw)
	})
	reg("REPLICATE", 2, 2, func(_ *execCtx, a []any) any {
		s, ok1 := str(a[0])
		n, ok2 := num(a[1])
		if !ok1 || !ok2 || !(n >= 0) || float64(len(s))*math.Trunc(n) > maxStringResult {
			return Undefined
		}
		if s == "" {
			return ""
		}
		count, _ := clampInt(n, 0, maxStringResult)
		return strings.Repeat(s, count)
	})
	reg("SUBSTRING", 3, 3, func(_ *execCtx, a []any) any {
		s, ok1 := str(a[0])
		st, ok2 := num(a[1])
		ln, ok3 := num(a[2])
		if !ok1 || !ok2 || !ok3 || math.IsNaN(st) || math.IsNaN(ln) {
			return Undefined
		}
		rs := []rune(s)
		start, _ := clampInt(st, 0, len(rs))
		if start >= len(rs) || ln <= 0 {
			return ""
		}
		n, _ := clampInt(ln, 0, len(rs)-start)
		return string(rs[start : start+n])
	})
	reg("RegexMatch", 2, 3, func(x *execCtx, a []any) any {
		s, ok1 := str(a[0])
		pat, ok2 := str(a[1])
		if !ok1 || !ok2 {
			return Undefined
		}
		flags := ""
		if len(a) == 3 {
			m, ok := str(a[2])
			if !ok {
				return Undefined
			}
			for _, c := range m {
				switch c {
				case 'i', 'm', 's':
					flags += string(c)
				case 'x':
					pat = stripRegexSpace(pat)
				default:
					return Undefined
				}
			}
		}
		if flags != "" {
			pat = "(?" + flags + ")" + pat
		}
		re, err := x.regex(pat)
		if err != nil || !x.matchWork(len(s), re) {
			return Undefined
		}
		return re.MatchString(s)
	}).index = true
	reg("ToString", 1, 1, func(_ *execCtx, a []any) any {
		switch v := a[0].(type) {
		case undefinedType:
			return Undefined
		case string:
			return v
		case float64:
			return formatNumber(v)
		}
		b, err := json.Marshal(a[0])
		if err != nil {
			return Undefined
		}
		return string(b)
	})
	parseJSON := func(name string, accept func(any) bool) {
		reg(name, 1, 1, func(_ *execCtx, a []any) any {
			s, ok := str(a[0])
			if !ok {
				return Undefined
			}
			var v any
			if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &v); err != nil || !accept(v) {
				return Undefined
			}
			return v
		})
	}
	parseJSON("StringToArray", func(v any) bool { _, ok := v.([]any); return ok })
	parseJSON("StringToBoolean", func(v any) bool { _, ok := v.(bool); return ok })
	parseJSON("StringToNull", func(v any) bool { return v == nil })
	parseJSON("StringToNumber", func(v any) bool { _, ok := v.(float64); return ok })
	parseJSON("StringToObject", func(v any) bool { _, ok := v.(map[string]any); return ok })
	reg("StringSplit", 2, 2, func(_ *execCtx, a []any) any {
		s, ok1 := str(a[0])
		sep, ok2 := str(a[1])
		if !ok1 || !ok2 {
			return Undefined
		}
		parts := strings.Split(s, sep)
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out
	})
	reg("StringJoin", 2, 2, func(_ *execCtx, a []any) any {
		arr, ok1 := a[0].([]any)
		sep, ok2 := str(a[1])
		if !ok1 || !ok2 {
			return Undefined
		}
		parts := make([]string, len(arr))
		for i, e := range arr {
			s, ok := str(e)
			if !ok {
				return Undefined
			}
			parts[i] = s
		}
		return strings.Join(parts, sep)
	})

	// Arrays.
	reg("ARRAY_CONCAT", 2, -1, func(_ *execCtx, a []any) any {
		var out []any
		for _, v := range a {
			arr, ok := v.([]any)
			if !ok {
				return Undefined
			}
			out = append(out, arr...)
		}
		if out == nil {
			out = []any{}
		}
		return out
	})
	reg("ARRAY_CONTAINS", 2, 3, func(_ *execCtx, a []any) any {
		arr, ok1 := a[0].([]any)
		partial, ok2 := boolArg(a, 2)
		if !ok1 || !ok2 {
			return Undefined
		}
		for _, e := range arr {
			if arrayMatch(e, a[1], partial) {
				return true
			}
		}
		return false
	}).index = true
	anyAll := func(name string, all bool) {
		reg(name, 2, -1, func(_ *execCtx, a []any) any {
			arr, ok := a[0].([]any)
			if !ok {
				return Undefined
			}
			for _, want := range a[1:] {
				found := false
				for _, e := range arr {
					if deepEqual(e, want) {
						found = true
						break
					}
				}
				if all && !found {
					return false
				}
				if !all && found {
					return true
				}
			}
			return all
		}).index = true
	}
	anyAll("ARRAY_CONTAINS_ANY", false)
	anyAll("ARRAY_CONTAINS_ALL", true)
	reg("ARRAY_LENGTH", 1, 1, func(_ *execCtx, a []any) any {
		arr, ok := a[0].([]any)
		if !ok {
			return Undefined
		}
		return float64(len(arr))
	})
	reg("ARRAY_SLICE", 2, 3, func(_ *execCtx, a []any) any {
		arr, ok1 := a[0].([]any)
		st, ok2 := num(a[1])
		if !ok1 || !ok2 || math.IsNaN(st) {
			return Undefined
		}
		n := len(arr)
		start, _ := clampInt(st, -n-1, n+1)
		if start < 0 {
			start += n
			if start < 0 {
				start = 0
			}
		}
		if start > n {
			start = n
		}
		end := n
		if len(a) == 3 {
			ln, ok := num(a[2])
			if !ok || math.IsNaN(ln) {
				return Undefined
			}
			if ln < 0 {
				return []any{}
			}
			k, _ := clampInt(ln, 0, n-start)
			end = start + k
		}
		return append([]any{}, arr[start:end]...)
	})
	setOp := func(name string, union bool) {
		reg(name, 2, 2, func(_ *execCtx, a []any) any {
			x, ok1 := a[0].([]any)
			y, ok2 := a[1].([]any)
			if !ok1 || !ok2 {
				return Undefined
			}
			out := []any{}
			seen := map[string]bool{}
			add := func(v any) {
				var b strings.Builder
				canonicalKey(&b, v)
				if !seen[b.String()] {
					seen[b.String()] = true
					out = append(out, v)
				}
			}
			if union {
				for _, v := range x {
					add(v)
				}
				for _, v := range y {
					add(v)
				}
				return out
			}
			for _, v := range x {
				for _, w := range y {
					if deepEqual(v, w) {
						add(v)
						break
					}
				}
			}
			return out
		})
	}
	setOp("SetIntersect", false)
	setOp("SetUnion", true)
	reg("ObjectToArray", 1, 1, func(_ *execCtx, a []any) any {
		m, ok := a[0].(map[string]any)
		if !ok {
			return Undefined
		}
		keys := sortedKeys(m)
		out := make([]any, 0, len(m))
		for _, k := range keys {
			out = append(out, map[string]any{"k": k, "v": m[k]})
		}
		return out
	})
	reg("CHOOSE", 2, -1, func(_ *execCtx, a []any) any {
		i, ok := num(a[0])
		if !ok || !isInteger(i) || i < 1 || i >= float64(len(a)) {
			return Undefined
		}
		return a[int(i)]
	})

	// Conditional.
	reg("IIF", 3, 3, func(_ *execCtx, a []any) any {
		if b, ok := a[0].(bool); ok && b {
			return a[1]
		}
		return a[2]
	})

	registerDateFuncs()
}

// arrayMatch is ARRAY_CONTAINS' element test: equality, or with partial set and both sides objects,
// every property of want present and equal in e.
func arrayMatch(e, want any, partial bool) bool {
	if partial {
		em, ok1 := e.(map[string]any)
		wm, ok2 := want.(map[string]any)
		if ok1 && ok2 {
			for k, wv := range wm {
				ev, ok := em[k]
				if !ok || !deepEqual(ev, wv) {
					return false
				}
			}
			return true
		}
	}
	return deepEqual(e, want)
}

func stripRegexSpace(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r != ' ' && r != '\t' && r != '\n' && r != '\r' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// formatNumber renders a number the way JavaScript does for the common cases.
func formatNumber(f float64) string {
	if isInteger(f) {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// regex compiles and caches a pattern for one execution.
func (x *execCtx) regex(pat string) (*regexp.Regexp, error) {
	if re, ok := x.regexps[pat]; ok {
		return re, nil
	}
	if len(x.regexps) > 1000 {
		x.regexps = map[string]*regexp.Regexp{}
	}
	if !x.compileWork(len(pat)) {
		return nil, x.err
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, err
	}
	x.regexps[pat] = re
	return re, nil
}

// Dates. The service's date and time strings are ISO 8601 UTC, "YYYY-MM-DDThh:mm:ss.fffffffZ"
// (learn.microsoft.com/azure/cosmos-db/nosql/query/getcurrentdatetime); ticks are 100 ns units since
// the Unix epoch (…/getcurrentticks) and timestamps milliseconds since the Unix epoch.
const dateLayout = "2006-01-02T15:04:05.0000000Z"

func formatDate(t time.Time) string { return t.UTC().Format(dateLayout) }

func parseDate(v any) (time.Time, bool) {
	s, ok := str(v)
	if !ok {
		return time.Time{}, false
	}
	// Fractional seconds are accepted after the seconds by time.Parse; the trailing "Z" is optional
	// as in the service's samples ("2020-07-03T00:00:00.0000000").
	for _, layout := range []string{"2006-01-02T15:04:05Z", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// datePart normalises a date part name or abbreviation.
func datePart(v any) (string, bool) {
	s, ok := str(v)
	if !ok {
		return "", false
	}
	switch strings.ToLower(s) {
	case "year", "yyyy", "yy":
		return "year", true
	case "month", "mm", "m":
		return "month", true
	case "day", "dd", "d":
		return "day", true
	case "hour", "hh":
		return "hour", true
	case "minute", "mi", "n":
		return "minute", true
	case "second", "ss", "s":
		return "second", true
	case "millisecond", "ms":
		return "millisecond", true
	case "microsecond", "mcs":
		return "microsecond", true
	case "nanosecond", "ns":
		return "nanosecond", true
	}
	return "", false
}

var partUnit = map[string]time.Duration{
	"hour": time.Hour, "minute": time.Minute, "second": time.Second,
	"millisecond": time.Millisecond, "microsecond": time.Microsecond, "nanosecond": time.Nanosecond,
}

func registerDateFuncs() {
	reg("GetCurrentDateTime", 0, 0, func(x *execCtx, _ []any) any { return formatDate(x.now) })
	reg("GetCurrentTimestamp", 0, 0, func(x *execCtx, _ []any) any { return float64(x.now.UnixMilli()) })
	reg("GetCurrentTicks", 0, 0, func(x *execCtx, _ []any) any { return float64(x.now.UnixNano() / 100) })
	reg("DateTimeAdd", 3, 3, func(_ *execCtx, a []any) any {
		part, ok1 := datePart(a[0])
		n, ok2 := num(a[1])
		t, ok3 := parseDate(a[2])
		if !ok1 || !ok2 || !ok3 || !isInteger(n) {
			return Undefined
		}
		// isInteger keeps n within ±2^53; each part is bounded further so that the arithmetic below
		// cannot overflow, and a result outside years 1-9999 (the format's) is undefined.
		k := int(n)
		switch part {
		case "year", "month", "day":
			if math.Abs(n) > 10000*366 {
				return Undefined
			}
			switch part {
			case "year":
				t = t.AddDate(k, 0, 0)
			case "month":
				t = t.AddDate(0, k, 0)
			default:
				t = t.AddDate(0, 0, k)
			}
		default:
			u := partUnit[part]
			if math.Abs(n) > float64(math.MaxInt64/int64(u)) {
				return Undefined
			}
			t = t.Add(time.Duration(k) * u)
		}
		if t.Year() < 1 || t.Year() > 9999 {
			return Undefined
		}
		return formatDate(t)
	})
	reg("DateTimeDiff", 3, 3, func(_ *execCtx, a []any) any {
		part, ok1 := datePart(a[0])
		s, ok2 := parseDate(a[1])
		e, ok3 := parseDate(a[2])
		if !ok1 || !ok2 || !ok3 {
			return Undefined
		}
		// Counts the part boundaries crossed between the two dates.
		switch part {
		case "year":
			return float64(e.Year() - s.Year())
		case "month":
			return float64((e.Year()-s.Year())*12 + int(e.Month()) - int(s.Month()))
		case "day":
			sd := time.Date(s.Year(), s.Month(), s.Day(), 0, 0, 0, 0, time.UTC)
			ed := time.Date(e.Year(), e.Month(), e.Day(), 0, 0, 0, 0, time.UTC)
			return math.Round(ed.Sub(sd).Hours() / 24)
		}
		u := partUnit[part]
		return float64(e.Truncate(u).Sub(s.Truncate(u)) / u)
	})
	reg("DateTimePart", 2, 2, func(_ *execCtx, a []any) any {
		part, ok1 := datePart(a[0])
		t, ok2 := parseDate(a[1])
		if !ok1 || !ok2 {
			return Undefined
		}
		switch part {
		case "year":
			return float64(t.Year())
		case "month":
			return float64(t.Month())
		case "day":
			return float64(t.Day())
		case "hour":
			return float64(t.Hour())
		case "minute":
			return float64(t.Minute())
		case "second":
			return float64(t.Second())
		case "millisecond":
			return float64(t.Nanosecond() / 1e6)
		case "microsecond":
			return float64(t.Nanosecond() / 1e3)
		}
		return float64(t.Nanosecond() / 100 * 100)
	})
	reg("DateTimeFromParts", 3, 7, func(_ *execCtx, a []any) any {
		v := make([]int, 7)
		for i, arg := range a {
			f, ok := num(arg)
			if !ok || !isInteger(f) {
				return Undefined
			}
			v[i] = int(f)
		}
		// Each part within its range (isInteger above keeps them within ±2^53, so the
		// comparisons are exact): time.Date would otherwise normalise an overflowing part.
		if v[0] < 1 || v[0] > 9999 || v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 ||
			v[3] < 0 || v[3] > 23 || v[4] < 0 || v[4] > 59 || v[5] < 0 || v[5] > 59 || v[6] < 0 || v[6] > 9999999 {
			return Undefined
		}
		t := time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], v[6]*100, time.UTC)
		if t.Day() != v[2] {
			return Undefined
		}
		return formatDate(t)
	})
	reg("DateTimeToTimestamp", 1, 1, func(_ *execCtx, a []any) any {
		t, ok := parseDate(a[0])
		if !ok {
			return Undefined
		}
		return float64(t.UnixMilli())
	})
	reg("DateTimeToTicks", 1, 1, func(_ *execCtx, a []any) any {
		t, ok := parseDate(a[0])
		if !ok {
			return Undefined
		}
		return float64(t.UnixNano() / 100)
	})
	reg("TimestampToDateTime", 1, 1, func(_ *execCtx, a []any) any {
		f, ok := num(a[0])
		if !ok || !(math.Abs(f) <= 253402300799999) {
			return Undefined
		}
		return formatDate(time.UnixMilli(int64(f)))
	})
	reg("TicksToDateTime", 1, 1, func(_ *execCtx, a []any) any {
		f, ok := num(a[0])
		// Ticks of years 1-9999 from the Unix epoch are within ±2.6e17 (time.Unix(0, ns) would
		// overflow past ±292 years of nanoseconds).
		if !ok || !(math.Abs(f) <= 2.6e17) {
			return Undefined
		}
		ticks := int64(f)
		t := time.Unix(ticks/1e7, ticks%1e7*100).UTC()
		if t.Year() < 1 || t.Year() > 9999 {
			return Undefined
		}
		return formatDate(t)
	})
	reg("DateTimeBin", 2, 4, func(_ *execCtx, a []any) any {
		t, ok1 := parseDate(a[0])
		part, ok2 := datePart(a[1])
		if !ok1 || !ok2 {
			return Undefined
		}
		size := 1.0
		if len(a) >= 3 {
			var ok bool
			if size, ok = num(a[2]); !ok || size <= 0 || !isInteger(size) {
				return Undefined
			}
		}
		origin := time.Unix(0, 0).UTC()
		if len(a) == 4 {
			var ok bool
			if origin, ok = parseDate(a[3]); !ok {
				return Undefined
			}
		}
		var unit time.Duration
		switch part {
		case "day":
			unit = 24 * time.Hour
		case "year", "month":
			return Undefined
		default:
			unit = partUnit[part]
		}
		// Work in 100 ns ticks: a time.Duration overflows past 292 years (the Windows epoch origin).
		// A bin is at least one tick and at most 10,000 years' worth (size is an integer below 2^53,
		// so the product is exact enough to compare).
		ticks := size * float64(unit/100)
		if ticks < 1 || ticks > 10000*366*24*3600*1e7 {
			return Undefined
		}
		step := int64(ticks)
		d := (t.Unix()-origin.Unix())*1e7 + int64(t.Nanosecond()-origin.Nanosecond())/100
		bins := d / step
		if d < 0 && d%step != 0 {
			bins--
		}
		off := bins * step
		return formatDate(time.Unix(origin.Unix()+off/1e7, int64(origin.Nanosecond())+off%1e7*100))
	})
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}
