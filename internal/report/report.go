// Package report turns a probe run into verdicts and renders them for people (text, Markdown, HTML)
// and machines (JSON, JUnit XML). It also writes baselines and compares two reports for drift.
//
// A report never presents a modeled charge as a measured one: every charge carries the label of its
// source ("model", "emulator-placeholder", "emulator-indicative", "service").
package report

import (
	"time"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// SchemaVersion is the version of the JSON report and baseline format this build writes. Changes
// to the format are additive; a new version is only introduced for a change that is not.
const SchemaVersion = 1

// Verdict is the outcome of one access pattern.
type Verdict string

// Verdicts, from best to worst.
const (
	Pass  Verdict = "pass"
	Warn  Verdict = "warn"
	Fail  Verdict = "fail"
	Error Verdict = "error"
)

// rank orders verdicts so that the worst one wins when several rules apply.
func (v Verdict) rank() int {
	switch v {
	case Pass:
		return 0
	case Warn:
		return 1
	case Fail:
		return 2
	case Error:
		return 3
	}
	return -1
}

// worse returns the worse of two verdicts.
func worse(a, b Verdict) Verdict {
	if b.rank() > a.rank() {
		return b
	}
	return a
}

// Options tune how verdicts are reached. The zero value applies the documented defaults; a zero
// field means "default".
type Options struct {
	// PointPct and QueryPct replace the percentage of the default point and query bands, MinRU the
	// absolute floor of both (global flags). A design's tolerance replaces the resulting band as a
	// whole, and a pattern's tolerance replaces that.
	PointPct float64
	QueryPct float64
	MinRU    float64
	// CloseFraction is the share of the band beyond which a charge within tolerance is a warning.
	// Default 0.8.
	CloseFraction float64
	// IndicativeFactor widens the band for "emulator-indicative" measured charges. Default 2.
	IndicativeFactor float64
}

// Default tolerance bands: a point operation passes within max(1 RU, 25%) of its estimate, a query
// within 50%.
var (
	DefaultPointBand = design.Band{Pct: 25, RU: 1}
	DefaultQueryBand = design.Band{Pct: 50}
)

// Defaults used when Options leaves a field zero.
const (
	DefaultCloseFraction    = 0.8
	DefaultIndicativeFactor = 2.0
)

// Input is everything Build needs.
type Input struct {
	Design *design.Design
	// Measured is the target's run; its Target.ChargeSource says what its charges are.
	Measured *record.Run
	// Modeled is the embedded engine's run of the same design and seed. On the embedded target it is
	// the same run as Measured (or nil, in which case a Measured run with source "model" is used).
	Modeled *record.Run
	Options Options
	// Started and Duration are metadata; comparisons ignore them.
	Started  time.Time
	Duration time.Duration
	// Version is the tool version.
	Version string
	// Capacity are plan's capacity warnings for the design at the run's seed (throughput-short,
	// hot-partition; at production scale when the design states one), as the driver got them from
	// the static plan (pipeline.DesignFindings): report states them as failing findings of the run,
	// except where the run's own load decides (capacityFindings).
	Capacity []CapacityWarning
	// UnknownFields are lint's unknown-field findings of each access pattern's query, as lint prints
	// them, keyed by access-pattern ID (pipeline.DesignFindings): the advice of a query that found
	// nothing quotes them.
	UnknownFields map[string][]string
}

// CapacityWarning is one of plan's capacity warnings about a container.
type CapacityWarning struct {
	// Code is plan's: "throughput-short" or "hot-partition".
	Code      string
	Container string
	Message   string
	// PlanPeak is the container's peak RU/s in plan's static estimate, the load the warning rests
	// on (0 when unknown): a report that has the run's own load shows the two side by side.
	PlanPeak float64
}

// Report is the result of one validation: the verdict of every access pattern and the evidence.
// Its JSON form is documented in docs/report-format.md and schema/report.schema.json.
type Report struct {
	SchemaVersion int  `json:"schemaVersion"`
	Tool          Tool `json:"tool"`
	// Started and DurationMs are metadata, never compared.
	Started    time.Time `json:"started,omitzero"`
	DurationMs int64     `json:"durationMs"`

	Design DesignSummary `json:"design"`
	// Target is what the measured run talked to; Target.ChargeSource labels every measured charge.
	Target  record.TargetInfo `json:"target"`
	Seed    int64             `json:"seed"`
	Samples int               `json:"samples"`
	// Tolerance is the default band set this report used (before design and pattern overrides).
	Tolerance ToleranceSet `json:"tolerance"`

	Summary       Summary           `json:"summary"`
	Patterns      []PatternResult   `json:"patterns"`
	Containers    []ContainerLoad   `json:"containers"`
	StageFindings []record.Finding  `json:"stageFindings,omitempty"`
	Seeding       []record.SeedStat `json:"seeding,omitempty"`
}

// Tool names the program that wrote a report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ToleranceSet is a pair of bands, one for point operations and one for queries.
type ToleranceSet struct {
	Point design.Band `json:"point"`
	Query design.Band `json:"query"`
}

// DesignSummary is enough of the design to recognise it and to diff two versions of it.
type DesignSummary struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
	// Fingerprint is design.Fingerprint: a hash of the content, not of the file's formatting.
	Fingerprint string             `json:"fingerprint"`
	Containers  []ContainerSummary `json:"containers"`
	// SDK is the design's app.sdk ("" when it names none).
	SDK string `json:"sdk,omitempty"`
}

