package sql

import (
	"errors"
	"reflect"
	"testing"

	"github.com/cosmosdv/validate/internal/engine/index"
)

func TestAnalyze(t *testing.T) {
	all := compile(t, index.Policy{IncludedPaths: []index.Path{{Path: "/*"}}})
	noStatus := compile(t, index.Policy{IncludedPaths: []index.Path{{Path: "/*"}}, ExcludedPaths: []index.Path{{Path: "/status/?"}}})
	onlyTags := compile(t, index.Policy{IncludedPaths: []index.Path{{Path: "/tags/[]/?"}}, ExcludedPaths: []index.Path{{Path: "/*"}}})
	// An all-ascending index serves ORDER BY type DESC, createdAt DESC (inverted); it does not serve
	// ORDER BY createdAt DESC, which does not name type (index-policy.md, "Queries with a filter
	// and ORDER BY").
	typeDate := compile(t, index.Policy{IncludedPaths: []index.Path{{Path: "/*"}},
		CompositeIndexes: [][]index.CompositePath{{{Path: "/type"}, {Path: "/createdAt"}}}})
	path := func(p ...string) []string { return p }
	item := func(desc bool, p ...string) index.OrderItem { return index.OrderItem{Path: p, Desc: desc} }
	star := Projection{Kind: ProjectStar}

	tests := []struct {
		name    string
		query   string
		pol     *index.Compiled
		want    Analysis
		wantErr any // pointer to the OrderByErr type wanted, nil for none
	}{
		{
			name:  "served equality on a literal",
			query: "SELECT * FROM c WHERE c.status = 'open'",
			pol:   all,
			want: Analysis{Top: -1, Narrowing: true, IndexLookups: 1, Projection: star,
				Filters: []Filter{{Text: `(c.status = "open")`, Kind: FilterEqual, Path: path("status"), Literal: "open", HasLiteral: true, Served: true}}},
		},
		{
			name:  "excluded path forces a scan",
			query: "SELECT * FROM c WHERE c.status = @s",
			pol:   noStatus,
			want: Analysis{Top: -1, FullScan: true, Projection: star, Unindexed: [][]string{path("status")},
				Filters: []Filter{{Text: "(c.status = @s)", Kind: FilterEqual, Path: path("status"), Param: "@s"}}},
		},
		{
			name:  "function around the path cannot use the index",
			query: "SELECT * FROM c WHERE UPPER(c.name) = 'X'",
			pol:   all,
			want: Analysis{Top: -1, FullScan: true, Projection: star, Functions: []string{"UPPER"},
				Filters: []Filter{{Text: `(UPPER(c.name) = "X")`}}},
		},
		{
			name:  "served type filter narrows, LOWER runs on loaded documents",
			query: "SELECT * FROM c WHERE c.type = 'order' AND LOWER(c.name) = 'x'",
			pol:   all,
			want: Analysis{Top: -1, Narrowing: true, IndexLookups: 1, Projection: star, Functions: []string{"LOWER"},
				TypeLiteral: "order", TypePath: path("type"),
				Filters: []Filter{
					{Text: `(c.type = "order")`, Kind: FilterEqual, Path: path("type"), Literal: "order", HasLiteral: true, Served: true},
					{Text: `(LOWER(c.name) = "x")`},
				}},
		},
		{
			name:  "range, BETWEEN and IN",
			query: "SELECT * FROM c WHERE c.ts > 5 AND c.n BETWEEN 1 AND 2 AND c.k IN ('a', 'b', 'c')",
			pol:   all,
			want: Analysis{Top: -1, Narrowing: true, IndexLookups: 5, Projection: star,
				Filters: []Filter{
					{Text: "(c.ts > 5)", Kind: FilterRange, Path: path("ts"), Op: ">", Values: []any{5.0}, Served: true},
					{Text: "(c.n BETWEEN 1 AND 2)", Kind: FilterRange, Path: path("n"), Op: "BETWEEN", Values: []any{1.0, 2.0}, Served: true},
					{Text: `(c.k IN ("a", "b", "c"))`, Kind: FilterIn, Path: path("k"), Op: "IN", Values: []any{"a", "b", "c"}, Served: true},
				}},
		},
		{
			name:  "a constant on the left reads as the path on the left; parameters are named",
			query: "SELECT * FROM c WHERE 5 < c.ts AND c.n NOT BETWEEN @lo AND 2 AND c.k NOT IN (@a)",
			pol:   all,
			want: Analysis{Top: -1, Narrowing: true, IndexLookups: 3, Projection: star,
				Filters: []Filter{
					{Text: "(5 < c.ts)", Kind: FilterRange, Path: path("ts"), Op: ">", Values: []any{5.0}, Served: true},
					{Text: "(c.n NOT BETWEEN @lo AND 2)", Kind: FilterRange, Path: path("n"), Op: "NOT BETWEEN", Values: []any{Param("@lo"), 2.0}, Served: true},
					{Text: "(c.k NOT IN (@a))", Kind: FilterIn, Path: path("k"), Op: "NOT IN", Values: []any{Param("@a")}, Served: true},
				}},
		},
		{
			name:  "ARRAY_CONTAINS on indexed elements",
			query: "SELECT * FROM c WHERE ARRAY_CONTAINS(c.tags, @t)",
			pol:   onlyTags,
			want: Analysis{Top: -1, Narrowing: true, IndexLookups: 1, Projection: star,
				Filters: []Filter{{Text: "ARRAY_CONTAINS(c.tags, @t)", Kind: FilterFunction, Path: path("tags", "[]"), Function: "ARRAY_CONTAINS", Values: []any{Param("@t")}, Served: true}}},
		},
		{
			name:  "comparison of two paths is residual",
			query: "SELECT * FROM c WHERE c.a = c.b AND c.kind = 'x'",
			pol:   all,
			want: Analysis{Top: -1, Narrowing: true, IndexLookups: 1, Projection: star, TypeLiteral: "x", TypePath: path("kind"),
				Filters: []Filter{
					{Text: "(c.a = c.b)"},
					{Text: `(c.kind = "x")`, Kind: FilterEqual, Path: path("kind"), Literal: "x", HasLiteral: true, Served: true},
				}},
		},
		{
			name:    "two ORDER BY items without a composite index",
			query:   "SELECT * FROM c ORDER BY c.a, c.b DESC",
			pol:     all,
			want:    Analysis{Top: -1, IndexLookups: 1, Projection: star, OrderBy: []index.OrderItem{item(false, "a"), item(true, "b")}},
			wantErr: new(*MissingCompositeIndexError),
		},
		{
			name:    "ORDER BY an excluded path",
			query:   "SELECT * FROM c ORDER BY c.status",
			pol:     noStatus,
			want:    Analysis{Top: -1, IndexLookups: 1, Projection: star, OrderBy: []index.OrderItem{item(false, "status")}},
			wantErr: new(*ExcludedOrderByError),
		},
		{
			// index-policy.md, "Queries with a filter and ORDER BY": "Query using range index".
			name:  "equality on a path the ORDER BY does not name sorts in memory, composite index or not",
			query: "SELECT TOP 10 * FROM c WHERE c.type = 'order' ORDER BY c.createdAt DESC",
			pol:   typeDate,
			want: Analysis{Top: 10, Narrowing: true, IndexLookups: 2, Projection: star,
				OrderBy: []index.OrderItem{item(true, "createdAt")}, TypeLiteral: "order", TypePath: path("type"),
				Filters: []Filter{{Text: `(c.type = "order")`, Kind: FilterEqual, Path: path("type"), Literal: "order", HasLiteral: true, Served: true}}},
		},
		{
			// The same, the filtered property first in the ORDER BY: "Query using composite index".
			name:  "equality then ORDER BY of the filtered path and another served by a composite index",
			query: "SELECT TOP 10 * FROM c WHERE c.type = 'order' ORDER BY c.type DESC, c.createdAt DESC",
			pol:   typeDate,
			want: Analysis{Top: 10, Narrowing: true, IndexLookups: 2, Projection: star, OrderStreams: true,
				OrderBy: []index.OrderItem{item(true, "type"), item(true, "createdAt")}, TypeLiteral: "order", TypePath: path("type"),
				Filters: []Filter{{Text: `(c.type = "order")`, Kind: FilterEqual, Path: path("type"), Literal: "order", HasLiteral: true, Served: true}}},
		},
		{
			name:  "equality then ORDER BY without a composite index sorts in memory",
			query: "SELECT * FROM c WHERE c.status = 'a' ORDER BY c.createdAt",
			pol:   all,
			want: Analysis{Top: -1, Narrowing: true, IndexLookups: 2, Projection: star, OrderBy: []index.OrderItem{item(false, "createdAt")},
				Filters: []Filter{{Text: `(c.status = "a")`, Kind: FilterEqual, Path: path("status"), Literal: "a", HasLiteral: true, Served: true}}},
		},
		{
			name:  "ORDER BY alone streams from the range index",
			query: "SELECT TOP @n * FROM c ORDER BY c.createdAt",
			pol:   all,
			want:  Analysis{Top: -1, IndexLookups: 1, Projection: star, OrderStreams: true, OrderBy: []index.OrderItem{item(false, "createdAt")}},
		},
		{
			name:  "aggregate value",
			query: "SELECT VALUE COUNT(1) FROM c",
			pol:   all,
			want: Analysis{Top: -1, Aggregates: []string{"COUNT"},
				Projection: Projection{Kind: ProjectValue, Items: []Projected{{Aggregate: true}}}},
		},
		{
			name:  "joins over arrays and a subquery",
			query: "SELECT t, c.id FROM c JOIN t IN c.tags JOIN (SELECT VALUE l FROM l IN c.lines WHERE l.qty > 1) s",
			pol:   all,
			want: Analysis{Top: -1,
				Joins: []Join{{Alias: "t", Path: path("tags")}, {Alias: "s", Subquery: true}},
				Projection: Projection{Kind: ProjectList, Items: []Projected{
					{Name: "t", Path: path("tags", "[]"), IsPath: true},
					{Name: "id", Path: path("id"), IsPath: true},
				}}},
		},
		{
			name:  "projected properties, aliases and expressions",
			query: "SELECT c.id, c.a.b AS x, c.n + 1, SUM(c.q) AS total FROM c GROUP BY c.id, c.a.b, c.n",
			pol:   all,
			want: Analysis{Top: -1, Aggregates: []string{"SUM"}, GroupPaths: [][]string{path("id"), path("a", "b"), path("n")},
				Projection: Projection{Kind: ProjectList, Items: []Projected{
					{Name: "id", Path: path("id"), IsPath: true},
					{Name: "x", Path: path("a", "b"), IsPath: true},
					{Name: "$1"},
					{Name: "total", Aggregate: true},
				}}},
		},
		{
			name:  "SELECT VALUE of the document",
			query: "SELECT VALUE c FROM c WHERE c.docType = 'user'",
			pol:   nil,
			want: Analysis{Top: -1, Narrowing: true, IndexLookups: 1, TypeLiteral: "user", TypePath: path("docType"),
				Projection: Projection{Kind: ProjectValue, Items: []Projected{{Path: []string{}, IsPath: true}}},
				Filters:    []Filter{{Text: `(c.docType = "user")`, Kind: FilterEqual, Path: path("docType"), Literal: "user", HasLiteral: true, Served: true}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := Parse(tt.query)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := Analyze(q, tt.pol)
			gotErr := got.OrderByErr
			got.OrderByErr = nil
			got.Shape, tt.want.Shape = Shape{}, Shape{} // Query.Shape has its own tests
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Analyze(%s)\n got %+v\nwant %+v", tt.query, got, tt.want)
			}
			switch {
			case tt.wantErr == nil && gotErr != nil:
				t.Errorf("OrderByErr = %v, want none", gotErr)
			case tt.wantErr != nil && (gotErr == nil || !errors.As(gotErr, tt.wantErr)):
				t.Errorf("OrderByErr = %v, want %T", gotErr, tt.wantErr)
			}
		})
	}
}

