package lint

import (
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestUnusedComposite (#37 point 7): of testdata/advise/unused-composite.yaml's two composite
// indexes, (/brand asc, /rating desc) is used by no query (none orders by it or filters on both
// paths) and is named at its line; (/categoryId asc, /price asc) serves AP1's ORDER BY and is not.
func TestUnusedComposite(t *testing.T) {
	d, err := design.Load("../../testdata/advise/unused-composite.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []Finding
	for _, f := range Check(d) {
		if f.Code == "index-unused" {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Path != "containers[0].indexing.composite[0]" || got[0].Pos.Line != 14 {
		t.Fatalf("index-unused findings %v, want one at containers[0].indexing.composite[0] (line 14)", got)
	}
}
