package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/cosmosdv/validate/internal/seed"
	"github.com/cosmosdv/validate/internal/target"
)

// This file is `validate run` as a library: open the target (and the embedded engine alongside it for
// the modeled figures), run each design measured and modeled, label the charges, build and write the
// reports, and apply the baseline file policy. The CLI maps its flags to Config and nothing more.

// Config is everything Validate needs, as plain values.
type Config struct {
	// Target says what to run on. Validate sets its Engine.Partitions (the partition plan),
	// Engine.Throttle (Throttle) and Status (Stderr).
	Target target.Config
	// Throttle makes the embedded engine enforce each container's provisioned RU/s per second and
	// answer 429 past it, as the service does (the measured run only).
	Throttle bool
	// Partitions overrides the simulated physical partitions of every container on the embedded
	// engine; 0 = what `validate plan` computes from the design's storage and throughput.
	Partitions int
	// RateCard prices the embedded engine's charges (the modeled run, and the measured run on the
	// embedded target); nil = the built-in card. A calibrated card (cost.LoadCalibration) labels
	// every modeled charge of the reports with its account and date.
	RateCard *cost.RateCard
	// Rules is the calibration profile's rule decisions (cost.Profile.Selection): the embedded
	// engine executes and the estimator estimates under them, and the rules they pin carry no
	// band; nil = each rule's default, unpinned.
	Rules *cost.Selection
	// RunID names the run-scoped database on shared targets ("" = one per process).
	RunID string
	// Seed, Samples, Concurrency, ReuseDatabase and Keep are as in Options.
	Seed          int64
	Samples       int
	Concurrency   int
	ReuseDatabase bool
	Keep          bool
	// WriteIntoExisting lets a reused database's existing containers be seeded (Options).
	WriteIntoExisting bool
	// Inflight is told what the run has created on a shared target and not yet removed ("" once
	// it is gone), so that the CLI can name it when a second interrupt exits at once; nil = nobody.
	Inflight func(what string)
	// Progress receives the measured run's progress; nil = none. TTY draws a bar.
	Progress io.Writer
	TTY      bool
	// Tolerance decides the verdicts; Compare the regressions against a baseline.
	Tolerance report.Options
	Compare   report.CompareOptions
	// Out is the directory the reports are written to in Formats ("" = none). With Out "" and
	// Formats holding "json", Stdout gets JSON Lines: one JSON report per design, one per line, and
	// nothing else: the text report (when Formats has "text"), or else the baseline comparison as
	// text, go to Stderr. With Out "" otherwise, the report in Formats[0] (text when empty) goes to Stdout: the
	// CLI allows one format there. With Out, the text report goes to Stdout when Formats has "text",
	// else one verdict line per design does.
	Out     string
	Formats []string
	// Baseline is a baseline file, or a directory of <design>.baseline.json files: each report is
	// compared with it and carries the comparison (report.Report.Baseline, in every format), and
	// its regressions count as findings. UpdateBaseline writes it instead of comparing with it.
	Baseline       string
	UpdateBaseline bool
	// Started is when the run started (default now); Version the tool version in the reports.
	Started time.Time
	Version string
	// Stdout receives the reports and comparisons (see Out), Stderr the status lines; nil = discarded.
	Stdout io.Writer
	Stderr io.Writer
}

// Outcome is what Validate produced.
type Outcome struct {
	// Reports holds one report per design, in order.
	Reports []*report.Report
	// Findings counts the failing patterns and the regressions against the baselines; the CLI
	// exits 1 when it is not zero.
	Findings int
}

// Error classes of Validate, for errors.Is. Any other error is a failure to render output.
var (
	// ErrUsage: the configuration is wrong (a baseline that does not exist or does not compare, a
	// baseline file for several designs, an incomplete target configuration). The user fixes it.
	ErrUsage = errors.New("usage")
	// ErrTarget: the target failed, was unreachable, or the run was interrupted; also a report or
	// baseline that could not be written.
	ErrTarget = errors.New("target")
)

