package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/probe"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/cosmosdv/validate/internal/target"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

const runLong = `Run provisions each design's containers on a target, seeds synthetic documents, runs every access
pattern --samples times and reports, pattern by pattern, the designer's estimate, the modeled charge
and the measured charge with its source, and a verdict.

Targets (--target):
  auto      the default: the emulator when Docker is reachable and its image is present, else embedded
  embedded  our own engine in this process: charges from the cost model ("model")
  emulator  the Microsoft emulator in Docker through testcontainers-go (--emulator-image)
  account   an Azure Cosmos DB account (--endpoint; Entra ID, or CDV_KEY / CDV_CONNECTION_STRING);
            runs in a new run-scoped database and deletes only what it created
  endpoint  any running emulator or account given by --endpoint and CDV_KEY (default: the emulators'
            well-known key); a 'validate serve' there is recognised and its charges stay "model"

Modeled charges are computed on every target (the embedded engine runs alongside), so a report always
has a figure a verdict can rest on; a measured figure is shown with its source and never relabelled.

Exit codes: 0 every pattern within tolerance, 1 a pattern failed or regressed, 2 usage or design error,
3 infrastructure (target unreachable, Docker missing, authentication refused) or interrupted (Ctrl-C,
after removing what the run created).`

var knownFormats = []string{"text", "md", "json", "junit", "html"}

// runOptions is the typed configuration of `validate run`, read once from viper.
type runOptions struct {
	target         target.Config
	seed           int64
	samples        int
	keep           bool
	reuse          bool
	runID          string
	concurrency    int
	partitions     int
	throttle       bool
	formats        []string
	out            string
	progress       string
	baseline       string
	updateBaseline bool
	tolerance      report.Options
	compare        report.CompareOptions
}

func (a *app) runCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run DESIGN...",
		Short: "Provision, seed and probe designs on a target and report charges against estimates",
		Long:  runLong,
		Example: `  validate run designs/ecommerce.yaml
  validate run --target emulator --out reports --format md,json,junit,html designs/*.yaml
  CDV_KEY=... validate run --target account --endpoint https://myacct.documents.azure.com:443/ designs/saas.yaml
  validate run --baseline baselines/ --update-baseline designs/*.yaml`,
		Args: needArgs(1, "design file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			o, err := readRunOptions(v, a.stderr)
			if err != nil {
				return err
			}
			return a.run(cmd.Context(), args, o)
		},
	}
	addFlags(cmd, "run")
	return cmd
}

func readRunOptions(v *viper.Viper, logTo io.Writer) (*runOptions, error) {
	o := &runOptions{
		seed:           v.GetInt64("seed"),
		samples:        v.GetInt("samples"),
		keep:           v.GetBool("keep"),
		reuse:          v.GetBool("reuse-database"),
		runID:          v.GetString("run-id"),
		concurrency:    v.GetInt("concurrency"),
		partitions:     v.GetInt("partitions"),
		throttle:       v.GetBool("throttle"),
		out:            v.GetString("out"),
		progress:       v.GetString("progress"),
		baseline:       v.GetString("baseline"),
		updateBaseline: v.GetBool("update-baseline"),
	}
	kind := v.GetString("target")
	switch kind {
	case "auto", "embedded", "emulator", "account", "endpoint":
	default:
		return nil, usageErr("--target: want auto, embedded, emulator, account or endpoint (got %q)", kind)
	}
	if o.samples < 1 || o.samples > 10000 {
		return nil, usageErr("--samples: want 1..10000 (got %d)", o.samples)
	}
	if o.concurrency < 1 || o.concurrency > 256 {
		return nil, usageErr("--concurrency: want 1..256 (got %d)", o.concurrency)
	}
	if o.partitions < 0 || o.partitions > 1000 {
		return nil, usageErr("--partitions: want 0..1000 (got %d)", o.partitions)
	}
	switch o.progress {
	case "auto", "bar", "lines", "none":
	default:
		return nil, usageErr("--progress: want auto, bar, lines or none (got %q)", o.progress)
	}
	formats, err := parseFormats(v.GetStringSlice("format"))
	if err != nil {
		return nil, err
	}
	o.formats = formats
	if o.updateBaseline && o.baseline == "" {
		return nil, usageErr("--update-baseline needs --baseline FILE (or a directory for several designs)")
	}
	for _, k := range []string{"tolerance-point", "tolerance-query", "tolerance-ru", "regression-pct", "regression-ru"} {
		if v.GetFloat64(k) < 0 {
			return nil, usageErr("--%s: must not be negative", k)
		}
	}
	o.tolerance = report.Options{
		PointPct: v.GetFloat64("tolerance-point"),
		QueryPct: v.GetFloat64("tolerance-query"),
		MinRU:    v.GetFloat64("tolerance-ru"),
	}
	o.compare = report.CompareOptions{
		Pct:   v.GetFloat64("regression-pct"),
		RU:    v.GetFloat64("regression-ru"),
		Force: v.GetBool("force"),
	}
	logger, err := newLogger(logTo, v.GetString("log-level"))
	if err != nil {
		return nil, err
	}
	o.target = target.Config{
		Kind:             kind,
		EmulatorImage:    v.GetString("emulator-image"),
		EmulatorProtocol: v.GetString("emulator-protocol"),
		Insecure:         v.GetBool("insecure"),
		AllowPull:        v.GetBool("pull"),
		Endpoint:         v.GetString("endpoint"),
		Key:              v.GetString("key"),
		ConnectionString: v.GetString("connection-string"),
		Log:              logger,
	}
	if (kind == "account" || kind == "endpoint") && o.target.Endpoint == "" && o.target.ConnectionString == "" {
		return nil, usageErr("--target %s needs --endpoint URL (or CDV_CONNECTION_STRING)", kind)
	}
	return o, nil
}

