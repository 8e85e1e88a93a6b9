package record

// PipelineRun is a query run through the client-side cross-partition pipeline (internal/probe/fanout):
// the query plan, then the query on every partition key range the plan's ranges overlap.
type PipelineRun struct {
	// RU is the plan request's charge plus every page of every range.
	RU float64 `json:"ru"`
	// Ranges are the partition key ranges touched, in EPK order, with what each cost.
	Ranges []RangeCharge `json:"ranges"`
	// Hypothetical marks a figure for an application on the Go SDK, which cannot run the query:
	// what it would cost from an SDK with a query engine.
	Hypothetical bool `json:"hypothetical,omitempty"`
}

// RangeCharge is what one partition key range cost a pipeline run.
type RangeCharge struct {
	ID    string  `json:"id"`
	RU    float64 `json:"ru"`
	Pages int     `json:"pages"`
}