type classed struct {
	class error
	err   error
}

func (e *classed) Error() string   { return e.err.Error() }
func (e *classed) Unwrap() []error { return []error{e.class, e.err} }

func usage(format string, a ...any) error {
	return &classed{class: ErrUsage, err: fmt.Errorf(format, a...)}
}

func failed(err error) error { return &classed{class: ErrTarget, err: err} }

// Validate runs every design on the target c describes: provision, seed and probe on that target,
// the same on the embedded engine for the modeled figures when the target is another, verdicts,
// reports and baselines. Designs run one after the other; the first error ends the run.
func Validate(ctx context.Context, designs []*design.Design, c Config) (*Outcome, error) {
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	if c.Started.IsZero() {
		c.Started = time.Now()
	}
	if c.Baseline != "" && len(designs) > 1 {
		fi, err := os.Stat(c.Baseline)
		switch {
		case err != nil && !c.UpdateBaseline:
			return nil, usage("--baseline %s: no such directory yet: write the first baselines with --update-baseline (it creates the directory), review and commit them", c.Baseline)
		case err == nil && !fi.IsDir():
			return nil, usage("--baseline %s: with several designs, give a directory of <design>.baseline.json files (this is a file)", c.Baseline)
		}
	}

	plan := &PartitionPlan{Override: c.Partitions}
	c.Target.Engine.Partitions = plan.Lookup
	c.Target.Engine.Throttle = c.Throttle
	c.Target.Engine.RateCard = c.RateCard
	c.Target.Engine.Rules = c.Rules
	c.Target.Status = c.Stderr
	tgt, err := target.Open(ctx, c.Target)
	if err != nil {
		if errors.Is(err, target.ErrConfig) {
			return nil, usage("%s", target.Explain(err))
		}
		return nil, failed(errors.New(target.Explain(err)))
	}
	defer closeQuietly(tgt.Close)
	// The first line says what runs, why, and how to switch.
	if tgt.Reason != "" {
		fmt.Fprintf(c.Stderr, "target: %s (charges: %s) — %s\n", tgt.Info.Kind, tgt.Info.ChargeSource, tgt.Reason)
	} else {
		fmt.Fprintf(c.Stderr, "target: %s — %s (charges: %s)\n", tgt.Info.Kind, tgt.Info.Engine, tgt.Info.ChargeSource)
	}
	served := servesModel(tgt.Info)
	if served && cost.ChargesLabel(c.RateCard) != servedLabel(tgt.Info) {
		// The serve answers its card's label, not its figures: the PRODUCTION figures and the cost
		// are this run's estimator's, with this run's card.
		fmt.Fprintf(c.Stderr, "modeled charges: the target prices the executions itself (%s); the PRODUCTION figures and the cost are priced with this run's card (%s): give run the serve's --calibration to price them alike\n",
			servedLabel(tgt.Info), cost.ChargesLabel(c.RateCard))
	}
	if mc := c.modelCard(tgt.Info); mc != "" {
		fmt.Fprintf(c.Stderr, "modeled charges: %s (still modeled, never measured)\n", mc)
	}

	// The embedded engine holds the seeded documents in this process, on every target.
	defer memoryLimit(designs, c.Stderr)()

	// The modeled figures come from the embedded engine; on other targets it runs alongside, unless
	// the target is `validate serve` itself: its charges are the modeled figures, priced with its own
	// card (a calibrated serve's charges reach the report as they were answered, labelled with the
	// serve's label), never replaced by a second engine's.
	modelTgt := tgt
	if tgt.Info.Kind != record.KindEmbedded && !served {
		modelTgt, err = target.Open(ctx, target.Config{Kind: record.KindEmbedded, Engine: engine.Options{Partitions: plan.Lookup, RateCard: c.RateCard, Rules: c.Rules}})
		if err != nil {
			return nil, failed(fmt.Errorf("start the embedded engine for modeled charges: %w", err))
		}
		defer closeQuietly(modelTgt.Close)
	}

	out := &Outcome{}
	for _, d := range designs {
		rep, n, err := c.design(ctx, d, tgt, modelTgt, plan)
		if rep != nil {
			out.Reports = append(out.Reports, rep)
		}
		if err != nil {
			return out, err
		}
		out.Findings += n
	}
	fmt.Fprintf(c.Stderr, "validate: %d design(s) in %s\n", len(designs), time.Since(c.Started).Round(10*time.Millisecond))
	return out, nil
}

