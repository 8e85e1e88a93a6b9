package sql

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/engine/index"
)

// indexedSource is a sliceSource with an equality index on top-level properties, counting lookups.
type indexedSource struct {
	sliceSource
	eq      map[string]map[string][]*Document
	lookups int
}

func newIndexed(src sliceSource, props ...string) *indexedSource {
	is := &indexedSource{sliceSource: src, eq: map[string]map[string][]*Document{}}
	for _, p := range props {
		m := map[string][]*Document{}
		for _, d := range src {
			if v, ok := d.Body[p]; ok {
				k := fmt.Sprintf("%T:%v", v, v)
				m[k] = append(m[k], d)
			}
		}
		is.eq[p] = m
	}
	return is
}

func (s *indexedSource) Lookup(path []string, v any) ([]*Document, bool) {
	if len(path) != 1 {
		return nil, false
	}
	m, ok := s.eq[path[0]]
	if !ok {
		return nil, false
	}
	s.lookups++
	return m[fmt.Sprintf("%T:%v", v, v)], true
}

var _ IndexedSource = (*indexedSource)(nil)

func compile(t *testing.T, p index.Policy) *index.Compiled {
	t.Helper()
	c, err := index.Compile(p)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return c
}

func run(t *testing.T, q string, src Source, opts Options) *Result {
	t.Helper()
	pq, err := Parse(q)
	if err != nil {
		t.Fatalf("Parse(%s): %v", q, err)
	}
	if opts.Params == nil {
		opts.Params = caseParams
	}
	res, err := Execute(pq, src, opts)
	if err != nil {
		t.Fatalf("Execute(%s): %v", q, err)
	}
	return res
}

func TestExecute_Facts(t *testing.T) {
	src := docs(t, products)
	total := 0
	for _, d := range src {
		total += d.Size
	}
	excl := compile(t, index.Policy{IncludedPaths: []index.Path{{Path: "/*"}}, ExcludedPaths: []index.Path{{Path: "/name/?"}, {Path: "/tags/*"}}})
	tests := []struct {
		name       string
		q          string
		pol        *index.Compiled
		docsLoaded int
		fullScan   bool
		lookups    int
		funcs      int
		joinRows   int
		out        int
	}{
		{"no filter loads all", `SELECT * FROM p`, nil, 5, false, 0, 0, 0, 5},
		{"indexed equality narrows", `SELECT * FROM p WHERE p.category = "coats"`, nil, 2, false, 1, 0, 0, 2},
		{"indexed range narrows", `SELECT VALUE p.id FROM p WHERE p.quantity > 3`, nil, 3, false, 1, 0, 0, 3},
		{"IN counts a seek per value", `SELECT VALUE p.id FROM p WHERE p.category IN ("coats", "shorts")`, nil, 3, false, 2, 0, 0, 3},
		{"excluded path forces a full scan", `SELECT VALUE p.id FROM p WHERE p.name = "Helmet"`, excl, 5, true, 0, 0, 0, 1},
		{"function on the path forces a full scan", `SELECT VALUE p.id FROM p WHERE UPPER(p.category) = "BIKES"`, nil, 5, true, 0, 5, 0, 2},
		{"indexed conjunct narrows a residual one", `SELECT VALUE p.id FROM p WHERE p.category = "bikes" AND LOWER(p.name) = "helmet"`, nil, 2, false, 1, 2, 0, 1},
		{"STARTSWITH is served", `SELECT VALUE p.id FROM p WHERE STARTSWITH(p.name, "Tr")`, nil, 2, false, 1, 0, 0, 2},
		{"STARTSWITH on excluded path", `SELECT VALUE p.id FROM p WHERE STARTSWITH(p.name, "Tr")`, excl, 5, true, 0, 5, 0, 2},
		{"ARRAY_CONTAINS served", `SELECT VALUE p.id FROM p WHERE ARRAY_CONTAINS(p.tags, "winter")`, nil, 2, false, 1, 0, 0, 2},
		{"ARRAY_CONTAINS excluded", `SELECT VALUE p.id FROM p WHERE ARRAY_CONTAINS(p.tags, "winter")`, excl, 5, true, 0, 5, 0, 2},
		{"IS_DEFINED served", `SELECT VALUE p.id FROM p WHERE IS_DEFINED(p.price)`, nil, 4, false, 1, 0, 0, 4},
		{"two paths compared is residual", `SELECT VALUE p.id FROM p WHERE p.quantity > p.price`, nil, 5, true, 0, 0, 0, 0},
		{"join rows counted", `SELECT VALUE t FROM p JOIN t IN p.tags`, nil, 5, false, 0, 0, 3, 7},
		{"TOP stops the scan", `SELECT TOP 2 VALUE p.id FROM p`, nil, 2, false, 0, 0, 0, 2},
		{"TOP with full scan stops early", `SELECT TOP 1 VALUE p.id FROM p WHERE UPPER(p.category) = "COATS"`, nil, 1, true, 0, 1, 0, 1},
		{"ORDER BY with TOP loads only TOP", `SELECT TOP 2 VALUE p.id FROM p ORDER BY p.quantity`, nil, 2, false, 1, 0, 0, 2},
		{"mode none scans everything", `SELECT VALUE p.id FROM p WHERE p.category = "coats"`, compile(t, index.Policy{IndexingMode: "none"}), 5, true, 0, 0, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, tt.q, src, Options{Policy: tt.pol})
			f := res.Facts
			if f.DocsLoaded != tt.docsLoaded || f.FullScan != tt.fullScan || f.IndexLookups != tt.lookups ||
				f.FunctionCalls != tt.funcs || f.JoinRows != tt.joinRows || f.DocsOutput != tt.out {
				t.Errorf("facts = %+v\nwant DocsLoaded=%d FullScan=%v IndexLookups=%d FunctionCalls=%d JoinRows=%d DocsOutput=%d",
					f, tt.docsLoaded, tt.fullScan, tt.lookups, tt.funcs, tt.joinRows, tt.out)
			}
			if f.DocsLoaded == 5 && f.BytesLoaded != int64(total) {
				t.Errorf("BytesLoaded = %d, want %d", f.BytesLoaded, total)
			}
			var out int64
			for _, it := range res.Items {
				out += jsonSize(it)
			}
			if f.BytesOutput != out {
				t.Errorf("BytesOutput = %d, want %d", f.BytesOutput, out)
			}
		})
	}
}

