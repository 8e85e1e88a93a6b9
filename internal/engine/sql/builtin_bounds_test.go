package sql

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// extremeNumbers are the numeric arguments every builtin is held to: not-a-number, the infinities,
// the largest doubles, 2^63 (which is 9223372036854775807 as a double and overflows int64), -0 and a
// fraction. A float64 converted to int outside int's range is implementation-defined in Go (the most
// negative int on amd64), which made SUBSTRING('x', 9223372036854775807, 1) index a string at a
// negative offset and panic (issue 30, item 1).
var extremeNumbers = []float64{
	math.NaN(), math.Inf(1), math.Inf(-1), 1e308, -1e308, math.MaxFloat64, -math.MaxFloat64,
	9223372036854775807, -9223372036854775808, 1 << 53, math.Copysign(0, -1), 0.5, -1, 1e-308,
}

// ordinaryArgs are the values put at the other positions, one kind at a time: each builtin gets
// arguments of the types it expects somewhere in this list.
var ordinaryArgs = []any{
	"abc", "2020-01-01T00:00:00.0000000Z", "day", "ns", "", 1.0, 3.0, true,
	[]any{1.0, 2.0, 3.0}, []any{"a", "b"}, map[string]any{"a": 1.0}, nil,
}

func builtinNames() []string {
	names := make([]string, 0, len(builtins))
	for n, b := range builtins {
		if !b.agg {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func testCtx() *execCtx {
	return &execCtx{now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), maxWork: DefaultMaxWork, maxAlloc: DefaultMaxAlloc,
		regexps: map[string]*regexp.Regexp{}, seed: 1, vecFns: map[*call]string{}}
}

// callBuiltin calls a builtin as the evaluator does and turns a panic into an error.
func callBuiltin(b *builtin, args []any) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return b.fn(testCtx(), args), nil
}

// checkResult is what every builtin must give back whatever its arguments: no panic, no number
// JSON cannot carry, no string past the engine's bound.
func checkResult(v any, err error, args []any) error {
	if err != nil {
		return err
	}
	switch r := v.(type) {
	case float64:
		if (math.IsNaN(r) || math.IsInf(r, 0)) && !passedThrough(r, args) {
			return fmt.Errorf("returned %v, which JSON cannot carry", r)
		}
	case string:
		if len(r) > maxStringResult*100 {
			return fmt.Errorf("returned a string of %d bytes", len(r))
		}
	}
	return nil
}

func arities(b *builtin) []int {
	hi := b.max
	if hi < 0 {
		hi = b.min + 2
	}
	var out []int
	for n := b.min; n <= hi; n++ {
		out = append(out, n)
	}
	return out
}

// TestBuiltins_ExtremeNumbers calls every builtin, at every arity, with each extreme number at each
// argument position and ordinary values of every type at the others, and with every position
// extreme at once.
func TestBuiltins_ExtremeNumbers(t *testing.T) {
	calls, failures := 0, 0
	for _, name := range builtinNames() {
		b := builtins[name]
		for _, n := range arities(b) {
			for pos := 0; pos < n; pos++ {
				for _, ext := range extremeNumbers {
					for _, other := range ordinaryArgs {
						args := make([]any, n)
						for i := range args {
							args[i] = other
						}
						args[pos] = ext
						calls++
						if err := checkResult2(b, args); err != nil {
							failures++
							if failures <= 40 {
								t.Errorf("%s%v: %v", b.name, args, err)
							}
						}
					}
				}
			}
			for _, ext := range extremeNumbers {
				args := make([]any, n)
				for i := range args {
					args[i] = ext
				}
				calls++
				if err := checkResult2(b, args); err != nil {
					failures++
					if failures <= 40 {
						t.Errorf("%s%v: %v", b.name, args, err)
					}
				}
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d calls failed", failures, calls)
	}
}

// TestBuiltins_ExtremeNumbersThroughQueries runs the reproductions of issue 30 as queries: each
// answers (a value or undefined) instead of panicking, and the values are the documented ones where
// the documentation gives one.
func TestBuiltins_ExtremeNumbersThroughQueries(t *testing.T) {
	src := docs(t, `[{"id":"1","s":"abc","a":[1,2,3]}]`)
	for _, tc := range []struct {
		q    string
		want string // JSON of the result items
	}{
		{`SELECT VALUE SUBSTRING('x', 9223372036854775807, 1) FROM c`, `[""]`},
		{`SELECT VALUE SUBSTRING('abc', 1, 1e308) FROM c`, `["bc"]`},
		{`SELECT VALUE SUBSTRING('abc', -1e308, 2) FROM c`, `["ab"]`},
		{`SELECT VALUE LEFT(c.s, 9223372036854775807) FROM c`, `["abc"]`},
		{`SELECT VALUE LEFT(c.s, 1e308) FROM c`, `["abc"]`},
		{`SELECT VALUE RIGHT(c.s, 9223372036854775808) FROM c`, `["abc"]`},
		{`SELECT VALUE RIGHT(c.s, 1e308) FROM c`, `["abc"]`},
		{`SELECT VALUE REPLICATE('', 1e308) FROM c`, `[""]`},
		{`SELECT VALUE INDEX_OF(c.s, 'c', 1e308) FROM c`, `[-1]`},
		{`SELECT VALUE CHOOSE(1e308, 'a', 'b') FROM c`, `[]`},
		{`SELECT VALUE ARRAY_SLICE(c.a, 9223372036854775807) FROM c`, `[[]]`},
		{`SELECT VALUE ARRAY_SLICE(c.a, -1e308, 1e308) FROM c`, `[[1,2,3]]`},
		{`SELECT VALUE DateTimeBin('2020-01-01T00:00:00Z', 'ns') FROM c`, `[]`},
		{`SELECT VALUE DateTimeBin('2020-01-01T00:00:00Z', 'hh', 1e308) FROM c`, `[]`},
		{`SELECT VALUE DateTimeAdd('yyyy', 9007199254740991, '2020-01-01T00:00:00Z') FROM c`, `[]`},
		{`SELECT VALUE DateTimeAdd('ms', 9007199254740991, '2020-01-01T00:00:00Z') FROM c`, `[]`},
		{`SELECT VALUE DateTimeFromParts(9007199254740991, 1, 1) FROM c`, `[]`},
		{`SELECT VALUE TicksToDateTime(2.4e18) FROM c`, `[]`},
		{`SELECT VALUE ToString(1e308) FROM c`, `["1e+308"]`},
		{`SELECT VALUE NumberBin(1e308, 1e-308) FROM c`, `[]`},
		{`SELECT VALUE VectorDistance([1e308], [1e308], false, {distanceFunction: 'euclidean'}) FROM c`, `[0]`},
		{`SELECT VALUE VectorDistance([1e308, 1], [-1e308, 1], false, {distanceFunction: 'dotproduct'}) FROM c`, `[]`},
	} {
		t.Run(tc.q, func(t *testing.T) {
			got, err := runQuery(src, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// FuzzBuiltinArgs calls one builtin, chosen by the fuzzer, with numbers and a string the fuzzer
// picks, and holds it to checkResult (make fuzz).
func FuzzBuiltinArgs(f *testing.F) {
	names := builtinNames()
	f.Add(uint16(0), uint8(3), 9223372036854775807.0, 1.0, -0.0, "x")
	f.Add(uint16(1), uint8(2), math.Inf(1), math.NaN(), 1e308, "2020-01-01T00:00:00Z")
	f.Fuzz(func(t *testing.T, fn uint16, shape uint8, a, b, c float64, s string) {
		bi := builtins[names[int(fn)%len(names)]]
		ar := arities(bi)
		n := ar[int(shape)%len(ar)]
		pool := []any{a, b, c, s, []any{a, b}, "day", "2020-01-01T00:00:00Z"}
		args := make([]any, n)
		for i := range args {
			// Each position takes one of the pool by the shape's bits, so the fuzzer reaches mixes.
			args[i] = pool[(int(shape)>>i+i)%len(pool)]
		}
		if err := checkResult2(bi, args); err != nil {
			t.Fatalf("%s%v: %v", bi.name, args, err)
		}
	})
}

// runQuery parses and executes text over src and renders the items as JSON; a panic is an error.
func runQuery(src Source, text string) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	q, err := Parse(text)
	if err != nil {
		return "", err
	}
	res, err := Execute(q, src, Options{})
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(res.Items)
	if err != nil {
		return "", err
	}
	if res.Items == nil {
		return "[]", nil
	}
	return string(b), nil
}

func checkResult2(b *builtin, args []any) error {
	v, err := callBuiltin(b, args)
	return checkResult(v, err, args)
}

// passedThrough reports a result that is one of the arguments as given (IIF and CHOOSE select an
// argument; a non-finite one cannot reach them from JSON, only from a Go caller's parameters).
func passedThrough(r float64, args []any) bool {
	for _, a := range args {
		if f, ok := a.(float64); ok && math.Float64bits(f) == math.Float64bits(r) {
			return true
		}
	}
	return false
}

// Issue 30, item 5: a triple JOIN over one 1,000-element array projected a billion rows, and the
// allocation budget counted units (a 3-property object as 4) rather than bytes: the execution
// reached 9 GB of heap before the work limit stopped it. The budget is in bytes now, and every
// shape of the reproduction stops within a small multiple of it (TotalAlloc counts every byte the
// execution allocated, collected or not).
func TestExecute_JoinRowsBudgetedInBytes(t *testing.T) {
	arr := make([]string, 1000)
	for i := range arr {
		arr[i] = fmt.Sprint(i)
	}
	src := docs(t, `[{"id":"1","arr":[`+strings.Join(arr, ",")+`]}]`)
	for _, text := range []string{
		"SELECT x, y, z FROM c JOIN x IN c.arr JOIN y IN c.arr JOIN z IN c.arr",
		"SELECT VALUE [x, y, z] FROM c JOIN x IN c.arr JOIN y IN c.arr JOIN z IN c.arr",
		"SELECT VALUE {a: x, b: 'a string of a few bytes'} FROM c JOIN x IN c.arr JOIN y IN c.arr JOIN z IN c.arr",
		"SELECT x, y FROM c JOIN x IN c.arr JOIN y IN c.arr JOIN z IN c.arr ORDER BY x",
		"SELECT x, y, z, COUNT(1) AS n FROM c JOIN x IN c.arr JOIN y IN c.arr JOIN z IN c.arr GROUP BY x, y, z",
	} {
		q, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = Execute(q, src, Options{})
		runtime.ReadMemStats(&after)
		var ae *AllocLimitError
		var we *WorkLimitError
		if !errors.As(err, &ae) && !errors.As(err, &we) {
			t.Errorf("%s: err = %v, want the allocation or work limit", text, err)
		}
		t.Logf("%s: %v, %d MB", text, err, (after.TotalAlloc-before.TotalAlloc)>>20)
		if got := after.TotalAlloc - before.TotalAlloc; got > 4*DefaultMaxAlloc {
			t.Errorf("%s: allocated %d MB, want at most %d MB (4 × the budget)", text, got>>20, 4*DefaultMaxAlloc>>20)
		}
	}
}

// panicSource is a Source that fails while scanning, as a fault of the evaluator or the engine's
// source would.
type panicSource struct{}

func (panicSource) Scan(func(d *Document) bool) { panic("scan fault") }
func (panicSource) Len() int                    { return 1 }

// A panic while executing is recovered as an *EvalFault carrying the panic and its stack, which
// the engine answers 400 and logs with the request's activity id, instead of a dropped connection.
func TestExecute_PanicIsEvalFault(t *testing.T) {
	q, err := Parse("SELECT * FROM c")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Execute(q, panicSource{}, Options{})
	var f *EvalFault
	if !errors.As(err, &f) || f.Value != "scan fault" || !strings.Contains(string(f.Stack), "panicSource") {
		t.Fatalf("err = %v, want an *EvalFault with the panic and its stack", err)
	}
}