// design runs one design measured and modeled, reports it and applies the baseline policy. It
// returns the report and its findings (failing patterns and regressions).
func (c *Config) design(ctx context.Context, d *design.Design, tgt, modelTgt *target.Target, plan *PartitionPlan) (*report.Report, int, error) {
	dbName := c.databaseName(d, tgt)
	plan.Set(d, dbName)
	popts := Options{
		Seed:          c.Seed,
		Samples:       c.Samples,
		Database:      dbName,
		ReuseDatabase: c.ReuseDatabase,
		Keep:          c.Keep,
		Concurrency:   c.Concurrency,
		Progress:      c.Progress,
		TTY:           c.TTY,
		RateCard:      c.RateCard,
		Rules:         c.Rules,

		WriteIntoExisting: c.WriteIntoExisting,
	}
	if tgt.Info.Kind == record.KindAccount {
		// The documents the run will seed are the seed plan's own count of them.
		var counts map[string]int
		if sp, err := seed.Compile(d, max(c.Seed, 1)); err == nil { // Run seeds with 1 when unset
			counts = sp.Counts()
		}
		fmt.Fprintf(c.Stderr, "%s: %s\n", d.Name, target.RunCostSummary(d, c.Samples, counts))
	}
	fmt.Fprintf(c.Stderr, "%s: provisioning database %q on %s\n", d.Name, dbName, tgt.Info.Kind)
	if tgt.Info.Kind != record.KindEmbedded { // the embedded engine's data ends with the process
		c.inflight(fmt.Sprintf("database %q on %s", dbName, tgt.Info.Kind))
	}
	measured, err := Run(ctx, d, tgt.Client, tgt.Info, popts)
	c.inflight("")
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			rep := c.writeIncomplete(d, measured, modelTgt == tgt, err)
			return rep, 0, interrupted(d, err, c.Keep, dbName, tgt.Info.Kind)
		}
		if errors.Is(err, ErrExistingContainers) || errors.Is(err, ErrDatabaseExists) {
			return nil, 0, usage("%s: %v", d.Name, err)
		}
		return nil, 0, runFailed(d, err)
	}
	if Relabel(measured) {
		fmt.Fprintf(c.Stderr, "%s: every charge the endpoint returned is identical: treated as placeholders (emulator-placeholder)\n", d.Name)
	}
	modeled := measured
	if modelTgt != tgt {
		mopts := popts
		mopts.Database = d.Database
		mopts.Progress = nil
		mopts.Keep = false
		mopts.ReuseDatabase = false
		plan.Set(d, d.Database)
		// The model prices with the partitions the target gave each container, so that the two sides
		// compare like with like; the production figures keep the design's (partitionFindings).
		plan.SetCounts(d.Database, measured.Partitions)
		modeled, err = Run(ctx, d, modelTgt.Client, modelTgt.Info, mopts)
		if err != nil {
			return nil, 0, runFailed(d, err)
		}
	}
	// The static plan once: plan's capacity warnings and its storage and throughput for the cost.
	rc := c.RateCard
	if rc == nil {
		rc = cost.Current
	}
	sopts := staticOptions(c.Seed, rc, c.Rules)
	static := staticPlan(d, sopts)
	if tgt.Info.Kind != record.KindEmbedded {
		measured.Findings = append(measured.Findings, partitionFindings(static, measured, modeled, rc)...)
	}
	rep := report.Build(findingsOf(d, static, sopts).Input(report.Input{
		Design:    d,
		Measured:  measured,
		Modeled:   modeled,
		Options:   c.Tolerance,
		Started:   c.Started,
		Duration:  time.Since(c.Started),
		Version:   c.Version,
		ModelCard: c.modelCard(tgt.Info),
		RateCard:  rc.Version,
	}))
	rep.Cost = MonthlyCost(rc, static, rep)
	rep.Traffic = TrafficOf(static)
	var baseErr error
	if c.Baseline != "" {
		// Compared before anything is written: the comparison is part of every report. A baseline
		// that cannot be read or compared still lets the reports be written, then ends the run.
		baseErr = c.baseline(d, rep)
		if baseErr != nil {
			// The job fails (exit 2): the reports say why, not a green heading.
			rep.BaselineProblem = strings.TrimPrefix(baseErr.Error(), "usage: ")
		}
	}
	if err := c.writeReports(d, rep); err != nil {
		return rep, 0, err
	}
	if baseErr != nil {
		return rep, 0, baseErr
	}
	if c.UpdateBaseline {
		if err := c.writeBaseline(d, rep); err != nil {
			return rep, 0, err
		}
	}
	// Failing patterns, capacity findings and regressions against the baseline.
	return rep, rep.Findings(), nil
}

