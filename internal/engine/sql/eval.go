package sql

import (
	"math"
	"regexp"
	"strings"
	"time"
)

// execCtx is the state of one execution: the row environment, parameters and the work budget.
type execCtx struct {
	env      []any
	params   map[string]any
	now      time.Time
	work     int
	maxWork  int
	alloc    int
	maxAlloc int
	err      error
	countFn  bool
	fnCalls  int
	aggVals  []any // results of the current group's aggregates while projecting it
	regexps  map[string]*regexp.Regexp
	seed     uint64
	// cur is the function call being evaluated and vecFns the distance functions the container's
	// vector policy gives VectorDistance calls (search.go).
	cur    *call
	vecFns map[*call]string
}

// step charges one unit of work and reports whether evaluation may go on.
func (x *execCtx) step() bool {
	x.work++
	if x.work > x.maxWork {
		if x.err == nil {
			x.err = &WorkLimitError{Limit: x.maxWork}
		}
		return false
	}
	return true
}

// charge counts the size of a value the evaluator built against the allocation budget and returns
// v, or Undefined once the budget is spent.
func (x *execCtx) charge(v any) any {
	switch t := v.(type) {
	case []any:
		x.alloc += len(t) + 1
	case map[string]any:
		x.alloc += len(t) + 1
	case string:
		x.alloc += len(t)/8 + 1
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return Undefined // JSON has no NaN or infinity
		}
		return v
	default:
		return v
	}
	if x.alloc > x.maxAlloc {
		if x.err == nil {
			x.err = &AllocLimitError{Limit: x.maxAlloc}
		}
		return Undefined
	}
	return v
}

// rand is a deterministic generator (splitmix64) so that RAND() is reproducible per execution.
func (x *execCtx) rand() float64 {
	x.seed += 0x9e3779b97f4a7c15
	z := x.seed
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

func truth(v any) (val, ok bool) {
	b, ok := v.(bool)
	return b, ok
}

// eval evaluates e in the current row. It never fails: type errors give Undefined, and running out
// of work sets x.err and gives Undefined.
func (x *execCtx) eval(e expr) any {
	if !x.step() {
		return Undefined
	}
	switch n := e.(type) {
	case *literal:
		return n.val
	case *param:
		v, ok := x.params[n.name]
		if !ok {
			return Undefined
		}
		return v
	case *ident:
		return x.env[n.slot]
	case *member:
		obj, ok := x.eval(n.x).(map[string]any)
		if !ok {
			return Undefined
		}
		v, ok := obj[n.name]
		if !ok {
			return Undefined
		}
		return v
	case *indexExpr:
		base := x.eval(n.x)
		idx := x.eval(n.idx)
		switch b := base.(type) {
		case []any:
			f, ok := idx.(float64)
			if !ok || !isInteger(f) || f < 0 || int(f) >= len(b) {
				return Undefined
			}
			return b[int(f)]
		case map[string]any:
			s, ok := idx.(string)
			if !ok {
				return Undefined
			}
			v, ok := b[s]
			if !ok {
				return Undefined
			}
			return v
		}
		return Undefined
	case *unary:
		v := x.eval(n.x)
		switch n.op {
		case "NOT":
			b, ok := truth(v)
			if !ok {
				return Undefined
			}
			return !b
		case "-":
			if f, ok := v.(float64); ok {
				return -f
			}
		case "+":
			if f, ok := v.(float64); ok {
				return f
			}
		case "~":
			if f, ok := v.(float64); ok && isInteger(f) {
				return float64(^int64(f))
			}
		}
		return Undefined
	case *binary:
		return x.evalBinary(n)
	case *between:
		v := x.eval(n.x)
		lo, hi := x.eval(n.lo), x.eval(n.hi)
		c1, ok1 := compareSameType(v, lo)
		c2, ok2 := compareSameType(v, hi)
		if !ok1 || !ok2 {
			return Undefined
		}
		r := c1 >= 0 && c2 <= 0
		if n.not {
			r = !r
		}
		return r
	case *inExpr:
		v := x.eval(n.x)
		if isUndefined(v) {
			return Undefined
		}
		found := false
		for _, item := range n.list {
			if eq, ok := equalValues(v, x.eval(item)); ok && eq {
				found = true
				break
			}
		}
		if n.not {
			return !found
		}
		return found
	case *likeExpr:
		s, ok := x.eval(n.x).(string)
		if !ok {
			return Undefined
		}
		m := n.re
		if m == nil {
			pat, ok := x.eval(n.pattern).(string)
			if !ok {
				return Undefined
			}
			esc := ""
			if n.escape != nil {
				if esc, ok = x.eval(n.escape).(string); !ok {
					return Undefined
				}
			}
			m = compileLike(pat, esc)
		}
		if m == nil {
			return Undefined
		}
		r := m.match(s)
		if n.not {
			r = !r
		}
		return r
	case *ternary:
		if b, ok := truth(x.eval(n.cond)); ok && b {
			return x.eval(n.then)
		}
		return x.eval(n.els)
	case *call:
		if n.agg > 0 {
			if n.agg-1 < len(x.aggVals) {
				return x.aggVals[n.agg-1]
			}
			return Undefined
		}
		var buf [4]any
		args := buf[:0]
		for _, a := range n.args {
			args = append(args, x.eval(a))
		}
		if x.countFn {
			x.fnCalls++
		}
		x.cur = n
		return x.charge(n.fn.fn(x, args))
	case *arrayLit:
		out := make([]any, 0, len(n.elems))
		for _, el := range n.elems {
			if v := x.eval(el); !isUndefined(v) {
				out = append(out, v)
			}
		}
		return x.charge(out)
	case *objectLit:
		out := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			if v := x.eval(n.vals[i]); !isUndefined(v) {
				out[k] = v
			}
		}
		return x.charge(out)
	case *subquery:
		return x.evalSubquery(n)
	case *root:
		return Undefined
	}
	return Undefined
}

