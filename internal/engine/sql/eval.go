package sql

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/cosmosdv/validate/internal/engine/jsondoc"
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
	recheck  func(d *Document) bool // Options.Recheck
	fnCalls  int
	aggVals  []any // results of the current group's aggregates while projecting it
	regexps  map[string]*regexp.Regexp
	likes    map[[2]string]*likeMatcher // LIKE patterns from parameters or columns, compiled once
	seed     uint64
	// cur is the function call being evaluated and vecFns the distance functions the container's
	// vector policy gives VectorDistance calls (search.go).
	cur    *call
	vecFns map[*call]string
	// doc is the document the current row comes from and docBody its body as this execution
	// decoded it (bodyOf); stored are the documents whose bodies a projection returned whole, by
	// the body's address (storedOf).
	doc     *Document
	docBody map[string]any
	stored  map[unsafe.Pointer]*Document
	// fields and whole are what the query reads of a document given as Raw (docFields).
	fields map[string]bool
	whole  bool
}

// bodyOf is d's body: Body when the source gave it decoded, else Raw decoded as far as the query
// reads it (docFields): only the top-level properties it names, unless it uses the document
// as a value.
func (x *execCtx) bodyOf(d *Document) map[string]any {
	return x.bodyWith(d, x.fields, x.whole)
}

// bodyWith is bodyOf for a pass that reads fields (or the whole document) rather than what the
// query reads.
func (x *execCtx) bodyWith(d *Document, fields map[string]bool, whole bool) map[string]any {
	if d.Body != nil || d.Raw == nil {
		return d.Body
	}
	var m map[string]any
	var err error
	if whole {
		m, err = jsondoc.DecodeObject(d.Raw)
	} else {
		m, err = jsondoc.DecodeFields(d.Raw, fields)
	}
	if err != nil {
		if x.err == nil {
			x.err = fmt.Errorf("a stored document does not decode: %w", err)
		}
		return map[string]any{}
	}
	return m
}

// visiting makes d the document of the rows that follow and returns its body.
func (x *execCtx) visiting(d *Document) map[string]any {
	x.doc, x.docBody = d, x.bodyOf(d)
	return x.docBody
}

// noteStored records v as the current document's body when it is that body itself (SELECT * and
// SELECT VALUE c return it as it is): identity, not equality, so a recorded item is the stored
// document's own content.
func (x *execCtx) noteStored(v any) {
	m, ok := v.(map[string]any)
	if !ok || x.doc == nil || m == nil {
		return
	}
	p := reflect.ValueOf(m).UnsafePointer()
	if p != reflect.ValueOf(x.docBody).UnsafePointer() {
		return
	}
	if x.stored == nil {
		x.stored = map[unsafe.Pointer]*Document{}
	}
	x.stored[p] = x.doc
}

// storedOf is the document v is the body of, nil when the query built v.
func (x *execCtx) storedOf(v any) *Document {
	m, ok := v.(map[string]any)
	if !ok || x.stored == nil {
		return nil
	}
	return x.stored[reflect.ValueOf(m).UnsafePointer()]
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

// compileWork charges compiling a pattern of n bytes to the work budget (compiling is linear in
// the pattern) and reports whether evaluation may go on.
func (x *execCtx) compileWork(n int) bool {
	x.work += n
	return x.step()
}

// matchWork charges matching a string of n bytes with re: Go's regexp matches in time linear in
// the input times the program, counted as one step per 16 (byte, instruction) pairs (assumed: a
// few nanoseconds a pair against the 50 ns of a step).
func (x *execCtx) matchWork(n int, re *regexp.Regexp) bool {
	x.work += n * (len(re.String())/16 + 1) / 16
	return x.step()
}

// like returns the matcher of a LIKE pattern not known when the query was bound (a parameter, a
// column): compiled once per execution, not once per document, and charged to the work budget.
func (x *execCtx) like(pat, esc string) *likeMatcher {
	k := [2]string{pat, esc}
	if m, ok := x.likes[k]; ok {
		return m
	}
	if !x.compileWork(len(pat)) {
		return nil
	}
	if x.likes == nil || len(x.likes) > 1000 {
		x.likes = map[[2]string]*likeMatcher{}
	}
	m := compileLike(pat, esc)
	x.likes[k] = m
	return m
}

// charge counts the size of a value the evaluator built against the allocation budget and returns
// v, or Undefined once the budget is spent.
func (x *execCtx) charge(v any) any {
	switch t := v.(type) {
	case []any, map[string]any, string:
		if !x.spend(allocBytes(v)) {
			return Undefined
		}
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return Undefined // JSON has no NaN or infinity
		}
	}
	return v
}

// spend counts n bytes against the allocation budget and reports whether evaluation may go on.
func (x *execCtx) spend(n int) bool {
	x.alloc += n
	if x.alloc > x.maxAlloc {
		if x.err == nil {
			x.err = &AllocLimitError{Limit: x.maxAlloc}
		}
		return false
	}
	return true
}

// Memory a built value takes on the heap, as the allocation budget counts it (assumed, from Go's
// layouts on 64-bit platforms: an interface or slice slot is 16 bytes; a map costs about 48 bytes
// and, with its slot groups' control bytes and load factor, about 64 bytes per string-keyed
// interface entry; a slice header 24; a string header 16 and its bytes). Only the new container
// is counted: its elements were counted when they were built, or are shared with the documents.
const (
	sliceSlot    = 16
	mapBytes     = 48
	mapEntry     = 64
	sliceBytes   = 24
	stringBytes  = 16
	groupBytes   = 64  // a group of GROUP BY: its struct, map entry and order slot
	aggAccBytes  = 64  // one aggregate's accumulator
	sortRowBytes = 112 // a row kept for ORDER BY: its struct and keys slice
)

func allocBytes(v any) int {
	switch t := v.(type) {
	case []any:
		return sliceBytes + sliceSlot*len(t)
	case map[string]any:
		return mapBytes + mapEntry*len(t)
	case string:
		return stringBytes + len(t)
	}
	return 0
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
			m = x.like(pat, esc)
		}
		if m == nil || !x.matchWork(len(s), m.re) {
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

// likeCompiles counts LIKE compilations, for the test that a pattern compiles once per query.
var likeCompiles atomic.Int64

// likeMatcher matches a LIKE pattern: % any run, _ any one character, [abc] / [a-f] / [^a] a set,
// and the escape character making the next one literal.
type likeMatcher struct {
	re *regexp.Regexp
}

func (m *likeMatcher) match(s string) bool { return m.re.MatchString(s) }

// compileLike translates a LIKE pattern to an anchored regular expression; nil when it is malformed.
// It is linear in the pattern: the closing ']' of every '[' comes from one backward pass (a search
// per '[' made a run of them quadratic).
func compileLike(pat, esc string) *likeMatcher {
	likeCompiles.Add(1)
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
	// closeAt[i] is the index of the first ']' at or after i, -1 if none.
	closeAt := make([]int, len(rs)+1)
	closeAt[len(rs)] = -1
	for i := len(rs) - 1; i >= 0; i-- {
		closeAt[i] = closeAt[i+1]
		if rs[i] == ']' {
			closeAt[i] = i
		}
	}
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
			end := closeAt[i+1]
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
				case c == '-':
					b.WriteString(`\-`) // QuoteMeta leaves '-' alone; escape it inside a class
				default:
					b.WriteString(regexp.QuoteMeta(string(c)))
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
