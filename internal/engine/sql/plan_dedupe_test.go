package sql

import (
	"slices"
	"testing"

	"github.com/cosmosdv/validate/internal/engine/index"
)

// A recommended composite index names each path once, even when the query filters on a path twice or
// filters and sorts on the same path.
func TestIndexMetrics_CompositeRecommendationHasNoRepeatedPaths(t *testing.T) {
	pol, err := index.Compile(index.Policy{Automatic: true, IndexingMode: "consistent", IncludedPaths: []index.Path{{Path: "/*"}}})
	if err != nil {
		t.Fatal(err)
	}
	q, err := Parse("SELECT * FROM c WHERE c.userId = @u AND c.type = 'order' AND c.userId = @u ORDER BY c.type ASC, c.createdAt DESC")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Execute(q, sliceSource{}, Options{Params: map[string]any{"@u": "a"}, Policy: pol, PopulateIndexMetrics: true})
	if err == nil {
		t.Fatal("want the missing composite index error")
	}
	_ = res
	q, err = Parse("SELECT * FROM c WHERE c.userId = @u AND c.type = 'order' ORDER BY c.createdAt DESC")
	if err != nil {
		t.Fatal(err)
	}
	res, err = Execute(q, sliceSource{}, Options{Params: map[string]any{"@u": "a"}, Policy: pol, PopulateIndexMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.IndexMetrics.PotentialCompositeIndexes {
		seen := map[string]bool{}
		for _, s := range c.IndexSpecs {
			if seen[s] {
				t.Errorf("repeated path in %v", c.IndexSpecs)
			}
			seen[s] = true
		}
		if !slices.Equal(c.IndexSpecs, []string{"/userId ASC", "/type ASC", "/createdAt DESC"}) {
			t.Errorf("recommended %v", c.IndexSpecs)
		}
	}
}

