package querycheck

import (
	"reflect"
	"strings"
	"testing"

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