func (x *execCtx) evalBinary(n *binary) any {
	switch n.op {
	case "AND":
		l := x.eval(n.l)
		if b, ok := truth(l); ok && !b {
			return false
		}
		r := x.eval(n.r)
		if b, ok := truth(r); ok && !b {
			return false
		}
		lb, ok1 := truth(l)
		rb, ok2 := truth(r)
		if ok1 && ok2 && lb && rb {
			return true
		}
		return Undefined
	case "OR":
		l := x.eval(n.l)
		if b, ok := truth(l); ok && b {
			return true
		}
		r := x.eval(n.r)
		if b, ok := truth(r); ok && b {
			return true
		}
		lb, ok1 := truth(l)
		rb, ok2 := truth(r)
		if ok1 && ok2 && !lb && !rb {
			return false
		}
		return Undefined
	case "??":
		if l := x.eval(n.l); !isUndefined(l) {
			return l
		}
		return x.eval(n.r)
	}
	l, r := x.eval(n.l), x.eval(n.r)
	switch n.op {
	case "=":
		eq, ok := equalValues(l, r)
		if !ok {
			return Undefined
		}
		return eq
	case "!=":
		// The docs: != between two objects or two arrays is undefined, unlike =.
		if r := typeRank(l); r == rankArray || r == rankObject {
			return Undefined
		}
		eq, ok := equalValues(l, r)
		if !ok {
			return Undefined
		}
		return !eq
	case "<", ">", "<=", ">=":
		c, ok := compareSameType(l, r)
		if !ok {
			return Undefined
		}
		switch n.op {
		case "<":
			return c < 0
		case ">":
			return c > 0
		case "<=":
			return c <= 0
		}
		return c >= 0
	case "||":
		ls, ok1 := l.(string)
		rs, ok2 := r.(string)
		if !ok1 || !ok2 || len(ls)+len(rs) > maxStringResult*100 {
			return Undefined
		}
		return x.charge(ls + rs)
	}
	lf, ok1 := l.(float64)
	rf, ok2 := r.(float64)
	if !ok1 || !ok2 {
		return Undefined
	}
	var res float64
	switch n.op {
	case "+":
		res = lf + rf
	case "-":
		res = lf - rf
	case "*":
		res = lf * rf
	case "/":
		if rf == 0 {
			return Undefined
		}
		res = lf / rf
	case "%":
		if rf == 0 {
			return Undefined
		}
		res = math.Mod(lf, rf)
	default:
		if !isInteger(lf) || !isInteger(rf) {
			return Undefined
		}
		a, b := int64(lf), int64(rf)
		switch n.op {
		case "|":
			return float64(a | b)
		case "&":
			return float64(a & b)
		case "^":
			return float64(a ^ b)
		case "<<":
			return float64(int64(int32(a) << (uint64(b) & 31)))
		case ">>":
			return float64(int32(a) >> (uint64(b) & 31))
		case ">>>":
			return float64(uint32(a) >> (uint64(b) & 31))
		}
		return Undefined
	}
	if math.IsInf(res, 0) || math.IsNaN(res) {
		return Undefined
	}
	return res
}

// likeMatcher matches a LIKE pattern: % any run, _ any one character, [abc] / [a-f] / [^a] a set,
// and the escape character making the next one literal.
type likeMatcher struct {
	re *regexp.Regexp
}

func (m *likeMatcher) match(s string) bool { return m.re.MatchString(s) }

// compileLike translates a LIKE pattern to an anchored regular expression; nil when it is malformed.
func compileLike(pat, esc string) *likeMatcher {
	var escR rune = -1
	if esc != "" {
		rs := []rune(esc)
		if len(rs) != 1 {
			return nil
		}
		escR = rs[0]
	}
	var b strings.Builder
	b.WriteString("(?s)^")
	rs := []rune(pat)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == escR:
			if i+1 < len(rs) {
				i++
				b.WriteString(regexp.QuoteMeta(string(rs[i])))
			}
		case r == '%':
			b.WriteString(".*")
		case r == '_':
			b.WriteString(".")
		case r == '[':
			end := -1
			for j := i + 1; j < len(rs); j++ {
				if rs[j] == ']' {
					end = j
					break
				}
			}
			if end < 0 {
				b.WriteString(regexp.QuoteMeta("["))
				continue
			}
			set := rs[i+1 : end]
			b.WriteString("[")
			for k, c := range set {
				switch {
				case k == 0 && c == '^':
					b.WriteString("^")
				case c == '-' && k > 0 && k < len(set)-1:
					b.WriteString("-")
				default:
					b.WriteString(regexp.QuoteMeta(string(c)))
					if c == '-' || c == '^' || c == ']' || c == '\\' {
						// QuoteMeta leaves '-' alone; escape it inside a class.
						if c == '-' {
							s := b.String()
							b.Reset()
							b.WriteString(s[:len(s)-1] + `\-`)
						}
					}
				}
			}
			b.WriteString("]")
			i = end
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil
	}
	return &likeMatcher{re: re}
}
