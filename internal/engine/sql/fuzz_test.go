package sql

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/engine/index"
)

// fuzzSeeds are the seed corpus shared by both fuzz targets: every clause and most functions.
var fuzzSeeds = []string{
	`SELECT * FROM c`,
	`SELECT c.id, c.a + 1 AS b FROM c WHERE c.a > 1 AND NOT IS_NULL(c.b) ORDER BY c.a DESC`,
	`SELECT DISTINCT TOP 3 VALUE t FROM c JOIN t IN c.tags WHERE t LIKE "%a_" ESCAPE "!"`,
	`SELECT c.k, COUNT(1) AS n, SUM(c.a) AS s, AVG(c.a) AS m, MIN(c.b), MAX(c.b) FROM c GROUP BY c.k`,
	`SELECT VALUE {x: c.a ?? 0, y: [c.b, c["z z"]], z: c.a > 0 ? "p" : "n"} FROM c OFFSET 1 LIMIT 2`,
	`SELECT VALUE EXISTS(SELECT VALUE 1 FROM t IN c.tags WHERE t IN ("a", @p)) FROM c`,
	`SELECT c.id, ARRAY(SELECT VALUE UPPER(t) FROM t IN c.tags) AS u, (SELECT VALUE COUNT(1) FROM t IN c.tags) AS n FROM c`,
	`SELECT VALUE CONCAT(LOWER(c.s), SUBSTRING(c.s, 1, 2), REPLACE(c.s, "a", "b"), ToString(c.a)) FROM c`,
	`SELECT VALUE [ARRAY_CONTAINS(c.tags, "a"), ARRAY_SLICE(c.tags, -1), SetUnion(c.tags, ["q"]), ARRAY_LENGTH(c.tags)] FROM c`,
	`SELECT VALUE DateTimeAdd("dd", c.a, "2020-01-01T00:00:00.0000000Z") FROM c WHERE c.a BETWEEN 0 AND 10`,
	`SELECT VALUE RegexMatch(c.s, "^a.*", "i") FROM c WHERE STARTSWITH(c.s, "a", true)`,
	`SELECT VALUE 1 | 2 & 3 ^ 4 << 1 >> 1 >>> 1 || "x"`,
	`SELECT * FROM c.tags t`,
	`SELECT VALUE x FROM x IN c.tags ORDER BY x`,
	`SELECT f.id FROM Families f JOIN c IN f.children JOIN p IN c.pets WHERE p.givenName = "Shadow"`,
	`SELECT * FORM c`,
	`SELECT VALUE ((((((1))))))`,
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	src := docs(f, `[{"id":"1","a":1,"b":"x","k":"g","s":"abc","tags":["a","b"]},{"id":"2","a":"z","k":"g","tags":[]},{"id":"3"}]`)
	pol, err := index.Compile(index.Policy{CompositeIndexes: [][]index.CompositePath{{{Path: "/a"}, {Path: "/b"}}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		q, err := Parse(text)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse error is %T, want *Error: %v", err, err)
			}
			return
		}
		_ = q.Shape()
		// A cross-partition plan, when there is one, rewrites into a query that parses.
		if pl, err := q.CrossPartitionPlan(map[string]any{"@p": 3.0}, false); err == nil && pl.RewrittenQuery != "" {
			if _, err := Parse(strings.ReplaceAll(pl.RewrittenQuery, OrderByFilterPlaceholder, "true")); err != nil {
				t.Fatalf("%q rewrites to %q, which does not parse: %v", text, pl.RewrittenQuery, err)
			}
		}
		res, err := Execute(q, src, Options{Params: map[string]any{"@p": "a"}, Policy: pol, MaxWork: 200_000, MaxAlloc: 200_000, PopulateIndexMetrics: true})
		if f := (*EvalFault)(nil); errors.As(err, &f) {
			t.Fatalf("%q: the evaluator panicked (recovered): %s\n%s", text, f.Value, f.Stack)
		}
		if err != nil {
			return
		}
		if _, err := json.Marshal(res.Items); err != nil {
			t.Fatalf("items do not encode: %v", err)
		}
		for _, it := range res.Items {
			if isUndefined(it) {
				t.Fatal("undefined in result items")
			}
		}
	})
}