func TestExecute_IndexedLookup(t *testing.T) {
	is := newIndexed(docs(t, products), "category", "id")
	res := run(t, `SELECT VALUE p.id FROM p WHERE p.category = @a AND p.quantity > 1`, is, Options{})
	if got := canon(t, res.Items); got != `["p1"]` {
		t.Errorf("items = %s", got)
	}
	if is.lookups != 1 {
		t.Errorf("lookups = %d, want 1", is.lookups)
	}
	if res.Facts.DocsLoaded != 1 || res.Facts.FullScan {
		t.Errorf("facts = %+v", res.Facts)
	}
	// A path the source keeps no index for falls back to a scan with the same result.
	res = run(t, `SELECT VALUE p.id FROM p WHERE p.name = "Helmet"`, is, Options{})
	if got := canon(t, res.Items); got != `["p5"]` || is.lookups != 1 {
		t.Errorf("items = %s lookups = %d", got, is.lookups)
	}
	// An equality on an excluded path is not looked up.
	pol := compile(t, index.Policy{ExcludedPaths: []index.Path{{Path: "/category/?"}}})
	res = run(t, `SELECT VALUE p.id FROM p WHERE p.category = "coats"`, is, Options{Policy: pol})
	if got := canon(t, res.Items); got != `["p1","p2"]` || is.lookups != 1 || !res.Facts.FullScan {
		t.Errorf("items = %s lookups = %d facts = %+v", got, is.lookups, res.Facts)
	}
}