func parseFormats(raw []string) ([]string, error) {
	var out []string
	for _, r := range raw {
		for _, f := range strings.Split(r, ",") {
			f = strings.TrimSpace(strings.ToLower(f))
			if f == "" {
				continue
			}
			if f == "markdown" {
				f = "md"
			}
			if !contains(knownFormats, f) {
				return nil, usageErr("--format: unknown format %q (want %s)", f, strings.Join(knownFormats, ", "))
			}
			if !contains(out, f) {
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		out = []string{"text"}
	}
	return out, nil
}

// partitionPlan decides the simulated physical partitions of each container on the embedded engine.
type partitionPlan struct {
	mu       sync.Mutex
	override int
	byName   map[string]int // database/container → partitions
}

// set records the partitions of d's containers in database: the --partitions override, else what
// the plan computes from the design's storage and throughput (the same figure `validate plan` prints).
func (p *partitionPlan) set(d *design.Design, database string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byName == nil {
		p.byName = map[string]int{}
	}
	byContainer := map[string]int{}
	if pl, err := plan.Build(d, plan.Options{}); err == nil {
		for _, c := range pl.Containers {
			byContainer[c.Name] = c.Partitions
		}
	}
	for _, c := range d.Containers {
		n := byContainer[c.Name]
		if p.override > 0 {
			n = p.override
		}
		p.byName[database+"/"+c.Name] = max(n, 1)
	}
}

func (p *partitionPlan) lookup(database, container string, throughputRU int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n, ok := p.byName[database+"/"+container]; ok {
		return n
	}
	if p.override > 0 {
		return p.override
	}
	return cost.PhysicalPartitions(0, throughputRU)
}

func (a *app) run(ctx context.Context, paths []string, o *runOptions) error {
	started := time.Now()
	// Read every design before touching any target: a typo costs nothing.
	designs, err := loadDesigns(a.stderr, paths)
	if err != nil {
		return err
	}
	if o.baseline != "" && len(designs) > 1 {
		if fi, err := os.Stat(o.baseline); (err == nil && !fi.IsDir()) || (err != nil && !o.updateBaseline) {
			return usageErr("--baseline: with several designs, give a directory of <design>.baseline.json files")
		}
	}

	plan := &partitionPlan{override: o.partitions}
	o.target.Engine = engine.Options{Partitions: plan.lookup, Throttle: o.throttle}
	o.target.Status = a.stderr
	tgt, err := target.Open(ctx, o.target)
	if err != nil {
		if errors.Is(err, target.ErrConfig) {
			return usageErr("%s", target.Explain(err))
		}
		return infraErr(errors.New(target.Explain(err)))
	}
	defer closeQuietly(tgt.Close)
	// The first line says what runs, why, and how to switch.
	if tgt.Reason != "" {
		fmt.Fprintf(a.stderr, "target: %s (charges: %s) — %s\n", tgt.Info.Kind, tgt.Info.ChargeSource, tgt.Reason)
	} else {
		fmt.Fprintf(a.stderr, "target: %s — %s (charges: %s)\n", tgt.Info.Kind, tgt.Info.Engine, tgt.Info.ChargeSource)
	}

	// The modeled figures come from the embedded engine; on other targets it runs alongside.
	modelTgt := tgt
	if tgt.Info.Kind != "embedded" {
		modelTgt, err = target.Open(ctx, target.Config{Kind: "embedded", Engine: engine.Options{Partitions: plan.lookup}})
		if err != nil {
			return infraErr(fmt.Errorf("start the embedded engine for modeled charges: %w", err))
		}
		defer closeQuietly(modelTgt.Close)
	}

	findings := 0
	for _, d := range designs {
		n, err := a.runDesign(ctx, d, o, tgt, modelTgt, plan, started)
		if err != nil {
			return err
		}
		findings += n
	}
	fmt.Fprintf(a.stderr, "validate: %d design(s) in %s\n", len(designs), time.Since(started).Round(10*time.Millisecond))
	if findings > 0 {
		return errFindings
	}
	return nil
}

func (a *app) runDesign(ctx context.Context, d *design.Design, o *runOptions, tgt, modelTgt *target.Target, plan *partitionPlan, started time.Time) (int, error) {
	dbName := d.Database
	if tgt.Shared {
		dbName = target.RunScopedName(d.Database, o.runID)
	}
	plan.set(d, dbName)
	popts := pipeline.Options{
		Seed:          o.seed,
		Samples:       o.samples,
		Database:      dbName,
		ReuseDatabase: o.reuse,
		Keep:          o.keep,
		Concurrency:   o.concurrency,
	}
	a.setProgress(&popts, o.progress)
	if tgt.Info.Kind == "account" {
		fmt.Fprintf(a.stderr, "%s: %s\n", d.Name, target.RunCostSummary(d, o.samples))
	}
	fmt.Fprintf(a.stderr, "%s: provisioning database %q on %s\n", d.Name, dbName, tgt.Info.Kind)
	measured, err := pipeline.Run(ctx, d, tgt.Client, tgt.Info, popts)
	if err != nil {
		return 0, classifyRunErr(d, err)
	}
	if relabelPlaceholder(measured) {
		fmt.Fprintf(a.stderr, "%s: every charge the endpoint returned is identical: treated as placeholders (emulator-placeholder)\n", d.Name)
	}
	modeled := measured
	if modelTgt != tgt {
		mopts := popts
		mopts.Database = d.Database
		mopts.Progress = nil
		mopts.Keep = false
		mopts.ReuseDatabase = false
		plan.set(d, d.Database)
		modeled, err = pipeline.Run(ctx, d, modelTgt.Client, modelTgt.Info, mopts)
		if err != nil {
			return 0, classifyRunErr(d, err)
		}
	}
	rep := report.Build(report.Input{
		Design:   d,
		Measured: measured,
		Modeled:  modeled,
		Options:  o.tolerance,
		Started:  started,
		Duration: time.Since(started),
		Version:  version,
	})
	if o.out == "" && contains(o.formats, "json") {
		// Machine output on standard output: JSON Lines, one report per design.
		if err := writeJSONLine(a.stdout, rep); err != nil {
			return 0, infraErr(err)
		}
	} else if contains(o.formats, "text") || o.out == "" {
		if err := report.Render(a.stdout, rep, "text"); err != nil {
			return 0, infraErr(err)
		}
	} else {
		// The reports go to files only: the terminal still gets each design's verdict.
		fmt.Fprintf(a.stdout, "%s: %s\n", d.Name, report.SummaryLine(rep))
	}
	if o.out != "" {
		files, err := report.WriteAll(o.out, rep, o.formats)
		if err != nil {
			return 0, infraErr(fmt.Errorf("write reports: %w", err))
		}
		for _, f := range files {
			fmt.Fprintf(a.stderr, "%s: wrote %s\n", d.Name, f)
		}
	}
	findings := rep.Findings()
	if o.baseline != "" {
		n, err := a.baselineStep(d, rep, o)
		if err != nil {
			return 0, err
		}
		findings += n
	}
	return findings, nil
}

// baselineFile is where a design's baseline lives: the --baseline file itself for one design, or
// <dir>/<design>.baseline.json when --baseline is a directory.
func baselineFile(base string, d *design.Design) string {
	if fi, err := os.Stat(base); (err == nil && fi.IsDir()) || strings.HasSuffix(base, string(os.PathSeparator)) {
		return filepath.Join(base, d.Name+".baseline.json")
	}
	return base
}

func (a *app) baselineStep(d *design.Design, rep *report.Report, o *runOptions) (int, error) {
	file := baselineFile(o.baseline, d)
	if o.updateBaseline {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return 0, infraErr(err)
		}
		if err := writeBaselineFile(file, rep); err != nil {
			return 0, infraErr(fmt.Errorf("write baseline: %w", err))
		}
		fmt.Fprintf(a.stderr, "%s: baseline written to %s\n", d.Name, file)
		return 0, nil
	}
	old, err := readReportFile(file)
	if err != nil {
		return 0, usageErr("baseline %s: %v (create it with --update-baseline)", file, err)
	}
	cmp, err := report.Compare(old, rep, o.compare)
	if err != nil {
		return 0, usageErr("compare with baseline %s: %v", file, err)
	}
	if err := report.RenderComparison(a.stdout, cmp, "text"); err != nil {
		return 0, err
	}
	return cmp.Regressions(), nil
}

func writeBaselineFile(path string, rep *report.Report) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".baseline-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := report.WriteBaseline(tmp, rep); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// readReportFile reads a baseline or JSON report; its errors do not repeat the path, which the
// callers put first.
func readReportFile(path string) (*report.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	defer f.Close()
	return report.ReadBaseline(f)
}

func classifyRunErr(d *design.Design, err error) error {
	if errors.Is(err, context.Canceled) {
		return &exitError{code: ExitInfra, err: fmt.Errorf("%s: interrupted; what this run created was removed", d.Name)}
	}
	if pipeline.IsInfrastructure(err) || target.IsInfrastructure(err) {
		return infraErr(fmt.Errorf("%s: %s", d.Name, target.Explain(err)))
	}
	return infraErr(fmt.Errorf("%s: %w", d.Name, err))
}

func (a *app) setProgress(p *pipeline.Options, mode string) {
	switch mode {
	case "none":
		return
	case "bar":
		p.Progress, p.TTY = a.stderr, true
	case "lines":
		p.Progress, p.TTY = a.stderr, false
	default:
		p.Progress, p.TTY = a.stderr, isTerminal(a.stderr)
	}
}

// isTerminal reports whether w is a character device (a terminal), for the progress bar.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func closeQuietly(closeFn func(context.Context) error) {
	if closeFn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = closeFn(ctx)
}

