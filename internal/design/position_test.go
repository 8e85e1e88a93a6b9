package design

import (
	"strings"
	"testing"
)

// TestValuePos: a byte of a query maps to its line and column in the file, whatever the scalar's
// style.
func TestValuePos(t *testing.T) {
	tests := []struct {
		name, query string
		// want is the line:col of the first "owner" in the query.
		wantLine, wantCol int
	}{
		{"plain", `query: SELECT * FROM c WHERE c.owner = @o`, 11, 36},
		{"double-quoted", `query: "SELECT * FROM c WHERE c.x = \"a\" AND c.owner = @o"`, 11, 53},
		{"single-quoted", `query: 'SELECT * FROM c WHERE c.x = ''a'' AND c.owner = @o'`, 11, 53},
		{"plain over two lines", "query: SELECT * FROM c\n      WHERE c.owner = @o", 12, 15},
		{"double-quoted over two lines", "query: \"SELECT * FROM c\n      WHERE c.owner = @o\"", 12, 15},
		{"literal", "query: |\n      SELECT *\n      FROM c\n      WHERE c.x = 1\n        AND c.owner = @o", 15, 15},
		{"folded", "query: >\n      SELECT * FROM c\n      WHERE c.owner = @o", 13, 15},
		{"literal, keep indicator", "query: |-\n      SELECT * FROM c WHERE c.owner = @o", 12, 31},
	}
	const src = `version: 1
name: t
containers:
  - name: C
    partitionKey: [/k]
    documents:
      - type: t
        count: 1
        fields: {k: {gen: word}, owner: {gen: word}, x: {gen: int}}
accessPatterns:
  - QUERY
    id: Q1
    name: q
    container: C
    op: query
    params: {"@o": "x"}
    rps: {avg: 1}
    estimate: {ru: 3}
`
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			yml := strings.Replace(src, "  - QUERY\n", "  - "+tc.query+"\n", 1)
			d, err := Parse([]byte(yml), "t.yaml")
			if err != nil {
				t.Fatalf("parse: %v\n%s", err, yml)
			}
			q := d.AccessPatterns[0].Query
			off := strings.Index(q, "owner")
			got := d.ValuePos("accessPatterns[0].query", q, off)
			if got.Line != tc.wantLine || got.Col != tc.wantCol {
				t.Errorf("owner at %d:%d, want %d:%d\n%s", got.Line, got.Col, tc.wantLine, tc.wantCol, yml)
			}
		})
	}
}

// TestParse_SyntaxErrorPointsAtTheMistake: the YAML library names the line where the enclosing
// mapping starts and no column; the error names the line of the mistake and its column.
func TestParse_SyntaxErrorPointsAtTheMistake(t *testing.T) {
	src := "version: 1\nname: t\ncontainers:\n  - name: C\n    partitionKey: [/k]\n    documents:\n      - type: order\n        id: \"o-{uuid}\"\n        count: 3\n          k: {gen: word}\naccessPatterns: []\n"
	_, err := Parse([]byte(src), "t.yaml")
	if err == nil || !strings.HasPrefix(err.Error(), "t.yaml:10:11: YAML syntax:") {
		t.Fatalf("err = %v, want it at t.yaml:10:11", err)
	}
}
