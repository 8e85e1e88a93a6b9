package sql

import (
	"fmt"
	"strings"
	"testing"
)

func TestPropertyPaths(t *testing.T) {
	tests := []struct {
		query string
		want  string
	}{
		{"SELECT * FROM c WHERE c.owner = @o", "owner@1:25"},
		{"SELECT c.a.b, c['x y'] FROM c ORDER BY c.t DESC", "a/b@1:12 x y@1:17 t@1:42"},
		{"SELECT VALUE t.sku FROM c JOIN t IN c.items WHERE c.tags[0] = 'x'", "items/[]/sku@1:16 items@1:39 tags@1:53"},
		{"SELECT * FROM c\nWHERE EXISTS(SELECT VALUE x FROM x IN c.tags WHERE x.n > 1)", "tags@2:41 tags/[]/n@2:54"},
		{"SELECT COUNT(1) FROM c GROUP BY c.k", "k@1:35"},
	}
	for _, tc := range tests {
		q, err := Parse(tc.query)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		var got []string
		for _, p := range q.PropertyPaths() {
			got = append(got, fmt.Sprintf("%s@%d:%d", strings.Join(p.Path, "/"), p.Line, p.Col))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.query, g, tc.want)
		}
	}
}
