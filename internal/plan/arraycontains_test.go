package plan

import (
	"os"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestBuild_ArrayContainsAnyAll: ARRAY_CONTAINS_ANY and ARRAY_CONTAINS_ALL test an array's elements
// as ARRAY_CONTAINS does, by seeks on the elements (the engine reads them so, indexreads.go), never
// as a full index scan. With one element they are ARRAY_CONTAINS; with two, ANY keeps more
// documents than one element and ALL fewer.
func TestBuild_ArrayContainsAnyAll(t *testing.T) {
	src, err := os.ReadFile("../../designs/catalog.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const call = "ARRAY_CONTAINS(c.categoryIds, @categoryId)"
	if !strings.Contains(string(src), call) {
		t.Fatalf("designs/catalog.yaml no longer holds %s: the test needs a query over an array", call)
	}
	ap8 := func(with string) (loaded float64, scanValues int, ru float64) {
		t.Helper()
		d, err := design.Parse([]byte(strings.Replace(string(src), call, with, 1)), "catalog.yaml")
		if err != nil {
			t.Fatalf("%s: %v", with, err)
		}
		p, err := Build(d, Options{})
		if err != nil {
			t.Fatalf("%s: %v", with, err)
		}
		for _, pt := range p.Patterns {
			if pt.ID == "AP8" {
				if pt.Facts == nil {
					t.Fatalf("%s: AP8 has no facts", with)
				}
				return float64(pt.Facts.DocsLoaded), pt.Facts.IndexScanValues, pt.ModelRU
			}
		}
		t.Fatalf("%s: no AP8", with)
		return 0, 0, 0
	}
	one, _, oneRU := ap8(call)
	for _, c := range []struct {
		with     string
		cmp      func(loaded float64) bool
		relation string
	}{
		{"ARRAY_CONTAINS_ANY(c.categoryIds, @categoryId)", func(l float64) bool { return l == one }, "as many as"},
		{"ARRAY_CONTAINS_ALL(c.categoryIds, @categoryId)", func(l float64) bool { return l == one }, "as many as"},
		{"ARRAY_CONTAINS_ANY(c.categoryIds, @categoryId, 'garden')", func(l float64) bool { return l > one }, "more than"},
		{"ARRAY_CONTAINS_ALL(c.categoryIds, @categoryId, 'garden')", func(l float64) bool { return l < one }, "fewer than"},
	} {
		loaded, scan, ru := ap8(c.with)
		if scan != 0 {
			t.Errorf("%s: %d distinct values of a full index scan, want seeks only", c.with, scan)
		}
		if !c.cmp(loaded) {
			t.Errorf("%s: %g documents loaded (%.2f RU), want %s ARRAY_CONTAINS's %g (%.2f RU)", c.with, loaded, ru, c.relation, one, oneRU)
		}
	}
}
