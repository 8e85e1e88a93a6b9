package design

import (
	"fmt"
	"strings"
)

// Full-text and vector settings of a container (nosql/vector-search.md and full-text search):
// validated as the service validates them, so that a design the service would refuse is reported
// with its position before anything is provisioned.

// Search setting values the service accepts.
var (
	VectorDataTypes   = []string{"float32", "float16", "int8", "uint8"}
	VectorDistances   = []string{"cosine", "dotproduct", "euclidean"}
	VectorIndexTypes  = []string{"flat", "quantizedFlat", "diskANN"}
	defaultTextLang   = "en-US"
	defaultVectorType = "float32"
)

// Dimension limits (vector-search.md): a vector of at most 4,096 dimensions; a flat index at most
// 505.
const (
	MaxVectorDimensions = 4096
	MaxFlatDimensions   = 505
)

// defaultSearch fills the defaults of a container's search settings.
func defaultSearch(c *Container) {
	if c.FullText != nil && c.FullText.Language == "" {
		c.FullText.Language = defaultTextLang
	}
	for i := range c.Vectors {
		if c.Vectors[i].DataType == "" {
			c.Vectors[i].DataType = defaultVectorType
		}
		if c.Vectors[i].Distance == "" {
			c.Vectors[i].Distance = "cosine"
		}
	}
	if c.Indexing != nil {
		for i := range c.Indexing.Vector {
			if c.Indexing.Vector[i].Type == "" {
				c.Indexing.Vector[i].Type = "flat"
			}
		}
	}
}

func (v *validator) checkSearch(path string, c *Container) {
	text := map[string]bool{}
	if ft := c.FullText; ft != nil {
		if len(ft.Paths) == 0 {
			v.errf(path+".fullText.paths", "list the paths full-text search reads, e.g. [/description]")
		}
		for i, p := range ft.Paths {
			if !strings.HasPrefix(p, "/") || len(p) < 2 {
				v.errf(fmt.Sprintf("%s.fullText.paths[%d]", path, i), "must be a document path such as /description (got %q)", p)
			}
			text[p] = true
		}
	}
	dims := map[string]int{}
	for i := range c.Vectors {
		vs := &c.Vectors[i]
		vp := fmt.Sprintf("%s.vectors[%d]", path, i)
		if !strings.HasPrefix(vs.Path, "/") || len(vs.Path) < 2 {
			v.errf(vp+".path", "must be a document path such as /embedding (got %q)", vs.Path)
		}
		if _, dup := dims[vs.Path]; dup {
			v.errf(vp+".path", "%s appears twice in vectors", vs.Path)
		}
		if vs.Dimensions < 1 || vs.Dimensions > MaxVectorDimensions {
			v.errf(vp+".dimensions", "must be from 1 to %d (got %d)", MaxVectorDimensions, vs.Dimensions)
		}
		if vs.DataType != "" {
			v.checkEnum(vp+".dataType", vs.DataType, VectorDataTypes)
		}
		if vs.Distance != "" {
			v.checkEnum(vp+".distance", vs.Distance, VectorDistances)
		}
		dims[vs.Path] = vs.Dimensions
	}
	ix := c.Indexing
	if ix == nil {
		return
	}
	for i, p := range ix.FullText {
		if !text[p] {
			v.errf(fmt.Sprintf("%s.indexing.fullText[%d]", path, i), "%s is not in the container's fullText paths; a full-text index needs its path there", p)
		}
	}
	for i, vi := range ix.Vector {
		ip := fmt.Sprintf("%s.indexing.vector[%d]", path, i)
		d, ok := dims[vi.Path]
		if !ok {
			v.errf(ip+".path", "%s is not in the container's vectors; a vector index needs its path there", vi.Path)
			continue
		}
		if vi.Type != "" && v.checkEnum(ip+".type", vi.Type, VectorIndexTypes) && vi.Type == "flat" && d > MaxFlatDimensions {
			v.errf(ip+".type", "a flat index holds at most %d dimensions; %s has %d (use quantizedFlat or diskANN)", MaxFlatDimensions, vi.Path, d)
		}
	}
}
