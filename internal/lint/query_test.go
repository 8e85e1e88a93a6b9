package lint

import (
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestCheck_QueryProblems: what run's target would refuse with a 400 for a reason of the design,
// lint reports first, at the offending character of the design file, in the engine's words.
func TestCheck_QueryProblems(t *testing.T) {
	tests := []struct {
		name, indexing, query string
		want                  string
	}{
		{"syntax error in a plain scalar", "", "SELECT * FROM c WHERE c.ownerId == @owner",
			"t.yaml:24:45: accessPatterns[0].query: Syntax error, incorrect syntax near '='. [query-syntax]"},
		{"syntax error in a block scalar", "", "|\n      SELECT *\n      FROM c\n      WHERE c.ownerId == @owner",
			"t.yaml:27:24: accessPatterns[0].query: Syntax error, incorrect syntax near '='. [query-syntax]"},
		{"unknown function", "", "SELECT * FROM c WHERE c.ownerId = @owner AND STARTS_WITH(c.ownerId, 'u')",
			"t.yaml:24:57: accessPatterns[0].query: 'STARTS_WITH' is not a recognized built-in function name. [query-syntax]"},
		{"two-field ORDER BY without a composite index", "", "SELECT * FROM c WHERE c.ownerId = @owner ORDER BY c.score DESC, c.createdAt DESC",
			"accessPatterns[0].query: The order by query does not have a corresponding composite index that it can be served from. A composite index with the ORDER BY's paths and orders (or all reversed) serves it: add to containers[0]: indexing: {composite: [[{path: /score, order: desc}, {path: /createdAt, order: desc}]]} [query-order-by]"},
		{"two-field ORDER BY with the index", "indexing: {composite: [[{path: /score, order: asc}, {path: /createdAt, order: asc}]]}",
			"SELECT * FROM c WHERE c.ownerId = @owner ORDER BY c.score DESC, c.createdAt DESC", ""},
		{"an index exists: the fix appends one", "indexing: {composite: [[{path: /ownerId, order: asc}, {path: /score, order: asc}]]}",
			"SELECT * FROM c WHERE c.ownerId = @owner ORDER BY c.score DESC, c.createdAt DESC",
			"add to containers[0].indexing.composite: - [{path: /score, order: desc}, {path: /createdAt, order: desc}] [query-order-by]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.NewReplacer("INDEXING", tc.indexing, "APPFIELDS", "", "QUERY", tc.query, "PATCHPATH", "/score").Replace(feed)
			d, err := design.Parse([]byte(src), "t.yaml")
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			var got []string
			for _, f := range Check(d) {
				if strings.HasPrefix(f.Code, "query-") {
					got = append(got, f.String())
				}
			}
			if tc.want == "" {
				if len(got) > 0 {
					t.Fatalf("findings %q, want none", got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("findings:\n%s\nwant one containing:\n%s", strings.Join(got, "\n"), tc.want)
			}
		})
	}
}
