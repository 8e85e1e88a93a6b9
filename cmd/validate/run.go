package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/cosmosdv/validate/internal/target"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

const runLong = `Run provisions each design's containers on a target, seeds synthetic documents, runs every access
pattern --samples times and reports, pattern by pattern, the designer's estimate, the modeled charge
and the measured charge with its source, and a verdict.

Each query is also projected to the design's production scale (documents[].production,
productionCardinality, scale.storageGB): executed in process at the seeded size and a smaller one,
each execution fact's growth fitted and carried to production (the PRODUCTION column, with the
arithmetic in a "Production scale" section). When the design states a production scale, query
verdicts judge the projected figure; point operations do not change with scale. Without one,
production is the seeded scale and the report says so. Projected figures are modeled.

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
With --calibration FILE (a profile from 'validate calibrate') they are priced with the figures fitted
to that account and labelled "model (calibrated: <account>, <date>)". On an account, each query's
index metrics are reported beside the engine's plan, and a charge beyond tolerance of the model is
listed as model drift.

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
	writeExisting  bool
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
	rateCard       *cost.RateCard // --calibration; nil = the built-in card
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
		writeExisting:  v.GetBool("write-into-existing"),
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
	formats, err := parseFormats(v.GetStringSlice("format"), "run", knownFormats)
	if err != nil {
		return nil, err
	}
	o.formats = formats
	if o.out == "" {
		if err := stdoutFormats(formats); err != nil {
			return nil, err
		}
	}
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
		Kind:             record.Kind(kind),
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
	if o.rateCard, err = rateCard(v, false); err != nil {
		return nil, err
	}
	return o, nil
}

// stdoutFormats checks the formats of a run without --out, whose reports all go to standard output:
// JSON Lines (text beside it goes to standard error), or one other format.
func stdoutFormats(formats []string) error {
	json := contains(formats, "json")
	var others []string
	for _, f := range formats {
		if f != "json" && (f != "text" || !json) {
			others = append(others, f)
		}
	}
	if len(others) > 1 || (json && len(others) > 0) {
		return usageErr("--format %s: without --out, standard output takes one format (json, with text beside it on standard error); give --out DIR to write each format to a file",
			strings.Join(formats, ","))
	}
	return nil
}

// parseFormats reads --format (repeated or comma separated, "markdown" for md) and refuses what the
// command cannot write, naming what it can: allowed are the command's formats, knownFormats for run.
func parseFormats(raw []string, command string, allowed []string) ([]string, error) {
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
			if !contains(allowed, f) {
				return nil, usageErr("%s --format: want %s (got %q)", command, strings.Join(allowed, ", "), f)
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

func (a *app) run(ctx context.Context, paths []string, o *runOptions) error {
	started := time.Now()
	setStopping("removing what this run created")
	defer setStopping("")
	// Read every design before touching any target: a typo costs nothing.
	designs, err := loadDesigns(a.stderr, paths)
	if err != nil {
		return err
	}
	c := pipeline.Config{
		Target:            o.target,
		Partitions:        o.partitions,
		Throttle:          o.throttle,
		RateCard:          o.rateCard,
		RunID:             o.runID,
		Seed:              o.seed,
		Samples:           o.samples,
		Concurrency:       o.concurrency,
		ReuseDatabase:     o.reuse,
		Keep:              o.keep,
		WriteIntoExisting: o.writeExisting,
		Inflight:          setInflight,
		Tolerance:         o.tolerance,
		Compare:           o.compare,
		Out:               o.out,
		Formats:           o.formats,
		Baseline:          o.baseline,
		UpdateBaseline:    o.updateBaseline,
		Started:           started,
		Version:           version,
		Stdout:            a.stdout,
		Stderr:            a.stderr,
	}
	a.setProgress(&c, o.progress)
	out, err := pipeline.Validate(ctx, designs, c)
	switch {
	case errors.Is(err, pipeline.ErrUsage):
		return &exitError{code: ExitUsage, err: err}
	case errors.Is(err, pipeline.ErrTarget):
		return infraErr(err)
	case err != nil:
		// Unclassified: a failure to render output, not of the command line.
		return infraErr(err)
	case out.Findings > 0:
		return errFindings
	}
	return nil
}

func (a *app) setProgress(c *pipeline.Config, mode string) {
	switch mode {
	case "none":
		return
	case "bar":
		c.Progress, c.TTY = a.stderr, true
	case "lines":
		c.Progress, c.TTY = a.stderr, false
	default:
		c.Progress, c.TTY = a.stderr, isTerminal(a.stderr)
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

// loadDesigns reads every design, printing every error; any error ends the command with exit 2.
func loadDesigns(stderr io.Writer, paths []string) ([]*design.Design, error) {
	// A data-model markdown gets the same one line lint gives it, naming the import command.
	var yamls []string
	markdown := false
	for _, p := range paths {
		if isMarkdown(p) {
			fmt.Fprintln(stderr, markdownHint(p))
			markdown = true
			continue
		}
		yamls = append(yamls, p)
	}
	designs, errs := design.LoadAll(yamls)
	for _, err := range errs {
		fmt.Fprintln(stderr, err)
	}
	if len(errs) > 0 || markdown {
		return nil, &exitError{code: ExitUsage, printed: true}
	}
	return designs, nil
}
