package querycheck

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

func TestClauses(t *testing.T) {
	tests := []struct {
		q    string
		want []string
	}{
		{"SELECT * FROM c WHERE c.x = 1", nil},
		{"SELECT TOP 10 * FROM c ORDER BY c.ts", []string{"ORDER BY", "TOP"}},
		{"SELECT VALUE COUNT(1) FROM c", []string{"aggregates"}},
		{"SELECT DISTINCT c.city FROM c", []string{"DISTINCT"}},
		{"SELECT c.city FROM c GROUP BY c.city", []string{"GROUP BY"}},
		{"SELECT * FROM c OFFSET 5 LIMIT 5", []string{"OFFSET/LIMIT"}},
		// Words inside a string are not clauses: the parser, not a pattern over the text, decides.
		{"SELECT * FROM c WHERE c.s = 'count(1) order by'", nil},
	}
	for _, tc := range tests {
		q, err := sql.Parse(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if got := Clauses(q.Shape()); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestFiltersOn(t *testing.T) {
	tests := []struct {
		q, path string
		want    bool
	}{
		{"SELECT * FROM c WHERE c.tenantId = @t", "/tenantId", true},
		{"SELECT * FROM c WHERE c.tenantIdx = @t", "/tenantId", false},
		{"SELECT c.tenantId FROM c WHERE c.x = 1", "/tenantId", false},
		{`SELECT * FROM e WHERE e["tenantId"] = @t AND e.x > 1`, "/tenantId", true},
		{"SELECT * FROM c WHERE c.s = 'c.tenantId = 1'", "/tenantId", false},
		{"SELECT * FROM c", "/tenantId", false},
	}
	for _, tc := range tests {
		q, err := sql.Parse(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if got := FiltersOn(sql.Analyze(q, nil), tc.path); got != tc.want {
			t.Errorf("%s / %s: got %v", tc.q, tc.path, got)
		}
	}
}

// TestCompositeServes: the index as written, with the equality-filtered leading paths added in front
// of the ORDER BY (directions kept with the ORDER BY's), or not at all.
func TestCompositeServes(t *testing.T) {
	items := func(specs ...string) []index.OrderItem {
		var out []index.OrderItem
		for _, s := range specs {
			p, dir, _ := strings.Cut(s, " ")
			out = append(out, index.OrderItem{Path: strings.Split(p, "/"), Desc: dir == "desc"})
		}
		return out
	}
	tests := []struct {
		name, q string
		items   []index.OrderItem
		want    string // the rewritten query; "" for as written
		ok      bool
	}{
		{"as written", "SELECT * FROM c WHERE c.a = @a ORDER BY c.a, c.b DESC", items("a asc", "b desc"), "", true},
		{"no ORDER BY", "SELECT * FROM c WHERE c.a = @a AND c.b > 1", items("a asc", "b asc"), "", true},
		{"filtered path added in front", "SELECT TOP 5 * FROM c WHERE c.a = @a AND c.t = 'x' ORDER BY c.b DESC", items("a asc", "t asc", "b desc"),
			"SELECT TOP 5 * FROM c WHERE c.a = @a AND c.t = 'x' ORDER BY c.a ASC, c.t ASC, c.b DESC", true},
		{"reversed index: the front reversed too", "SELECT * FROM o WHERE o.a = @a ORDER BY o.b DESC", items("a desc", "b asc"),
			"SELECT * FROM o WHERE o.a = @a ORDER BY o.a ASC, o.b DESC", true},
		{"range filter: not served", "SELECT * FROM c WHERE c.a > @a ORDER BY c.b", items("a asc", "b asc"), "", false},
		{"other paths: not served", "SELECT * FROM c WHERE c.a = @a ORDER BY c.b", items("a asc", "x asc"), "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := sql.Parse(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			rw, ok := CompositeServes(Result{Query: q, Analysis: sql.Analyze(q, nil)}, tc.q, tc.items)
			if ok != tc.ok || rw.Query != tc.want {
				t.Fatalf("got %q, %v; want %q, %v", rw.Query, ok, tc.want, tc.ok)
			}
		})
	}
}

// checkDesign is a small design whose container indexes /a and /b and excludes /secret; policy is
// the container's indexing block as written ("" writes none).
func checkDesign(t *testing.T, policy string) *design.Design {
	t.Helper()
	src := `version: 1
name: qc
database: qc
containers:
  - name: Items
    partitionKey: [/pk]
` + policy + `    documents:
      - type: item
        count: 10
        fields:
          pk: {gen: word}
          a: {gen: int, min: 1, max: 9}
          b: {gen: int, min: 1, max: 9}
          secret: {gen: word}
accessPatterns:
  - id: AP1
    name: read
    container: Items
    op: query
    query: SELECT * FROM c WHERE c.a = 1
    rps: {avg: 1}
    estimate: {ru: 3}
`
	d, err := design.Parse([]byte(src), "qc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestCheck(t *testing.T) {
	d := checkDesign(t, "    indexing:\n      included: [\"/*\"]\n      excluded: [\"/secret/?\"]\n")
	t.Run("a query that parses and that the index serves has no problem", func(t *testing.T) {
		r := Check(d, 0, "SELECT * FROM c WHERE c.a = 1 ORDER BY c.b")
		if r.Query == nil || len(r.Problems) != 0 {
			t.Errorf("query %v, problems %+v", r.Query, r.Problems)
		}
	})
	t.Run("a syntax error is query-syntax, at its offset, in the parser's words", func(t *testing.T) {
		r := Check(d, 0, "SELECT * FROM c WHERE c.a = = 1")
		if r.Query != nil || len(r.Problems) != 1 || r.Problems[0].Code != "query-syntax" {
			t.Fatalf("%+v", r)
		}
		if p := r.Problems[0]; p.Offset < len("SELECT * FROM c WHERE c.a ") || p.Offset > len("SELECT * FROM c WHERE c.a = =") {
			t.Errorf("offset %d does not point at the second '=': %q", p.Offset, p.Message)
		}
	})
	t.Run("an ORDER BY on two paths without its composite index names the index to add", func(t *testing.T) {
		r := Check(d, 0, "SELECT * FROM c ORDER BY c.a, c.b DESC")
		if len(r.Problems) != 1 || r.Problems[0].Code != "query-order-by" {
			t.Fatalf("%+v", r.Problems)
		}
		if m := r.Problems[0].Message; !strings.Contains(m, "[{path: /a, order: asc}, {path: /b, order: desc}]") ||
			!strings.Contains(m, "containers[0].indexing: composite:") {
			t.Errorf("message does not give the composite to paste where it goes: %q", m)
		}
	})
	t.Run("an ORDER BY on an excluded path says to include it", func(t *testing.T) {
		r := Check(d, 0, "SELECT * FROM c ORDER BY c.secret")
		if len(r.Problems) != 1 || r.Problems[0].Code != "query-order-by" {
			t.Fatalf("%+v", r.Problems)
		}
		if m := r.Problems[0].Message; !strings.Contains(m, "containers[0].indexing.excluded") || !strings.Contains(m, "/secret") {
			t.Errorf("message does not say which exclusion to remove: %q", m)
		}
	})
}

func TestCompositeFixAndEntry(t *testing.T) {
	items := []index.OrderItem{{Path: []string{"ownerId"}}, {Path: []string{"createdAt"}, Desc: true}}
	const entry = "[{path: /ownerId, order: asc}, {path: /createdAt, order: desc}]"
	if got := CompositeEntry(items); got != entry {
		t.Errorf("CompositeEntry = %q, want %q", got, entry)
	}
	if got := CompositeEntry([]index.OrderItem{{Path: []string{"a", "b"}}}); got != "[{path: /a/b, order: asc}]" {
		t.Errorf("a nested path: %q", got)
	}
	tests := []struct {
		name, policy, want string
	}{
		{"no indexing block: the whole block", "", "add to containers[0]: indexing: {composite: [" + entry + "]}"},
		{"a block without composites: the composite key", "    indexing:\n      included: [\"/*\"]\n", "add to containers[0].indexing: composite: [" + entry + "]"},
		{"composites already: one more entry", "    indexing:\n      composite:\n        - [{path: /a, order: asc}, {path: /b, order: asc}]\n", "add to containers[0].indexing.composite: - " + entry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CompositeFix(checkDesign(t, tt.policy), 0, items); got != tt.want {
				t.Errorf("CompositeFix = %q, want %q", got, tt.want)
			}
		})
	}
}