// writeReports renders the report to Stdout (JSON Lines, the text report or the verdict line) and
// the files to Out. Every format carries the baseline comparison (rep.Baseline); when no text report
// reaches a person, the comparison is printed as text for them: on Stdout after the verdict line,
// on Stderr beside machine output. A report that cannot be rendered or written is a failure of the
// environment (ErrTarget), not of the configuration.
func (c *Config) writeReports(d *design.Design, rep *report.Report) error {
	if rep.Baseline != nil && !c.textShown() {
		w := c.Stderr
		if c.Out != "" {
			w = c.Stdout
		}
		defer func() {
			_ = report.RenderComparison(w, rep.Baseline, "text") // the reports hold it too
		}()
	}
	switch {
	case c.machineStdout():
		// Machine output on standard output: JSON Lines, one report per design. A text report
		// asked for as well goes to Stderr, so that the stream stays parseable.
		if err := WriteJSONLine(c.Stdout, rep); err != nil {
			return failed(err)
		}
		if contains(c.Formats, "text") {
			if err := report.Render(c.Stderr, rep, "text"); err != nil {
				return failed(fmt.Errorf("write the report: %w", err))
			}
		}
	case c.Out == "":
		// No files: the one format asked for (text by default) goes to standard output.
		f := "text"
		if len(c.Formats) > 0 {
			f = c.Formats[0]
		}
		if err := report.Render(c.Stdout, rep, f); err != nil {
			return failed(fmt.Errorf("write the report: %w", err))
		}
	case contains(c.Formats, "text"):
		if err := report.Render(c.Stdout, rep, "text"); err != nil {
			return failed(fmt.Errorf("write the report: %w", err))
		}
	default:
		// The reports go to files only: the terminal still gets each design's verdict.
		fmt.Fprintf(c.Stdout, "%s: %s\n", d.Name, report.SummaryLine(rep))
	}
	if c.Out == "" {
		return nil
	}
	var formats []string
	for _, f := range c.Formats {
		if f != "sarif" {
			formats = append(formats, f)
		}
	}
	files, err := report.WriteAll(c.Out, rep, formats)
	if err != nil {
		return failed(fmt.Errorf("write reports: %w", err))
	}
	if contains(c.Formats, "sarif") {
		f, err := writeSARIF(c.Out, c.Version, d, rep)
		if err != nil {
			return failed(fmt.Errorf("write reports: %w", err))
		}
		files = append(files, f)
	}
	for _, f := range files {
		fmt.Fprintf(c.Stderr, "%s: wrote %s\n", d.Name, f)
	}
	return nil
}

