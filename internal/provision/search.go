package provision

import (
	"fmt"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// searchProperties adds a designed container's full-text and vector settings to its properties:
// the full-text and vector embedding policies, and the full-text and vector indexes of its
// indexing policy.
func searchProperties(c *design.Container, props *azcosmos.ContainerProperties) {
	if ft := c.FullText; ft != nil {
		p := &azcosmos.FullTextPolicy{DefaultLanguage: ft.Language}
		for _, path := range ft.Paths {
			p.FullTextPaths = append(p.FullTextPaths, azcosmos.FullTextPath{Path: path, Language: ft.Language})
		}
		props.FullTextPolicy = p
	}
	if len(c.Vectors) > 0 {
		p := &azcosmos.VectorEmbeddingPolicy{}
		for _, v := range c.Vectors {
			p.VectorEmbeddings = append(p.VectorEmbeddings, azcosmos.VectorEmbedding{Path: v.Path,
				DataType: azcosmos.VectorDataType(v.DataType), DistanceFunction: azcosmos.VectorDistanceFunction(v.Distance),
				Dimensions: int32(v.Dimensions)})
		}
		props.VectorEmbeddingPolicy = p
	}
	if ix := c.Indexing; ix != nil && props.IndexingPolicy != nil {
		for _, path := range ix.FullText {
			props.IndexingPolicy.FullTextIndexes = append(props.IndexingPolicy.FullTextIndexes, azcosmos.FullTextIndex{Path: path})
		}
		for _, vi := range ix.Vector {
			props.IndexingPolicy.VectorIndexes = append(props.IndexingPolicy.VectorIndexes,
				azcosmos.VectorIndex{Path: vi.Path, Type: azcosmos.VectorIndexType(vi.Type)})
		}
	}
}

// diffSearch compares the designed full-text and vector settings with the stored ones. A target
// that dropped them (an emulator without search) runs the search patterns against something else,
// or fails them: a warning.
func diffSearch(name string, want, got azcosmos.ContainerProperties) []record.Finding {
	var diffs []string
	cmp := func(what string, w, g []string) {
		if !slices.Equal(w, g) {
			diffs = append(diffs, fmt.Sprintf("%s designed %s, stored %s", what, listOrNone(w), listOrNone(g)))
		}
	}
	cmp("full-text paths", fullTextSet(want.FullTextPolicy), fullTextSet(got.FullTextPolicy))
	cmp("vector embeddings", vectorSet(want.VectorEmbeddingPolicy), vectorSet(got.VectorEmbeddingPolicy))
	var wi, gi *azcosmos.IndexingPolicy = want.IndexingPolicy, got.IndexingPolicy
	if wi != nil {
		if gi == nil {
			gi = &azcosmos.IndexingPolicy{}
		}
		cmp("full-text indexes", fullTextIndexSet(wi.FullTextIndexes), fullTextIndexSet(gi.FullTextIndexes))
		cmp("vector indexes", vectorIndexSet(wi.VectorIndexes), vectorIndexSet(gi.VectorIndexes))
	}
	if len(diffs) == 0 {
		return nil
	}
	return []record.Finding{finding(name, "warn", "search settings differ ("+strings.Join(diffs, "; ")+
		"): the target did not keep the designed full-text or vector settings, so search patterns will not behave as designed")}
}

func fullTextSet(p *azcosmos.FullTextPolicy) []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, x := range p.FullTextPaths {
		out = append(out, x.Path)
	}
	slices.Sort(out)
	return out
}

func vectorSet(p *azcosmos.VectorEmbeddingPolicy) []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, v := range p.VectorEmbeddings {
		out = append(out, fmt.Sprintf("%s %s %s %d", v.Path, strings.ToLower(string(v.DataType)), strings.ToLower(string(v.DistanceFunction)), v.Dimensions))
	}
	slices.Sort(out)
	return out
}

func fullTextIndexSet(xs []azcosmos.FullTextIndex) []string {
	var out []string
	for _, x := range xs {
		out = append(out, x.Path)
	}
	slices.Sort(out)
	return out
}

func vectorIndexSet(xs []azcosmos.VectorIndex) []string {
	var out []string
	for _, x := range xs {
		out = append(out, x.Path+" "+string(x.Type))
	}
	slices.Sort(out)
	return out
}