func TestAnalyze_NilQuery(t *testing.T) {
	if got := Analyze(nil, nil); got.Top != -1 || got.Filters != nil || got.FullScan {
		t.Errorf("Analyze(nil) = %+v", got)
	}
}

func TestAnalyze_ShapeAndNoWhere(t *testing.T) {
	q, err := Parse("SELECT DISTINCT TOP 3 c.a FROM c OFFSET 1 LIMIT 2")
	if err != nil {
		t.Fatal(err)
	}
	a := Analyze(q, nil)
	if a.Shape != q.Shape() || !a.Shape.Distinct || !a.Shape.Top || a.Top != 3 {
		t.Errorf("shape %+v, top %d", a.Shape, a.Top)
	}
	if a.Narrowing || a.FullScan || a.IndexLookups != 0 {
		t.Errorf("no WHERE: narrowing %v, full scan %v, lookups %d", a.Narrowing, a.FullScan, a.IndexLookups)
	}
}

// Analyze and Execute share the planner: the facts Execute measures agree with what Analyze said
// before any document was read.
func TestAnalyze_AgreesWithExecute(t *testing.T) {
	src := docs(t, `[
		{"id":"1","type":"order","status":"open","name":"Ann","createdAt":3,"tags":["a","b"]},
		{"id":"2","type":"order","status":"shut","name":"bob","createdAt":1,"tags":["b"]},
		{"id":"3","type":"user","status":"open","name":"Cy","createdAt":2,"tags":[]}
	]`)
	pols := map[string]*index.Compiled{
		"all":       compile(t, index.Policy{IncludedPaths: []index.Path{{Path: "/*"}}}),
		"no status": compile(t, index.Policy{IncludedPaths: []index.Path{{Path: "/*"}}, ExcludedPaths: []index.Path{{Path: "/status/?"}}}),
		"composite": compile(t, index.Policy{IncludedPaths: []index.Path{{Path: "/*"}},
			CompositeIndexes: [][]index.CompositePath{{{Path: "/type"}, {Path: "/createdAt", Order: "descending"}}}}),
	}
	queries := []string{
		"SELECT * FROM c WHERE c.status = 'open'",
		"SELECT * FROM c WHERE c.type = 'order' AND c.status = 'open'",
		"SELECT * FROM c WHERE UPPER(c.name) = 'ANN'",
		"SELECT * FROM c WHERE c.type = 'order' ORDER BY c.createdAt DESC",
		"SELECT * FROM c WHERE c.status IN ('open', 'shut') ORDER BY c.createdAt",
		"SELECT * FROM c ORDER BY c.createdAt",
		"SELECT c.id FROM c WHERE ARRAY_CONTAINS(c.tags, 'b')",
	}
	for name, pol := range pols {
		for _, text := range queries {
			q, err := Parse(text)
			if err != nil {
				t.Fatalf("Parse(%s): %v", text, err)
			}
			a := Analyze(q, pol)
			res, err := Execute(q, src, Options{Policy: pol})
			if a.OrderByErr != nil {
				if err == nil || err.Error() != a.OrderByErr.Error() {
					t.Errorf("%s / %s: Analyze says %v, Execute says %v", name, text, a.OrderByErr, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s / %s: Execute: %v", name, text, err)
			}
			f := res.Facts
			if f.FullScan != a.FullScan || f.IndexLookups != a.IndexLookups {
				t.Errorf("%s / %s: Execute full scan %v lookups %d; Analyze %v %d", name, text, f.FullScan, f.IndexLookups, a.FullScan, a.IndexLookups)
			}
			if len(a.OrderBy) > 0 && (f.SortedInMemory > 0) == a.OrderStreams {
				t.Errorf("%s / %s: sorted in memory %d, Analyze says streams %v", name, text, f.SortedInMemory, a.OrderStreams)
			}
			if len(a.Functions) > 0 && f.FunctionCalls == 0 {
				t.Errorf("%s / %s: Analyze lists %v, Execute counted no calls", name, text, a.Functions)
			}
		}
	}
}

// Analyze must not panic on any query Parse accepts, under any of these policies.
func FuzzAnalyze(f *testing.F) {
	for _, q := range []string{
		"SELECT * FROM c WHERE c.a = 1 AND (c.b > 2 OR NOT c.c) ORDER BY c.d",
		"SELECT VALUE t FROM c JOIN t IN c.tags WHERE ARRAY_CONTAINS(c.tags, 'x') AND t = c.a",
		"SELECT TOP @n c.a, COUNT(1) AS n FROM c WHERE c.a IN (1, @p) GROUP BY c.a",
		"SELECT * FROM x IN c.items WHERE x.q BETWEEN 1 AND 2 ORDER BY x.q DESC, x.r",
		"SELECT EXISTS(SELECT VALUE 1 FROM l IN c.lines WHERE l.q > 1) FROM c WHERE UPPER(c.n) = 'A'",
	} {
		f.Add(q)
	}
	pols := []*index.Compiled{nil}
	for _, p := range []index.Policy{
		{IndexingMode: "none"},
		{IncludedPaths: []index.Path{{Path: "/a/?"}}, ExcludedPaths: []index.Path{{Path: "/*"}},
			CompositeIndexes: [][]index.CompositePath{{{Path: "/a"}, {Path: "/d", Order: "descending"}}}},
	} {
		c, err := index.Compile(p)
		if err != nil {
			f.Fatal(err)
		}
		pols = append(pols, c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		q, err := Parse(text)
		if err != nil {
			return
		}
		for _, pol := range pols {
			a := Analyze(q, pol)
			if a.FullScan && a.Narrowing {
				t.Fatalf("%q: both full scan and narrowing", text)
			}
		}
	})
}