// fuzzExtremes are the numbers that break arithmetic: NaN and the infinities (which JSON cannot
// carry: FuzzExecute reads these three words as the float), overflow, negative zero and 2^63,
// which no int64 holds.
var fuzzExtremes = []string{`"NaN"`, `"+Inf"`, `"-Inf"`, `1e300`, `-1e300`, `-0`, `9223372036854775808`,
	`-9223372036854775809`, `1e308`, `5e-324`}

// fuzzExtremeSeeds calls every builtin with @p, an extreme number, in each argument position (the other
// arguments 1, or "abc"), and with @p in all of them.
func fuzzExtremeSeeds() []string {
	names := make([]string, 0, len(builtins))
	for name := range builtins {
		names = append(names, name)
	}
	slices.Sort(names)
	var out []string
	for _, name := range names {
		b := builtins[name]
		n := b.max
		if n < 0 || n > 4 {
			n = max(b.min, 3)
		}
		n = max(n, 1)
		call := func(args []string) string {
			return "SELECT VALUE " + b.name + "(" + strings.Join(args, ", ") + ") FROM c"
		}
		all := make([]string, n)
		for i := range all {
			all[i] = "@p"
		}
		out = append(out, call(all))
		for i := range n {
			for _, other := range []string{"1", `"abc"`} {
				args := make([]string, n)
				for j := range args {
					args[j] = other
				}
				args[i] = "@p"
				out = append(out, call(args))
			}
		}
	}
	return out
}

// fuzzParam reads FuzzExecute's parameter: JSON, or NaN/+Inf/-Inf, which JSON cannot carry.
func fuzzParam(s string) (any, bool) {
	switch s {
	case `"NaN"`:
		return math.NaN(), true
	case `"+Inf"`:
		return math.Inf(1), true
	case `"-Inf"`:
		return math.Inf(-1), true
	}
	var p any
	if json.Unmarshal([]byte(s), &p) != nil {
		return nil, false
	}
	return p, true
}

func FuzzExecute(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, `{"id":"1","a":1,"b":"x","k":"g","s":"abc","tags":["a","b",{"x":1}]}`, `"a"`)
	}
	// One seed with an extreme number finds at once what millions of mutated executions did not.
	for _, s := range fuzzExtremeSeeds() {
		for _, n := range fuzzExtremes {
			f.Add(s, `{"id":"1","a":1e300,"s":"abc","tags":[1,2]}`, n)
		}
	}
	f.Add(`SELECT VALUE c FROM c WHERE c.a = @p`, `{"a":[1,{"b":null}]}`, `[1,{"b":null}]`)
	f.Fuzz(func(t *testing.T, text, doc, param string) {
		q, err := Parse(text)
		if err != nil {
			return
		}
		var body map[string]any
		if json.Unmarshal([]byte(doc), &body) != nil || body == nil {
			return
		}
		p, ok := fuzzParam(param)
		if !ok {
			return
		}
		src := sliceSource{{Body: body, Size: len(doc)}, {Body: body, Size: len(doc)}}
		res, err := Execute(q, src, Options{Params: map[string]any{"@p": p}, MaxWork: 200_000, MaxAlloc: 200_000})
		if f := (*EvalFault)(nil); errors.As(err, &f) {
			t.Fatalf("%q: the evaluator panicked (recovered): %s\n%s", text, f.Value, f.Stack)
		}
		if err != nil {
			return
		}
		// A NaN or infinite parameter cannot come over the wire (JSON has none); a function may
		// hand it back. From any other input the result must encode.
		if f, isNum := p.(float64); isNum && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return
		}
		if _, err := json.Marshal(res.Items); err != nil {
			t.Fatalf("items do not encode: %v", err)
		}
	})
}
