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
	// Review are lint's design-review findings about each access pattern (lint.ReviewCodes), as
	// lint prints them, keyed by access-pattern ID (pipeline.DesignFindings): each makes the
	// pattern's verdict at least warn, and a query that found nothing names them as its likely cause.
	Review map[string][]string
	// DesignReview are lint's design-review findings about the containers (TTL, indexes, key
	// order, over-provisioning), as lint prints them: warn findings of the run's review stage.
	DesignReview []string
	// ModelCard labels the modeled charges when they were priced with a calibrated rate card
	// (cost.RateCard.Label: "model (calibrated: <account>, <date>)"); "" for the built-in card.
	ModelCard string
	// RateCard is the version of the rate card that priced the modeled charges (Tool.RateCard).
	RateCard string
	// Incomplete says why the run stopped early ("interrupted after 3 of 8 access patterns; ...");
	// the report then holds only the patterns the run completed.
	Incomplete string
}

// CapacityWarning is one of plan's capacity warnings about a container.
type CapacityWarning struct {
	// Code is plan's: "throughput-short", "hot-partition" or "throttling" (hours of a traffic
	// shape that throttle).
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
	// ModelCard is Input.ModelCard: how the modeled charges are labelled when a calibration priced
	// them, "model (calibrated: <account>, <date>)". They are still modeled, never measured.
	ModelCard string `json:"modelCard,omitempty"`
	// ModelDrift lists, on an account run, the patterns whose measured charge differs from the
	// modeled one by more than their tolerance, with the facts of both (drift.go).
	ModelDrift []ModelDrift `json:"modelDrift,omitempty"`
	// Cost is what the run's load costs a month at production (MonthlyCost), when the driver
	// priced it.
	Cost *MonthlyCost `json:"monthlyCost,omitempty"`
	// Traffic is plan's hour-by-hour forecast of each container when the design states its
	// traffic's shape (traffic.go), as the driver got it from the static plan.
	Traffic []Traffic `json:"traffic,omitempty"`
	// Incomplete is present when the run stopped early (Ctrl-C, a job's timeout): why, how many
	// patterns completed and which were not run. Only the completed patterns are in Patterns.
	Incomplete string `json:"incomplete,omitempty"`
	// BaselineProblem says why the run could not be compared with its baseline (missing, unreadable,
	// refused): the run then fails with exit 2, and every format says so instead of a green heading.
	BaselineProblem string `json:"baselineProblem,omitempty"`
	// Baseline is the comparison with the baseline the run was compared with (run --baseline), part
	// of the run's record: every format shows it and its regressions count in Findings.
	Baseline *Comparison `json:"baseline,omitempty"`
}

// MonthlyCost is what a run's load costs a month at production, per container and in total: at
// the throughput the design states, and sized for the load in the cheapest mode that carries its
// peak. The load is the one capacity is judged on (the request-rate table's run figures: queries
// projected to production when the design states a scale); storage is plan's at production. The
// driver prices it with the rate card (pipeline.MonthlyCost); report renders it and compares it.
type MonthlyCost struct {
	Currency string `json:"currency"`
	// RateCard names the rate card: its version and date.
	RateCard string `json:"rateCard"`
	// DesignedUSD sums each container at its designed throughput; RequiredUSD each container in the
	// cheapest mode that carries the run's peak.
	DesignedUSD float64         `json:"designedUSD"`
	RequiredUSD float64         `json:"requiredUSD"`
	Containers  []ContainerCost `json:"containers"`
	// DesignedBand and RequiredBand are the sums at the ends of the containers' bands (a container
	// without one at its figure), when one has one.
	DesignedBand *record.Range `json:"designedBand,omitempty"`
	RequiredBand *record.Range `json:"requiredBand,omitempty"`
}