// ContainerSummary is one container of the design as far as charges are concerned.
type ContainerSummary struct {
	Name         string   `json:"name"`
	PartitionKey []string `json:"partitionKey"`
	// Throughput is "manual 400", "autoscale 4000" or "serverless".
	Throughput string          `json:"throughput"`
	Indexing   IndexingSummary `json:"indexing"`
	UniqueKeys []string        `json:"uniqueKeys,omitempty"`
	DefaultTTL *int            `json:"defaultTtl,omitempty"`
}

// IndexingSummary is an indexing policy in a form that diffs well: composite indexes are written as
// "/a asc, /b desc".
type IndexingSummary struct {
	Mode      string   `json:"mode"`
	Included  []string `json:"included"`
	Excluded  []string `json:"excluded"`
	Composite []string `json:"composite,omitempty"`
}

// Summary counts verdicts.
type Summary struct {
	Patterns int `json:"patterns"`
	Pass     int `json:"pass"`
	Warn     int `json:"warn"`
	Fail     int `json:"fail"`
	Error    int `json:"error"`
	// Verdict is the worst verdict of all patterns ("pass" for a design without patterns).
	Verdict Verdict `json:"verdict"`
	// Basis says which charges the verdicts rest on, in words.
	Basis string `json:"basis"`
}

// PatternResult is the verdict of one access pattern and the evidence for it.
type PatternResult struct {
	ID           string     `json:"id"`
	Name         string     `json:"name"`
	Container    string     `json:"container"`
	Op           string     `json:"op"`
	Query        string     `json:"query,omitempty"`
	PartitionKey []string   `json:"partitionKey,omitempty"`
	RPS          design.RPS `json:"rps"`
	// Estimate is the designer's promised charge per execution, in RU.
	Estimate float64 `json:"estimate"`
	// DesignerMeasured is a charge the designer measured (the design's estimate.measured), shown
	// beside the modeled one; the verdict does not use it.
	DesignerMeasured float64 `json:"designerMeasured,omitempty"`
	// Tolerance is the band that applied; ToleranceFrom says where it came from ("default",
	// "options", "design" or "pattern").
	Tolerance     design.Band `json:"tolerance"`
	ToleranceFrom string      `json:"toleranceFrom"`
	// Regression is the pattern's own drift threshold for baseline comparisons, if the design sets one.
	Regression *design.Band `json:"regression,omitempty"`
	// Modeled is the embedded engine's charge; Measured the target's. Either is absent when there is
	// no such run (Measured is absent on the embedded target, where the only charge is modeled).
	Modeled  *Charge `json:"modeled,omitempty"`
	Measured *Charge `json:"measured,omitempty"`
	// Projection is how the pattern's charge carries to production scale, with the arithmetic.
	Projection *record.Projection `json:"projection,omitempty"`
	Verdict    Verdict            `json:"verdict"`
	// Reasons explain the verdict in words, most important first.
	Reasons []string `json:"reasons"`
	// Checks are the design's expectations and how each run fared.
	Checks []Check `json:"checks,omitempty"`
	// Errors groups the failed executions by run, status and message.
	Errors []ExecError `json:"errors,omitempty"`
	// Advice holds index recommendations the target returned (index metrics), and notes on what the
	// executions suggest about the design (a query that never finds anything).
	Advice []string `json:"advice,omitempty"`
	// Results and Partitions summarise executions of the run the checks rest on.
	Results    IntRange `json:"results"`
	Partitions IntRange `json:"partitions"`
	// LatencyMs is the median latency of the measured run (metadata, never compared).
	LatencyMs float64 `json:"latencyMs"`
	// FanOut is set for a query that ran across partitions through a client-side query pipeline
	// (fanout.go): the SDK, the partitions touched and each one's charge.
	FanOut *FanOut `json:"fanOut,omitempty"`
	// Throttled counts the 429 responses the pattern's requests received in the run the report rests
	// on (the SDK's retries included); RetryWaitMs sums the waits they asked for. Zero unless the
	// target throttled.
	Throttled   int64   `json:"throttled,omitempty"`
	RetryWaitMs float64 `json:"retryWaitMs,omitempty"`
}

