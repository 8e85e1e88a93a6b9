package probe

import "time"

// This file is the contract between the probe stage and the report stage. Keep these names stable;
// add fields rather than change them.

// Run is everything one probe pass over a design observed on one target.
type Run struct {
	// Target describes what was probed: kind ("embedded", "emulator", "account", "endpoint"), the engine
	// behind it, and the charge source label ("model", "emulator-placeholder", "emulator-indicative",
	// "service").
	Target TargetInfo `json:"target"`
	// Seed is the generator seed; Samples the default executions per pattern.
	Seed    int64 `json:"seed"`
	Samples int   `json:"samples"`
	// Database is the database the run used (run-scoped on shared accounts).
	Database string `json:"database"`
	// Findings are what provisioning and seeding noticed: differences between the designed and the
	// stored containers (e.g. an emulator that ignored the indexing policy), and other warnings.
	Findings []Finding `json:"findings,omitempty"`
	// Seeding is what loading the synthetic documents cost, per container and document type.
	Seeding []SeedStat `json:"seeding,omitempty"`
	// Patterns holds one entry per access pattern, in design order.
	Patterns []Pattern `json:"patterns"`
}

// Finding is one observation of a pipeline stage that is not a pattern result.
type Finding struct {
	// Stage is "provision", "seed" or "probe".
	Stage string `json:"stage"`
	// Level is "info", "warn" or "error".
	Level string `json:"level"`
	// Subject names what it is about, e.g. "container UserOrders".
	Subject string `json:"subject"`
	Message string `json:"message"`
}

// SeedStat is the seeding record of one document type.
type SeedStat struct {
	Container string        `json:"container"`
	Type      string        `json:"type"`
	Documents int           `json:"documents"`
	Bytes     int64         `json:"bytes"`
	RU        float64       `json:"ru"`
	Duration  time.Duration `json:"durationNs"`
}

// TargetInfo says what a run talked to. It never holds a key or token.
type TargetInfo struct {
	Kind         string `json:"kind"`
	Engine       string `json:"engine"`
	Endpoint     string `json:"endpoint,omitempty"`
	ChargeSource string `json:"chargeSource"`
	SDKVersion   string `json:"sdkVersion,omitempty"`
}

// Pattern is what the probe observed for one access pattern.
type Pattern struct {
	ID         string      `json:"id"`
	Executions []Execution `json:"executions"`
}

// Execution is one run of a pattern.
type Execution struct {
	// RU is the request charge summed over every page (and every operation of a batch).
	RU float64 `json:"ru"`
	// Latency is wall time from the first request to the last page.
	Latency time.Duration `json:"latencyNs"`
	// Results is the number of items returned (queries) or affected (point operations, batch).
	Results int `json:"results"`
	// Pages is the number of responses a query took.
	Pages int `json:"pages"`
	// Partitions is the number of physical partitions (partition key ranges) touched.
	Partitions int `json:"partitions"`
	// Status is the final HTTP status code (200, 201, 204, 400, 404, 409, 412, 429, ...).
	Status int `json:"status"`
	// Error is the service's message when the execution failed; Explanation says why in plain words
	// and what to do (e.g. the composite index to add).
	Error       string `json:"error,omitempty"`
	Explanation string `json:"explanation,omitempty"`
	// QueryMetrics is the query-metrics header decoded into name → value (queries only).
	QueryMetrics map[string]float64 `json:"queryMetrics,omitempty"`
	// IndexMetrics is the decoded index-metrics header (queries only, when the target returned one).
	IndexMetrics *IndexMetrics `json:"indexMetrics,omitempty"`
	// Pipeline is set when the query ran (or, for the Go SDK, would run) through the client-side
	// cross-partition pipeline (pipeline.go).
	Pipeline *PipelineRun `json:"pipeline,omitempty"`
}

// IndexMetrics lists the indexes a query used and the ones the service recommends.
type IndexMetrics struct {
	UtilizedSingle     []string   `json:"utilizedSingle,omitempty"`
	UtilizedComposite  [][]string `json:"utilizedComposite,omitempty"`
	PotentialSingle    []string   `json:"potentialSingle,omitempty"`
	PotentialComposite [][]string `json:"potentialComposite,omitempty"`
}