// textShown reports whether a text report reaches a person: on Stdout, or on Stderr beside JSON
// Lines.
func (c *Config) textShown() bool {
	if c.Out == "" && !contains(c.Formats, "json") {
		return len(c.Formats) == 0 || c.Formats[0] == "text"
	}
	return contains(c.Formats, "text")
}

// machineStdout reports whether Stdout carries JSON Lines (json without Out): text meant for people
// then goes to Stderr.
func (c *Config) machineStdout() bool { return c.Out == "" && contains(c.Formats, "json") }

// BaselineFile is where a design's baseline lives: base itself for one design, or
// <base>/<design>.baseline.json when base is a directory (or ends in a path separator).
func BaselineFile(base string, d *design.Design) string {
	if fi, err := os.Stat(base); (err == nil && fi.IsDir()) || strings.HasSuffix(base, string(os.PathSeparator)) {
		return filepath.Join(base, report.FileStem(d.Name)+".baseline.json")
	}
	return base
}

// writeBaseline writes the design's baseline (UpdateBaseline).
func (c *Config) writeBaseline(d *design.Design, rep *report.Report) error {
	file := BaselineFile(c.Baseline, d)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return failed(err)
	}
	if err := report.WriteBaselineFile(file, rep); err != nil {
		return failed(fmt.Errorf("write baseline: %w", err))
	}
	fmt.Fprintf(c.Stderr, "%s: baseline written to %s\n", d.Name, file)
	return nil
}

// baseline compares rep with the design's baseline file and records the comparison in the report
// (rep.Baseline), where every format renders it and Findings counts its regressions. With
// UpdateBaseline there is nothing to compare with: the baseline is written after the reports.
func (c *Config) baseline(d *design.Design, rep *report.Report) error {
	if c.UpdateBaseline {
		return nil
	}
	file := BaselineFile(c.Baseline, d)
	old, err := report.ReadFile(file)
	if err != nil {
		return usage("baseline %s: %v (create it with --update-baseline)", file, err)
	}
	cmp, err := report.Compare(old, rep, c.Compare)
	if err != nil {
		return usage("compare with baseline %s: %v", file, err)
	}
	cmp.Old.File = file
	rep.Baseline = cmp
	return nil
}

// writeIncomplete writes the reports of an interrupted run (Ctrl-C, a job's timeout): the patterns
// that completed, with their verdicts, under a report marked incomplete; the others are listed as
// not run. Nothing is written when no pattern completed. The charges are the measured run's (also
// the modeled ones when the target models its charges); the report is not compared with a baseline.
func (c *Config) writeIncomplete(d *design.Design, measured *record.Run, modeledHere bool, cause error) *report.Report {
	if measured == nil || len(measured.Patterns) == 0 {
		return nil
	}
	in := report.Input{Design: d, Measured: measured, Options: c.Tolerance, Started: c.Started,
		Duration: time.Since(c.Started), Version: c.Version, ModelCard: c.modelCard(measured.Target)}
	if modeledHere {
		in.Modeled = measured
	}
	if c.RateCard != nil {
		in.RateCard = c.RateCard.Version
	} else {
		in.RateCard = cost.Current.Version
	}
	done := map[string]bool{}
	for _, p := range measured.Patterns {
		done[p.ID] = true
	}
	var missing []string
	for _, ap := range d.AccessPatterns {
		if !done[ap.ID] {
			missing = append(missing, ap.ID)
		}
	}
	why := "interrupted"
	if errors.Is(cause, context.DeadlineExceeded) {
		why = "timed out"
	}
	in.Incomplete = fmt.Sprintf("%s after %d of %d access patterns; not run: %s", why, len(measured.Patterns), len(d.AccessPatterns), strings.Join(missing, ", "))
	rep := report.Build(in)
	if err := c.writeReports(d, rep); err != nil {
		fmt.Fprintf(c.Stderr, "%s: the incomplete report could not be written: %v\n", d.Name, err)
	}
	return rep
}

