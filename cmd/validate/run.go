package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

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

Each query also gets its production figure (documents[].production, productionCardinality,
scale.storageGB): the one estimator's charge at the design's production scale, the figure
'validate plan' prints (the PRODUCTION column, with the arithmetic in a "Production scale" section).
The estimator's facts at the seeded scale are put beside the engine's facts for the executions (an
"Estimator check" section; a disagreement is a finding against the model, not the design). When the
design states a production scale, query verdicts judge the production figure; point operations do
not change with scale. Without one, production is the seeded scale and the report says so.
Production figures are modeled.

Targets (--target):
  auto      the default: the emulator when Docker is reachable and its image is present, else embedded
  embedded  our own engine in this process: charges from the cost model ("model")
  emulator  the Microsoft emulator in Docker through testcontainers-go (--emulator-image)
  account   an Azure Cosmos DB account (--endpoint; Entra ID, or CDV_KEY / CDV_CONNECTION_STRING);
            runs in a new run-scoped database and deletes only what it created
  endpoint  any running emulator or account given by --endpoint and CDV_KEY (default: the emulators'
            well-known key); a 'validate serve' there is recognised and its charges stay "model";
            like account, each run in its own database (cdv-<database>-<run id>, --run-id), so
            concurrent jobs against one endpoint never meet

Modeled charges are computed on every target (the embedded engine runs alongside), so a report always
has a figure a verdict can rest on; a measured figure is shown with its source and never relabelled.
With --calibration FILE (a profile from 'validate calibrate') they are priced with the figures fitted
to that account and labelled "model (calibrated: <account>, <date>)". On an account, each query's
index metrics are reported beside the engine's plan, and a charge beyond tolerance of the model is
listed as model drift.

Exit codes: 0 every pattern within tolerance, 1 a pattern failed or regressed, 2 usage or design error,
3 infrastructure (target unreachable, Docker missing, authentication refused) or interrupted (Ctrl-C,
a job's timeout: after removing what the run created; the reports of the patterns that completed
are written, marked incomplete).`

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
			c, err := runConfig(v, a.stderr)
			if err != nil {
				return err
			}
			c.Stdout, c.Stderr, c.Inflight, c.Version = a.stdout, a.stderr, setInflight, version
			return a.run(cmd.Context(), args, c)
		},
	}
	addFlags(cmd, "run")
	return cmd
}

// runConfig maps run's flags to the pipeline's configuration, which the pipeline checks.
func runConfig(v *viper.Viper, logTo io.Writer) (*pipeline.Config, error) {
	formats, err := parseFormats(v.GetStringSlice("format"), "run", pipeline.Formats)
	if err != nil {
		return nil, err
	}
	logger, err := newLogger(logTo, v.GetString("log-level"))
	if err != nil {
		return nil, err
	}
	c := &pipeline.Config{
		Target: target.Config{
			Kind:             record.Kind(v.GetString("target")),
			EmulatorImage:    v.GetString("emulator-image"),
			EmulatorProtocol: v.GetString("emulator-protocol"),
			Insecure:         v.GetBool("insecure"),
			AllowPull:        v.GetBool("pull"),
			Endpoint:         v.GetString("endpoint"),
			Key:              v.GetString("key"),
			ConnectionString: v.GetString("connection-string"),
			Log:              logger,
		},
		Seed:              v.GetInt64("seed"),
		Samples:           v.GetInt("samples"),
		Keep:              v.GetBool("keep"),
		WriteIntoExisting: v.GetBool("write-into-existing"),
		ReuseDatabase:     v.GetBool("reuse-database"),
		RunID:             v.GetString("run-id"),
		Concurrency:       v.GetInt("concurrency"),
		Partitions:        v.GetInt("partitions"),
		Throttle:          v.GetBool("throttle"),
		Out:               v.GetString("out"),
		Formats:           formats,
		Baseline:          v.GetString("baseline"),
		UpdateBaseline:    v.GetBool("update-baseline"),
		Tolerance: report.Options{
			PointPct: v.GetFloat64("tolerance-point"),
			QueryPct: v.GetFloat64("tolerance-query"),
			MinRU:    v.GetFloat64("tolerance-ru"),
		},
		Compare: report.CompareOptions{
			Pct:               v.GetFloat64("regression-pct"),
			RU:                v.GetFloat64("regression-ru"),
			Force:             v.GetBool("force"),
			USD:               v.GetFloat64("regression-usd"),
			FailOnModelChange: v.GetBool("fail-on-model-change"),
		},
	}
	if c.RateCard, c.Rules, err = rateCard(v, false); err != nil {
		return nil, err
	}
	if err := c.Check(); err != nil {
		return nil, &exitError{code: ExitUsage, err: err}
	}
	if err := c.SetProgress(logTo, v.GetString("progress")); err != nil {
		return nil, &exitError{code: ExitUsage, err: err}
	}
	return c, nil
}

// parseFormats reads --format (repeated or comma separated, "markdown" for md) and refuses what the
// command cannot write, naming what it can.
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

func (a *app) run(ctx context.Context, paths []string, c *pipeline.Config) error {
	c.Started = time.Now()
	setStopping("removing what this run created")
	defer setStopping("")
	designs, ok := pipeline.LoadDesigns(a.stderr, paths)
	if !ok {
		return &exitError{code: ExitUsage, printed: true}
	}
	out, err := pipeline.Validate(ctx, designs, *c)
	switch {
	case errors.Is(err, pipeline.ErrUsage):
		return &exitError{code: ExitUsage, err: err}
	case err != nil:
		// The target failed (pipeline.ErrTarget), or output could not be rendered.
		return infraErr(err)
	case out.Findings > 0:
		return errFindings
	}
	return nil
}

// loadDesigns is pipeline.LoadDesigns for the commands that return an error: the messages are
// printed already, so the error only carries the usage exit code.
func loadDesigns(w io.Writer, paths []string) ([]*design.Design, error) {
	designs, ok := pipeline.LoadDesigns(w, paths)
	if !ok {
		return nil, &exitError{code: ExitUsage, printed: true}
	}
	return designs, nil
}

// isMarkdown reports whether a path names a markdown file (pipeline.IsMarkdown).
func isMarkdown(path string) bool { return pipeline.IsMarkdown(path) }
