package engine

import (
	"fmt"
	"strings"

	"github.com/cosmosdv/validate/internal/engine/sql"
)

// Full-text and vector settings of a container (nosql/vector-search.md, nosql/gen-ai/
// full-text-search.md): the vectorEmbeddingPolicy and fullTextPolicy properties and the
// vectorIndexes and fullTextIndexes of the indexing policy, validated as the service validates them
// and kept as given, so that they read back and diff like the rest of the container.

// vectorDataTypes and distanceFunctions are the values the vector embedding policy accepts.
var (
	vectorDataTypes   = []string{"float32", "float16", "int8", "uint8"}
	distanceFunctions = []string{"cosine", "dotproduct", "euclidean"}
	vectorIndexTypes  = []string{"flat", "quantizedFlat", "diskANN"}
)

// Dimension limits (vector-search.md): a flat index holds vectors of at most 505 dimensions; the
// quantizedFlat and diskANN indexes, and the policy itself, at most 4,096.
const (
	maxFlatDimensions   = 505
	maxVectorDimensions = 4096
)

// parseSearch validates a container resource's search settings and returns them for queries
// (nil when the container has none).
func parseSearch(m map[string]any) (*sql.Search, error) {
	s := &sql.Search{FullText: map[string]bool{}, FullTextIndexed: map[string]bool{}, Vectors: map[string]string{}}
	dims := map[string]int{}
	if raw, ok := m["vectorEmbeddingPolicy"]; ok && raw != nil {
		vp, _ := raw.(map[string]any)
		list, _ := vp["vectorEmbeddings"].([]any)
		if vp == nil || (vp["vectorEmbeddings"] != nil && list == nil) {
			return nil, errf(400, "The vector embedding policy must be an object with a vectorEmbeddings array.")
		}
		for i, e := range list {
			v, _ := e.(map[string]any)
			path, _ := v["path"].(string)
			dt, _ := v["dataType"].(string)
			fn, _ := v["distanceFunction"].(string)
			d, _ := v["dimensions"].(float64)
			where := fmt.Sprintf("vectorEmbeddingPolicy.vectorEmbeddings[%d]", i)
			switch {
			case !strings.HasPrefix(path, "/") || len(path) < 2:
				return nil, errf(400, "%s.path must be a document path such as /embedding (got %q).", where, path)
			case !containsFold(vectorDataTypes, dt):
				return nil, errf(400, "%s.dataType must be one of %s (got %q).", where, strings.Join(vectorDataTypes, ", "), dt)
			case !containsFold(distanceFunctions, fn):
				return nil, errf(400, "%s.distanceFunction must be one of %s (got %q).", where, strings.Join(distanceFunctions, ", "), fn)
			case d < 1 || d > maxVectorDimensions || d != float64(int(d)):
				return nil, errf(400, "%s.dimensions must be a whole number from 1 to %d (got %v).", where, maxVectorDimensions, v["dimensions"])
			}
			if _, dup := s.Vectors[path]; dup {
				return nil, errf(400, "%s: the path %s appears twice in the vector embedding policy.", where, path)
			}
			s.Vectors[path] = strings.ToLower(fn)
			dims[path] = int(d)
		}
	}
	if raw, ok := m["fullTextPolicy"]; ok && raw != nil {
		fp, _ := raw.(map[string]any)
		if fp == nil {
			return nil, errf(400, "The full-text policy must be an object with defaultLanguage and fullTextPaths.")
		}
		list, _ := fp["fullTextPaths"].([]any)
		for i, e := range list {
			v, _ := e.(map[string]any)
			path, _ := v["path"].(string)
			if !strings.HasPrefix(path, "/") || len(path) < 2 {
				return nil, errf(400, "fullTextPolicy.fullTextPaths[%d].path must be a document path such as /description (got %q).", i, path)
			}
			s.FullText[path] = true
		}
	}
	pol, _ := m["indexingPolicy"].(map[string]any)
	if list, ok := pol["vectorIndexes"].([]any); ok {
		for i, e := range list {
			v, _ := e.(map[string]any)
			path, _ := v["path"].(string)
			typ, _ := v["type"].(string)
			where := fmt.Sprintf("indexingPolicy.vectorIndexes[%d]", i)
			d, inPolicy := dims[path]
			switch {
			case !inPolicy:
				return nil, errf(400, "%s: the path %q is not in the container's vector embedding policy; a vector index needs its path there.", where, path)
			case !containsFold(vectorIndexTypes, typ):
				return nil, errf(400, "%s.type must be one of %s (got %q).", where, strings.Join(vectorIndexTypes, ", "), typ)
			case strings.EqualFold(typ, "flat") && d > maxFlatDimensions:
				return nil, errf(400, "%s: a flat vector index holds at most %d dimensions; %s has %d (use quantizedFlat or diskANN).", where, maxFlatDimensions, path, d)
			}
		}
	}
	if list, ok := pol["fullTextIndexes"].([]any); ok {
		for i, e := range list {
			v, _ := e.(map[string]any)
			path, _ := v["path"].(string)
			if !s.FullText[path] {
				return nil, errf(400, "indexingPolicy.fullTextIndexes[%d]: the path %q is not in the container's full-text policy; a full-text index needs its path there.", i, path)
			}
			s.FullTextIndexed[path] = true
		}
	}
	if len(s.FullText) == 0 && len(s.Vectors) == 0 {
		return nil, nil
	}
	return s, nil
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
