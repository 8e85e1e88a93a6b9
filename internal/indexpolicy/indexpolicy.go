// Package indexpolicy turns a design's compact indexing policy into the policy provision sends to the
// service and into the policy the engine enforces, read as the engine reads it from the wire, so
// that every static reading of a query (lint, plan, probe's explanations) applies exactly the
// engine's path precedence and composite-index rules.
package indexpolicy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/index"
)

// FromDesign translates the design's compact indexing policy (nil = the service default: consistent,
// everything included).
func FromDesign(ix *design.Indexing) *azcosmos.IndexingPolicy {
	p := &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent}
	if ix == nil {
		p.IncludedPaths = []azcosmos.IncludedPath{{Path: "/*"}}
		return p
	}
	if strings.EqualFold(ix.Mode, "none") {
		// The service requires automatic off and no paths for mode none.
		p.Automatic = false
		p.IndexingMode = azcosmos.IndexingModeNone
		return p
	}
	for _, path := range ix.Included {
		p.IncludedPaths = append(p.IncludedPaths, azcosmos.IncludedPath{Path: path})
	}
	for _, path := range ix.Excluded {
		p.ExcludedPaths = append(p.ExcludedPaths, azcosmos.ExcludedPath{Path: path})
	}
	if len(p.IncludedPaths) == 0 && !slices.Contains(ix.Excluded, "/*") {
		p.IncludedPaths = []azcosmos.IncludedPath{{Path: "/*"}}
	}
	for _, comp := range ix.Composite {
		var idx []azcosmos.CompositeIndex
		for _, cp := range comp {
			order := azcosmos.CompositeIndexAscending
			if strings.HasPrefix(strings.ToLower(cp.Order), "desc") {
				order = azcosmos.CompositeIndexDescending
			}
			idx = append(idx, azcosmos.CompositeIndex{Path: cp.Path, Order: order})
		}
		p.CompositeIndexes = append(p.CompositeIndexes, idx)
	}
	return p
}

// Compile is the policy the engine enforces for ix: FromDesign, encoded as the SDK sends it and
// compiled as the engine reads it.
func Compile(ix *design.Indexing) (*index.Compiled, error) {
	b, err := json.Marshal(FromDesign(ix))
	if err != nil {
		return nil, fmt.Errorf("encode indexing policy: %w", err)
	}
	var p index.Policy
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("decode indexing policy: %w", err)
	}
	c, err := index.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("indexing policy: %w", err)
	}
	return c, nil
}
