// Package record is the run's record and shared vocabulary: the types every stage fills in and the
// report renders (Run, Finding, SeedStat, TargetInfo, Pattern, Execution), the typed target kinds and
// charge sources, and the contract between seeding and probing (Documents). It imports nothing of
// this project, so any stage may import it. Keep these names stable; add fields rather than change
// them: the JSON report and baselines are written from them.
package record

import "time"

// Kind is the kind of target a run talked to.
type Kind string

// Target kinds. A run's TargetInfo.Kind is never "auto"; target.KindAuto is only a configuration value.
const (
	KindEmbedded Kind = "embedded"
	KindEmulator Kind = "emulator"
	KindAccount  Kind = "account"
	KindEndpoint Kind = "endpoint"
)

// ChargeSource says where a request charge comes from. A modeled figure is never presented as a
// measured one.
type ChargeSource string

// Charge sources, carried by every request charge (docs/architecture.md, "Charge sources").
const (
	// ChargeModel: the embedded engine computed the charge with internal/cost.
	ChargeModel ChargeSource = "model"
	// ChargeEmulatorPlaceholder: the vNext emulator does not implement request units; any charge
	// header it returns is a placeholder and no verdict may rest on it.
	ChargeEmulatorPlaceholder ChargeSource = "emulator-placeholder"
	// ChargeEmulatorIndicative: the classic emulator computes charges with its own engine; close to,
	// not identical with, the service.
	ChargeEmulatorIndicative ChargeSource = "emulator-indicative"
	// ChargeService: Azure Cosmos DB itself; ground truth.
	ChargeService ChargeSource = "service"
)

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
	// Projections are the patterns' charges at production scale (internal/project), in design order.
	Projections []Projection `json:"projections,omitempty"`
	// Partitions is each container's physical partitions as the target answered them (its partition
	// key ranges, read after provisioning); a container whose ranges could not be read is absent.
	Partitions map[string]int `json:"partitions,omitempty"`
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
	// Throttled counts the 429 responses the type's writes received, the ones the SDK retried
	// included; RetryWaitMs sums the waits they asked for (x-ms-retry-after-ms). Zero unless the
	// target throttled.
	Throttled   int64   `json:"throttled,omitempty"`
	RetryWaitMs float64 `json:"retryWaitMs,omitempty"`
	// IndexMetrics is what the target answered about the indexes the query used and would use
	// (queries only): asked for on a separate execution, the warm-up, whose charge is in no sample,
	// since asking adds overhead to the service's charge.
	IndexMetrics *IndexMetrics `json:"indexMetrics,omitempty"`
}

// TargetInfo says what a run talked to. It never holds a key or token.
type TargetInfo struct {
	Kind         Kind         `json:"kind"`
	Engine       string       `json:"engine"`
	Endpoint     string       `json:"endpoint,omitempty"`
	ChargeSource ChargeSource `json:"chargeSource"`
	SDKVersion   string       `json:"sdkVersion,omitempty"`
	// Charges is how a target that models its charges (`validate serve`) labels them
	// (cost.ChargesLabel: "model (calibrated: <account>, <date>)", "model (rate card: <file>)"), as
	// the serve answered it; "" when the target said nothing or prices with the built-in card.
	Charges string `json:"charges,omitempty"`
}

// Pattern is what the probe observed for one access pattern.
type Pattern struct {
	ID         string      `json:"id"`
	Executions []Execution `json:"executions"`
	// Throttled counts the 429 responses the pattern's requests received, the ones the SDK retried
	// included; RetryWaitMs sums the waits they asked for (x-ms-retry-after-ms). Zero unless the
	// target throttled.
	Throttled   int64   `json:"throttled,omitempty"`
	RetryWaitMs float64 `json:"retryWaitMs,omitempty"`
	// IndexMetrics is what the target answered about the indexes the query used and would use
	// (queries only): asked for on a separate execution, the warm-up, whose charge is in no sample,
	// since asking adds overhead to the service's charge.
	IndexMetrics *IndexMetrics `json:"indexMetrics,omitempty"`
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
	// Facts are the query's execution facts by name (cost.FactNames), summed over its pages, as the
	// embedded engine and `validate serve` report them (x-cdv-query-facts); nil on other targets. A
	// report puts them beside the estimator's (Projection.Estimated).
	Facts map[string]float64 `json:"facts,omitempty"`
	// IndexMetrics is the decoded index-metrics header (queries only, when the target returned one):
	// the warm-up's (Pattern.IndexMetrics) since sampled executions no longer ask; kept for records
	// written before.
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

// Documents is what the probe needs from the seeding stage: seeded documents to draw parameters from,
// and fresh documents for writes. Implementations must be deterministic: the same arguments give the
// same document.
type Documents interface {
	// Sample returns a seeded document of docType chosen by n (any integer; implementations reduce it
	// modulo their sample size), decoded from JSON. ok is false when the type has no documents.
	Sample(docType string, n int) (doc map[string]any, ok bool)
	// Fresh returns document number n of docType that was not seeded, with an id no seeded document
	// (and no other n) has. parent is the document it is a child of, for child types; nil otherwise.
	Fresh(docType string, n int, parent map[string]any) (map[string]any, error)
	// ParentType returns the parent type of docType, or "" for a root type.
	ParentType(docType string) string
}
