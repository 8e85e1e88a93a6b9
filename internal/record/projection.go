package record

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
	// Unprojected is true for a pattern whose charge the projection does not carry to production
	// (a change feed, a query that cannot be executed in process); Note says why and reports show
	// the seeded figure as such.
	Unprojected bool `json:"unprojected,omitempty"`
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
