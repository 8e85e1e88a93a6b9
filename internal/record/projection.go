package record

// Projection is what a pattern costs at the design's production scale and what the one estimator
// said it would cost at the seeded scale. For a query both figures are the estimator's
// (internal/plan): its facts over the production documents and key values, and over the seeded ones,
// priced by the rate card; `validate plan` shows the same figures. The seeded estimate is what the
// run's execution checks (Estimated beside the executions' Facts, as EXPLAIN ANALYZE puts a
// planner's estimate beside what ran). Point operations do not change with scale.
type Projection struct {
	ID string `json:"id"`
	// Production is true when the design states a production scale (document counts or storageGB);
	// false means production scale is the seeded one.
	Production bool `json:"production"`
	// Point is true for point operations and batches: their charge does not change with scale.
	Point bool `json:"point,omitempty"`
	// Unprojected is true for a pattern the estimator does not carry to production (a change feed,
	// a query it cannot estimate); Note says why and reports show the executed seeded figure as such.
	Unprojected bool `json:"unprojected,omitempty"`
	// SeededRU is the estimator's charge at the seeded scale; ProjectedRU its charge at production
	// (the PRODUCTION figure of every report), 0 where there is none (a point operation, a change
	// feed, a query the estimator cannot estimate, a design without a production scale: the
	// PRODUCTION column then repeats the executed seeded median). JSON omits it then, so that no
	// script reads a missing figure as a charge of 0 RU; a production figure is never 0 (a query
	// costs at least its minimum charge). Older reports that wrote 0 read the same.
	SeededRU    float64 `json:"seededRU"`
	ProjectedRU float64 `json:"projectedRU,omitempty"`
	// Estimated is the estimator's facts at the seeded scale, by fact name (FactNames), and
	// ProductionFacts its facts at production.
	Estimated       map[string]float64 `json:"estimated,omitempty"`
	ProductionFacts map[string]float64 `json:"productionFacts,omitempty"`
	// ScopeSeeded and ScopeProduction are the documents in one execution's scope at each scale.
	ScopeSeeded     float64 `json:"scopeSeeded,omitempty"`
	ScopeProduction float64 `json:"scopeProduction,omitempty"`
	// Partitions is the physical partitions a query checks at production.
	Partitions int `json:"partitions,omitempty"`
	// Arithmetic spells the production figure out so a reader can check it by hand.
	Arithmetic []string `json:"arithmetic,omitempty"`
	// Band is ProjectedRU under each alternative of the rules no published figure and no
	// calibration pins that move it (Band; absent when none does), computed once by the estimator.
	// PinnedRules names the rules a calibration profile decided that move it: the figure is the
	// calibrated alternative's, with no band.
	Band        *Band        `json:"band,omitempty"`
	PinnedRules []PinnedRule `json:"pinnedRules,omitempty"`
	// Note says why there is no production figure or what limits it.
	Note string `json:"note,omitempty"`
}