// ContainerCost is one container's line of MonthlyCost.
type ContainerCost struct {
	Name string `json:"name"`
	// Source and Scale say which load was priced: a charge source and "projected" or "seeded".
	Source    string  `json:"source"`
	Scale     string  `json:"scale"`
	AvgRUs    float64 `json:"avgRUs"`
	PeakRUs   float64 `json:"peakRUs"`
	StorageGB float64 `json:"storageGB"`
	// Designed is the designed throughput ("manual 400") and DesignedUSD its bill for the load.
	Designed    string  `json:"designed"`
	DesignedUSD float64 `json:"designedUSD"`
	// Required is the cheapest mode that carries the peak and RequiredUSD its bill ("" and 0 when
	// no mode can).
	Required    string  `json:"required,omitempty"`
	RequiredUSD float64 `json:"requiredUSD"`
	// Formula is the designed bill's arithmetic.
	Formula string `json:"formula"`
	// DesignedBand and RequiredBand are DesignedUSD and RequiredUSD priced at the ends of the load's
	// band (Load.AvgBand, Load.PeakBand), when it has one.
	DesignedBand *record.Range `json:"designedBand,omitempty"`
	RequiredBand *record.Range `json:"requiredBand,omitempty"`
}

// Tool names the program that wrote a report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// RateCard is the version of the rate card the modeled charges were priced with (cost.RateCard's
	// Version, "+calibrated" for a calibration's): with Version, the model that wrote the report.
	RateCard string `json:"rateCard,omitempty"`
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
	// VariantOf is the design's variantOf: the design it is a variant of ("" for none).
	VariantOf string `json:"variantOf,omitempty"`
	// Fingerprint is design.Fingerprint: a hash of the content, not of the file's formatting.
	Fingerprint string             `json:"fingerprint"`
	Containers  []ContainerSummary `json:"containers"`
	// SDK is the design's app.sdk ("" when it names none).
	SDK string `json:"sdk,omitempty"`
	// StorageGB is the design's production storage (scale.storageGB; 0 = not stated).
	StorageGB float64 `json:"storageGB,omitempty"`
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
	// StorageGB is the container's production storage as the design states it (0 = not stated).
	StorageGB float64 `json:"storageGB,omitempty"`
	// Documents are the container's document types: what a comparison names when a field or a
	// production count changes.
	Documents []DocumentSummary `json:"documents,omitempty"`
}

// DocumentSummary is one document type of a container: its fields and counts.
type DocumentSummary struct {
	Type string `json:"type"`
	// Fields are the generated property paths ("/address/city"), in design order.
	Fields []string `json:"fields"`
	// Seeded is the root type's seeded count (0 for a child type, seeded per parent); Production
	// the count the design states for production (0 = not stated).
	Seeded     int     `json:"seeded,omitempty"`
	Production float64 `json:"production,omitempty"`
	// Bytes is the mean JSON size of the type's seeded documents in the run (0 when unknown).
	Bytes float64 `json:"bytes,omitempty"`
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
	// EstimatorCheck is the estimator's facts at the seeded scale beside the executed ones (queries
	// on a target that reports facts).
	EstimatorCheck *EstimatorCheck `json:"estimatorCheck,omitempty"`
	Verdict        Verdict         `json:"verdict"`
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
	// Indexes sets the target's index metrics for the query (an account's, or another measured
	// target's) beside the engine's index plan and advise's changes, with where they disagree
	// (drift.go).
	Indexes *IndexComparison `json:"indexes,omitempty"`
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
	// rules is the production figure's band (record.Projection.Band) when the verdict judges it:
	// the reasons say it beside the figure. The JSON carries it once, in the projection.
	rules *record.Band
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
	// AvgBand and PeakBand are ProductionAvg and ProductionPeak with every query whose production
	// figure has a band (record.Projection.Band) at the low end of it, and at the high end
	// (record.Range says how the ends are taken): present only when the container's judged load
	// rests on a rule no published figure and no calibration pins, and the ends differ in three
	// significant figures (record.NewLoadRange).
	AvgBand  *record.Range `json:"avgBand,omitempty"`
	PeakBand *record.Range `json:"peakBand,omitempty"`
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
	return r.Summary.Fail + r.Summary.Error + failing(r.StageFindings) + r.Baseline.Failures()
}

// RunLoad is the load of a container that capacity is judged on and MonthlyCost prices: the
// measured one when it carries a verdict, else the modeled one, at production scale when the design
// states one. ok is false when the run has no load for the container.
func (cl ContainerLoad) RunLoad() (l *Load, avg, peak float64, ok bool) {
	l = cl.Measured
	if l == nil {
		l = cl.Modeled
	}
	if l == nil {
		return nil, 0, 0, false
	}
	avg, peak = l.judged()
	return l, avg, peak, true
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