// Charge is the request charge of one run of a pattern, summarised over its executions.
type Charge struct {
	// Source is the charge source label; "model" is a modeled figure, never a measured one.
	Source record.ChargeSource `json:"source"`
	// Samples is the number of executions the figures summarise.
	Samples int     `json:"samples"`
	Median  float64 `json:"median"`
	P95     float64 `json:"p95"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Mean    float64 `json:"mean"`
	// CarriesVerdict says whether the verdict rests on this figure (false for placeholders).
	CarriesVerdict bool `json:"carriesVerdict"`
	// Band is the tolerance (RU) this figure was held to; Delta is Median − estimate.
	Band  float64 `json:"band"`
	Delta float64 `json:"delta"`
	// Within says whether Median lies within Band of the estimate.
	Within bool `json:"within"`
	// Projected is Median carried to production scale (Median × the pattern's projection factor);
	// VerdictOn says which figure Delta and Within judge: "projected" when the design states a
	// production scale, "seeded" otherwise.
	Projected float64 `json:"projected,omitempty"`
	VerdictOn string  `json:"verdictOn,omitempty"`
}

// Check is one expectation of the design checked against one run.
type Check struct {
	// Name is "singlePartition", "minResults", "maxResults" or "status".
	Name string `json:"name"`
	// Run is "modeled" or "measured".
	Run  string `json:"run"`
	Want string `json:"want"`
	Got  string `json:"got"`
	OK   bool   `json:"ok"`
}

// ExecError is a group of failed executions.
type ExecError struct {
	Run         string `json:"run"`
	Status      int    `json:"status"`
	Count       int    `json:"count"`
	Message     string `json:"message"`
	Explanation string `json:"explanation,omitempty"`
}

// IntRange is the smallest and largest of a set of counts.
type IntRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// ContainerLoad is the request rate a container needs: per-execution charges times the design's
// request rates, summed over the container's patterns.
type ContainerLoad struct {
	Name       string `json:"name"`
	Throughput string `json:"throughput"`
	// Provisioned is the manual or autoscale-maximum RU/s (0 for serverless).
	Provisioned float64 `json:"provisioned"`
	Estimate    Load    `json:"estimate"`
	Modeled     *Load   `json:"modeled,omitempty"`
	// Measured is present only when the measured charges carry a verdict.
	Measured *Load `json:"measured,omitempty"`
}

// Load is a request rate in RU/s at the average and the peak request rate.
type Load struct {
	Source string `json:"source"`
	// Avg and Peak rest on the run's medians at the seeded scale.
	Avg  float64 `json:"avg"`
	Peak float64 `json:"peak"`
	// ProductionAvg and ProductionPeak are the same sums with each query's median carried to the
	// design's production scale (Charge.Projected; point operations keep their median), present
	// when the design states a production scale for one of the container's queries. Capacity
	// findings judge them then (Scale says which pair they judged).
	ProductionAvg  float64 `json:"productionAvg,omitempty"`
	ProductionPeak float64 `json:"productionPeak,omitempty"`
	// Scale is "projected" when capacity is judged on ProductionAvg/ProductionPeak, "seeded" when
	// on Avg/Peak (the estimate's load is the designer's figures, which are judged as stated).
	Scale string `json:"scale,omitempty"`
}

// judged is the load capacity is judged on: production's when the design states it.
func (l *Load) judged() (avg, peak float64) {
	if l.Scale == VerdictOnProjected {
		return l.ProductionAvg, l.ProductionPeak
	}
	return l.Avg, l.Peak
}

// Findings returns the number of failing patterns (verdicts fail and error) plus the failing stage
// findings (capacity). The CLI exits 1 when it is not zero.
func (r *Report) Findings() int {
	if r == nil {
		return 0
	}
	return r.Summary.Fail + r.Summary.Error + failing(r.StageFindings)
}

// SourceLabel is the short human label of a charge source, used in every rendered column.
func SourceLabel(source record.ChargeSource) string {
	switch source {
	case record.ChargeModel:
		return "modeled"
	case record.ChargeEmulatorPlaceholder:
		return "placeholder"
	case record.ChargeEmulatorIndicative:
		return "emulator"
	case record.ChargeService:
		return "service"
	case "":
		return "unknown"
	}
	return string(source)
}

// CarriesVerdict reports whether charges from this source may decide a verdict.
func CarriesVerdict(source record.ChargeSource) bool {
	switch source {
	case record.ChargeModel, record.ChargeEmulatorIndicative, record.ChargeService:
		return true
	}
	return false
}

// Legend explains each charge source in one line, for the renderers.
var Legend = []struct {
	Source         record.ChargeSource
	Label, Meaning string
}{
	{record.ChargeModel, "modeled", "computed by the embedded engine's RU model; not a measurement"},
	{record.ChargeService, "service", "measured on Azure Cosmos DB; ground truth"},
	{record.ChargeEmulatorIndicative, "emulator", "measured on the classic emulator; indicative only, held to twice the tolerance"},
	{record.ChargeEmulatorPlaceholder, "placeholder", "returned by an emulator that does not compute charges; never used for a verdict"},
}