// loadDesigns reads every design, printing every error; any error ends the command with exit 2.
func loadDesigns(stderr io.Writer, paths []string) ([]*design.Design, error) {
	var out []*design.Design
	bad := false
	names := map[string]string{}
	for _, p := range paths {
		d, err := design.Load(p)
		if err != nil {
			fmt.Fprintln(stderr, err)
			bad = true
			continue
		}
		if prev, dup := names[d.Name]; dup {
			fmt.Fprintf(stderr, "%s: design name %q is also the name of %s; names must differ in one run\n", p, d.Name, prev)
			bad = true
			continue
		}
		names[d.Name] = p
		out = append(out, d)
	}
	if bad {
		return nil, &exitError{code: ExitUsage, printed: true}
	}
	return out, nil
}

// relabelPlaceholder marks an endpoint's charges as placeholders when every charge is identical, the
// sign of an emulator that does not compute request units.
func relabelPlaceholder(r *probe.Run) bool {
	if r.Target.Kind != "endpoint" {
		return false
	}
	var charges []float64
	for _, p := range r.Patterns {
		for _, e := range p.Executions {
			if e.Error == "" {
				charges = append(charges, e.RU)
			}
		}
	}
	if target.DetectPlaceholder(charges) {
		r.Target.ChargeSource = "emulator-placeholder"
		return true
	}
	return false
}
