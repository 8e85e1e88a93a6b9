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

// ORDER BY served by a composite index of exactly its paths, in the index's directions or all
// reversed, the leading ones pinned by equality filters, streams from the index instead of sorting
// in memory; an equality on a path the ORDER BY does not name does not stream, whatever composite
// index holds it (index-policy.md, "Queries with a filter and ORDER BY").
func TestOrderStreams_EqualityPrefixes(t *testing.T) {
	pol, err := index.Compile(index.Policy{Automatic: true, IndexingMode: "consistent",
		IncludedPaths: []index.Path{{Path: "/*"}},
		CompositeIndexes: [][]index.CompositePath{
			{{Path: "/type", Order: "ascending"}, {Path: "/createdAt", Order: "descending"}},
			{{Path: "/categoryId", Order: "ascending"}, {Path: "/price", Order: "ascending"}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		"SELECT * FROM c WHERE c.type = 'order' ORDER BY c.type, c.createdAt DESC",
		"SELECT * FROM c WHERE c.type = 'order' ORDER BY c.type DESC, c.createdAt ASC",
		"SELECT * FROM c WHERE c.categoryId = 'x' ORDER BY c.categoryId, c.price",
	} {
		q, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if a := Analyze(q, pol); !a.OrderStreams {
			t.Errorf("%s: want the composite index to serve the ORDER BY", text)
		}
	}
	for _, text := range []string{
		"SELECT * FROM c WHERE c.type = 'order' ORDER BY c.createdAt DESC",
		"SELECT * FROM c WHERE c.categoryId = 'x' ORDER BY c.price",
	} {
		q, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if a := Analyze(q, pol); a.OrderStreams {
			t.Errorf("%s: the composite index serves only an ORDER BY of its paths; want sorted", text)
		}
	}
}
