package probe

import (
	"fmt"

	"github.com/cosmosdv/validate/internal/design"
)

// Projection is what a pattern costs at the design's production scale. For a query it comes from
// execution facts measured at the seeded scale and at a second, smaller seeded size: each fact's
// growth with the documents in scope is fitted and carried to the documents in scope at production
// (internal/project). Point operations do not change with scale.
type Projection struct {
	ID string `json:"id"`
	// Production is true when the design states a production scale (document counts or storageGB);
	// false means production scale is the seeded one and Factor is 1.
	Production bool `json:"production"`
	// Point is true for point operations and batches: their charge does not change with scale.
	Point bool `json:"point,omitempty"`
	// SeededRU and ProjectedRU are the model's charges of the in-process execution at the seeded scale
	// and at production (median over the parameter draws); Factor = ProjectedRU / SeededRU, the
	// factor reports apply to the run's median.
	SeededRU    float64 `json:"seededRU"`
	ProjectedRU float64 `json:"projectedRU"`
	Factor      float64 `json:"factor"`
	// ScopeSeeded, ScopeSmaller and ScopeProduction are the documents in the query's scope at the two
	// seeded sizes and at production (median draw).
	ScopeSeeded     int     `json:"scopeSeeded,omitempty"`
	ScopeSmaller    int     `json:"scopeSmaller,omitempty"`
	ScopeProduction float64 `json:"scopeProduction,omitempty"`
	// Partitions is the physical partitions a query checks at production.
	Partitions int `json:"partitions,omitempty"`
	// Growth is each execution fact's exponent: fact ∝ (documents in scope)^exponent.
	Growth map[string]float64 `json:"growth,omitempty"`
	// Arithmetic spells the projection out so a reader can check it by hand.
	Arithmetic []string `json:"arithmetic,omitempty"`
	// Note says why there is no projection or what limits it.
	Note string `json:"note,omitempty"`
}

// ParamsFor resolves pattern ap's query parameters and partition-key values (its partitionKey
// templates, or the sample's own key when it names none) from a sample document, as the probe does
// for every execution.
func ParamsFor(c *design.Container, ap *design.AccessPattern, sample map[string]any) (map[string]any, []any, error) {
	x := &exec{ap: ap, c: c, sample: sample}
	key, err := x.key()
	if err != nil {
		return nil, nil, err
	}
	if len(ap.PartitionKey) == 0 {
		key = nil // the probe sends no key: the query's scope is every partition
	}
	params := make(map[string]any, len(ap.Params))
	for _, name := range sortedParamNames(ap.Params) {
		v, err := resolve(ap.Params[name], sample)
		if err != nil {
			return nil, nil, fmt.Errorf("parameter %s: %w", name, err)
		}
		params[name] = v
	}
	return params, key, nil
}