func TestExecute_OrderByIndexRules(t *testing.T) {
	src := docs(t, products)
	comp := compile(t, index.Policy{CompositeIndexes: [][]index.CompositePath{
		{{Path: "/category", Order: "ascending"}, {Path: "/quantity", Order: "descending"}},
	}})
	excl := compile(t, index.Policy{IncludedPaths: []index.Path{{Path: "/*"}}, ExcludedPaths: []index.Path{{Path: "/quantity/?"}}})
	tests := []struct {
		name    string
		q       string
		pol     *index.Compiled
		want    string
		wantErr any
	}{
		{"composite serves", `SELECT VALUE p.id FROM p ORDER BY p.category, p.quantity DESC`, comp, `["p5","p4","p1","p2","p3"]`, nil},
		{"composite serves inverted", `SELECT VALUE p.id FROM p ORDER BY p.category DESC, p.quantity`, comp, `["p3","p2","p1","p4","p5"]`, nil},
		{"mixed directions need another index", `SELECT VALUE p.id FROM p ORDER BY p.category, p.quantity`, comp, "", &MissingCompositeIndexError{}},
		{"default policy has no composite", `SELECT VALUE p.id FROM p ORDER BY p.category, p.quantity DESC`, nil, "", &MissingCompositeIndexError{}},
		{"single excluded path", `SELECT VALUE p.id FROM p ORDER BY p.quantity`, excl, "", &ExcludedOrderByError{}},
		{"single indexed path, ties in source order", `SELECT VALUE p.id FROM p ORDER BY p.category`, excl, `["p4","p5","p1","p2","p3"]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pq, err := Parse(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Execute(pq, src, Options{Policy: tt.pol})
			switch want := tt.wantErr.(type) {
			case nil:
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if got := canon(t, res.Items); got != tt.want {
					t.Errorf("items = %s, want %s", got, tt.want)
				}
			case *MissingCompositeIndexError:
				var e *MissingCompositeIndexError
				if !errors.As(err, &e) || err.Error() != MissingCompositeIndexMsg {
					t.Fatalf("error = %v, want MissingCompositeIndexError", err)
				}
				sug := e.Suggested()
				if len(sug) != 2 || sug[0].Path != "/category" || sug[1].Path != "/quantity" {
					t.Errorf("Suggested = %+v", sug)
				}
			case *ExcludedOrderByError:
				var e *ExcludedOrderByError
				if !errors.As(err, &e) || !reflect.DeepEqual(e.Item.Path, []string{"quantity"}) {
					t.Fatalf("error = %v, want ExcludedOrderByError", err)
				}
				_ = want
			}
		})
	}
}

func TestExecute_SortedInMemory(t *testing.T) {
	src := docs(t, products)
	res := run(t, `SELECT TOP 1 VALUE p.id FROM p WHERE p.category = "coats" ORDER BY p.quantity`, src, Options{})
	if res.Facts.SortedInMemory != 2 || res.Facts.DocsLoaded != 2 {
		t.Errorf("without composite: %+v", res.Facts)
	}
	// The composite index serves only an ORDER BY of its paths, the filtered one added in front
	// (index-policy.md, "Queries with a filter and ORDER BY"): the query as written still sorts.
	comp := compile(t, index.Policy{CompositeIndexes: [][]index.CompositePath{{{Path: "/category"}, {Path: "/quantity"}}}})
	res = run(t, `SELECT TOP 1 VALUE p.id FROM p WHERE p.category = "coats" ORDER BY p.quantity`, src, Options{Policy: comp})
	if res.Facts.SortedInMemory != 2 || res.Facts.DocsLoaded != 2 {
		t.Errorf("with composite, ORDER BY p.quantity: %+v", res.Facts)
	}
	res = run(t, `SELECT TOP 1 VALUE p.id FROM p WHERE p.category = "coats" ORDER BY p.category, p.quantity`, src, Options{Policy: comp})
	if res.Facts.SortedInMemory != 0 || res.Facts.DocsLoaded != 1 {
		t.Errorf("with composite, ORDER BY p.category, p.quantity: %+v", res.Facts)
	}
}

func TestExecute_IndexMetrics(t *testing.T) {
	src := docs(t, products)
	excl := compile(t, index.Policy{IncludedPaths: []index.Path{{Path: "/*"}}, ExcludedPaths: []index.Path{{Path: "/name/?"}}})
	res := run(t, `SELECT VALUE p.id FROM p WHERE p.category = "coats" AND p.name = "x" ORDER BY p.quantity`, src,
		Options{Policy: excl, PopulateIndexMetrics: true})
	m := res.IndexMetrics
	if m == nil {
		t.Fatal("no metrics")
	}
	specs := func(in []SingleIndex) string {
		var s []string
		for _, x := range in {
			s = append(s, x.IndexSpec)
		}
		return strings.Join(s, ",")
	}
	if got := specs(m.UtilizedSingleIndexes); got != "/category/?,/quantity/?" {
		t.Errorf("utilized = %s", got)
	}
	if got := specs(m.PotentialSingleIndexes); got != "/name/?" {
		t.Errorf("potential = %s", got)
	}
	if len(m.PotentialCompositeIndexes) != 1 || strings.Join(m.PotentialCompositeIndexes[0].IndexSpecs, ",") != "/category ASC,/quantity ASC" {
		t.Errorf("potential composite = %+v", m.PotentialCompositeIndexes)
	}
	comp := compile(t, index.Policy{CompositeIndexes: [][]index.CompositePath{{{Path: "/category"}, {Path: "/quantity", Order: "descending"}}}})
	res = run(t, `SELECT VALUE p.id FROM p ORDER BY p.category, p.quantity DESC`, src, Options{Policy: comp, PopulateIndexMetrics: true})
	if u := res.IndexMetrics.UtilizedCompositeIndexes; len(u) != 1 || strings.Join(u[0].IndexSpecs, ",") != "/category ASC,/quantity DESC" {
		t.Errorf("utilized composite = %+v", u)
	}
	res = run(t, `SELECT VALUE p.id FROM p`, src, Options{})
	if res.IndexMetrics != nil {
		t.Error("metrics without PopulateIndexMetrics")
	}
}

func TestQuery_Shape(t *testing.T) {
	tests := []struct {
		q    string
		want Shape
	}{
		{`SELECT * FROM c`, Shape{}},
		{`SELECT TOP 5 * FROM c`, Shape{Top: true}},
		{`SELECT c.a FROM c OFFSET 1 LIMIT 2`, Shape{OffsetLimit: true}},
		{`SELECT DISTINCT VALUE c.a FROM c`, Shape{Distinct: true, Value: true}},
		{`SELECT c.a, COUNT(1) AS n FROM c GROUP BY c.a`, Shape{GroupBy: true, Aggregate: true}},
		{`SELECT VALUE COUNT(1) FROM c`, Shape{Aggregate: true, Value: true}},
		{`SELECT * FROM c ORDER BY c.a, c.b DESC`, Shape{OrderBy: 2}},
		{`SELECT c.id, (SELECT VALUE COUNT(1) FROM t IN c.tags) AS n FROM c`, Shape{}},
	}
	for _, tt := range tests {
		q, err := Parse(tt.q)
		if err != nil {
			t.Fatalf("%s: %v", tt.q, err)
		}
		if got := q.Shape(); got != tt.want {
			t.Errorf("Shape(%s) = %+v, want %+v", tt.q, got, tt.want)
		}
	}
}

func TestParse_Errors(t *testing.T) {
	tests := []struct {
		name      string
		q         string
		line, col int
		code      string
		msg       string
	}{
		{"misspelled FROM", "SELECT *\nFORM c", 2, 1, "SC1001", "Syntax error, incorrect syntax near 'FORM'."},
		{"unresolved", "SELECT x.a FROM c", 1, 8, "SC2001", "Identifier 'x' could not be resolved."},
		{"too long", "SELECT VALUE '" + strings.Repeat("a", MaxQueryLength) + "'", 0, 0, "SC1002", "exceeded the maximum limit"},
		{"too deep", "SELECT VALUE " + strings.Repeat("(", 500) + "1" + strings.Repeat(")", 500), 1, 0, "SC1004", "nested too deeply"},
		{"deep unary", "SELECT VALUE " + strings.Repeat("- ", 5000) + "1", 1, 0, "SC1004", "nested too deeply"},
		{"deep NOT", "SELECT VALUE " + strings.Repeat("NOT ", 5000) + "true", 1, 0, "SC1004", "nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.q)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error = %v (%T), want *Error", err, err)
			}
			if e.Code != tt.code || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("error = %s %q", e.Code, e.Msg)
			}
			if tt.line != 0 && e.Line != tt.line {
				t.Errorf("line = %d, want %d", e.Line, tt.line)
			}
			if tt.col != 0 && e.Col != tt.col {
				t.Errorf("col = %d, want %d", e.Col, tt.col)
			}
		})
	}
}

func TestExecute_WorkLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString(`[{"a":[`)
	for i := 0; i < 50; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprint(&b, i)
	}
	b.WriteString(`]}]`)
	src := docs(t, b.String())
	pq, err := Parse(`SELECT VALUE COUNT(1) FROM c JOIN a IN c.a JOIN b IN c.a JOIN d IN c.a JOIN e IN c.a JOIN f IN c.a`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Execute(pq, src, Options{MaxWork: 1_000_000})
	var we *WorkLimitError
	if !errors.As(err, &we) || we.Limit != 1_000_000 {
		t.Fatalf("error = %v, want WorkLimitError", err)
	}
}