// databaseName is the database a design's measured run uses: a run-scoped one ("cdv-<database>-<run
// id>", --run-id or one per process) on a shared target and on any endpoint — even a disposable one
// on this machine serves every job pointed at it, and two concurrent jobs must not meet in one
// database —; the design's own on the embedded engine and on an emulator this run started. An
// endpoint run with --reuse-database and no --run-id reuses the design's own database, as asked.
func (c *Config) databaseName(d *design.Design, tgt *target.Target) string {
	switch {
	case tgt.Shared:
	case tgt.Info.Kind == record.KindEndpoint && (c.RunID != "" || !c.ReuseDatabase):
	default:
		return d.Database
	}
	return target.RunScopedName(d.Database, c.RunID)
}

// Relabel applies target.ChargeSourceFor to a finished run: an endpoint of unknown kind whose
// successful executions were all charged the same is an emulator returning placeholders. It reports
// whether the label changed.
func Relabel(r *record.Run) bool {
	var charges []float64
	for _, p := range r.Patterns {
		for _, e := range p.Executions {
			if e.Error == "" {
				charges = append(charges, e.RU)
			}
		}
	}
	src := target.ChargeSourceFor(r.Target.ChargeSource, r.Target.Kind, charges)
	if src == r.Target.ChargeSource {
		return false
	}
	r.Target.ChargeSource = src
	return true
}

func runFailed(d *design.Design, err error) error {
	if errors.Is(err, context.Canceled) {
		return failed(fmt.Errorf("%s: interrupted; what this run created was removed", d.Name))
	}
	if IsInfrastructure(err) || target.IsInfrastructure(err) {
		return failed(fmt.Errorf("%s: %s", d.Name, target.Explain(err)))
	}
	return failed(fmt.Errorf("%s: %w", d.Name, err))
}

func (c *Config) inflight(what string) {
	if c.Inflight != nil {
		c.Inflight(what)
	}
}

// interrupted says what an interrupted run left: what Keep kept, what a failed teardown may have
// left, or that teardown removed what the run created.
func interrupted(d *design.Design, err error, keep bool, database string, kind record.Kind) error {
	var te *TeardownError
	switch {
	case errors.As(err, &te):
		err = fmt.Errorf("%s: interrupted; teardown failed (%v): database %q on %s may be left in place", d.Name, te.Err, te.Database, kind)
	case keep:
		err = fmt.Errorf("%s: interrupted; --keep left database %q on %s in place", d.Name, database, kind)
	default:
		err = fmt.Errorf("%s: interrupted; what this run created was removed", d.Name)
	}
	return failed(err)
}

func closeQuietly(closeFn func(context.Context) error) {
	if closeFn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = closeFn(ctx)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// WriteJSONLine writes v as one line of JSON (https://jsonlines.org): machine output of several
// designs on standard output, one document per design, each valid on its own.
func WriteJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// modelCard is the label of the modeled charges when a card other than the built-in one priced them
// ("" otherwise): the serve's own label when the target is `validate serve` (servesModel), else the
// calibrated card's.
func (c *Config) modelCard(t record.TargetInfo) string {
	if servesModel(t) {
		return t.Charges
	}
	if c.RateCard == nil || c.RateCard.Calibration == nil {
		return ""
	}
	return c.RateCard.Label()
}

// servesModel reports whether a target other than the embedded engine models its charges (`validate
// serve`, at an endpoint or in a container): its run is the modeled run.
func servesModel(t record.TargetInfo) bool {
	return t.Kind != record.KindEmbedded && t.ChargeSource == record.ChargeModel
}

// servedLabel is the label of a serving target's charges ("model" when it named none).
func servedLabel(t record.TargetInfo) string {
	if t.Charges != "" {
		return t.Charges
	}
	return "model"
}
