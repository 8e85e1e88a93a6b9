package index

import (
	"strings"
	"testing"
)

func mustCompile(t *testing.T, p Policy) *Compiled {
	t.Helper()
	c, err := Compile(p)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return c
}

func TestCompile_Errors(t *testing.T) {
	tests := []struct {
		name    string
		p       Policy
		wantErr string
	}{
		{"default ok", Policy{}, ""},
		{"mode case-insensitive", Policy{IndexingMode: "Consistent"}, ""},
		{"bad mode", Policy{IndexingMode: "eager"}, "indexingMode is invalid"},
		{"no leading slash", Policy{IncludedPaths: []Path{{"userId/?"}}}, "could not be accepted"},
		{"no terminal", Policy{IncludedPaths: []Path{{"/*"}, {"/userId"}}}, "could not be accepted"},
		{"root question", Policy{IncludedPaths: []Path{{"/?"}}}, "could not be accepted"},
		{"wildcard in middle", Policy{IncludedPaths: []Path{{"/*"}, {"/a/*/b/?"}}}, "could not be accepted"},
		{"no root", Policy{IncludedPaths: []Path{{"/a/?"}}}, "special mandatory indexing path"},
		{"root excluded", Policy{IncludedPaths: []Path{{"/a/?"}}, ExcludedPaths: []Path{{"/*"}}}, ""},
		{"quoted label", Policy{IncludedPaths: []Path{{"/*"}, {`/"a b"/?`}}}, ""},
		{"duplicate", Policy{IncludedPaths: []Path{{"/*"}, {"/a/?"}}, ExcludedPaths: []Path{{"/a/?"}}}, "more than once"},
		{"composite one path", Policy{CompositeIndexes: [][]CompositePath{{{Path: "/a"}}}}, "at least 2 paths"},
		{"composite bad order", Policy{CompositeIndexes: [][]CompositePath{{{Path: "/a"}, {Path: "/b", Order: "up"}}}}, "order of composite"},
		{"composite wildcard", Policy{CompositeIndexes: [][]CompositePath{{{Path: "/a/*"}, {Path: "/b"}}}}, "must not contain"},
		{"composite ok", Policy{CompositeIndexes: [][]CompositePath{{{Path: "/a"}, {Path: "/b", Order: "Descending"}}}}, ""},
		{"none with paths", Policy{IndexingMode: "none", IncludedPaths: []Path{{"/*"}}}, "must be empty"},
		{"none empty", Policy{IndexingMode: "none"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.p)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCompiled_Indexed(t *testing.T) {
	p := Policy{
		IndexingMode:  "consistent",
		IncludedPaths: []Path{{"/*"}, {"/secret/public/?"}, {"/logs/*"}},
		ExcludedPaths: []Path{{"/secret/*"}, {"/logs/body/?"}, {"/tags/[]/?"}, {"/blob/?"}},
	}
	c := mustCompile(t, p)
	tests := []struct {
		path []string
		want bool
	}{
		{[]string{"userId"}, true},
		{[]string{"a", "b", "c"}, true},
		{[]string{"secret"}, false},
		{[]string{"secret", "x"}, false},
		{[]string{"secret", "public"}, true},
		{[]string{"secret", "public", "deeper"}, false},
		{[]string{"logs", "body"}, false},
		{[]string{"logs", "level"}, true},
		{[]string{"tags", "[]"}, false},
		{[]string{"tags"}, true},
		{[]string{"blob"}, false},
		{[]string{"blob", "inner"}, true},
		{[]string{"_etag"}, false},
	}
	for _, tt := range tests {
		if got := c.Indexed(tt.path); got != tt.want {
			t.Errorf("Indexed(%v) = %v, want %v", tt.path, got, tt.want)
		}
	}
	onlyA := mustCompile(t, Policy{IncludedPaths: []Path{{"/a/?"}, {"/tags/[]/?"}}, ExcludedPaths: []Path{{"/*"}}})
	for path, want := range map[string]bool{"a": true, "b": false, "a/x": false, "tags/[]": true, "tags": false} {
		if got := onlyA.Indexed(strings.Split(path, "/")); got != want {
			t.Errorf("onlyA.Indexed(%s) = %v, want %v", path, got, want)
		}
	}
	none := mustCompile(t, Policy{IndexingMode: "none"})
	if none.Indexed([]string{"a"}) {
		t.Error("mode none indexes a path")
	}
	var nilC *Compiled
	if !nilC.Indexed([]string{"a"}) {
		t.Error("nil policy must index everything")
	}
}

func TestCompiled_Terms(t *testing.T) {
	body := map[string]any{
		"id": "1", "n": 2.0, "tags": []any{"a", "b", nil}, "addr": map[string]any{"city": "x", "zip": "y"},
		"_etag": "e", "empty": map[string]any{},
	}
	all := mustCompile(t, Policy{})
	if got, want := all.Terms(body), 7; got != want { // id n city zip, 3 tags (one term each); _etag excluded
		t.Errorf("Terms(all) = %d, want %d", got, want)
	}
	some := mustCompile(t, Policy{
		IncludedPaths:    []Path{{"/*"}},
		ExcludedPaths:    []Path{{"/tags/*"}},
		CompositeIndexes: [][]CompositePath{{{Path: "/id"}, {Path: "/n"}}, {{Path: "/id"}, {Path: "/missing"}}},
	})
	if got, want := some.Terms(body), 4+1; got != want {
		t.Errorf("Terms(some) = %d, want %d", got, want)
	}
	none := mustCompile(t, Policy{IndexingMode: "none"})
	if got := none.Terms(body); got != 0 {
		t.Errorf("Terms(none) = %d, want 0", got)
	}
}

func TestCompiled_HasComposite(t *testing.T) {
	c := mustCompile(t, Policy{CompositeIndexes: [][]CompositePath{
		{{Path: "/name", Order: "ascending"}, {Path: "/age", Order: "ascending"}},
		{{Path: "/a"}, {Path: "/b", Order: "descending"}, {Path: "/c"}},
	}})
	item := func(p string, desc bool) OrderItem { return OrderItem{Path: strings.Split(p, "/"), Desc: desc} }
	tests := []struct {
		name  string
		items []OrderItem
		want  bool
	}{
		{"same", []OrderItem{item("name", false), item("age", false)}, true},
		{"inverted", []OrderItem{item("name", true), item("age", true)}, true},
		{"mixed", []OrderItem{item("name", false), item("age", true)}, false},
		{"reordered", []OrderItem{item("age", false), item("name", false)}, false},
		{"prefix of longer", []OrderItem{item("a", false), item("b", true)}, false},
		{"three inverted", []OrderItem{item("a", true), item("b", false), item("c", true)}, true},
		{"empty", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.HasComposite(tt.items); got != tt.want {
				t.Errorf("HasComposite = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFormatPath(t *testing.T) {
	if got := FormatPath([]string{"a", "[]", "b c"}); got != `/a/[]/"b c"/?` {
		t.Errorf("FormatPath = %s", got)
	}
}
