package querycheck

import (
	"reflect"
	"testing"

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
