package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cosmosdv/validate/internal/outfile"

	"github.com/cosmosdv/validate/internal/calibrate"
	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/target"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

const calibrateLong = `Calibrate measures the rate card's figures on your own account, once, so that every later run on
the embedded engine (and 'validate serve') charges with them.

In a new run-scoped database it creates four containers (the default indexing policy, a selective
policy, a composite index, and one of several physical partitions), writes documents of several
sizes, term counts and array lengths, and runs the operations that pin each figure: point reads and
writes by size and indexed terms, replace, patch, Strong reads, the query minimum, the per-partition
floor, index seeks and entries, documents loaded, evaluated and returned, functions, array rows,
in-memory sorts and composite slices. The same operations run on the embedded engine, which records
the facts of each; every figure is then fitted to the measured charges (weighted least squares) and
the profile is written: account host, date, SDK version, consistency, each figure's published and
fitted value and residual, and every measurement.

On an account it first prints what the calibration costs (RU, and dollars at the account's pricing:
--serverless, or the containers' throughput for the hour: provisioned containers are billed for at
least an hour, even when deleted at once) and goes ahead only with --yes. Every operation has a
deadline (60 s). It deletes the database it created when it ends — on success, errors, throttling
and Ctrl-C — retrying for up to 2 minutes while the target throttles; if it still cannot, it says
on standard error exactly what is left and how to delete it, and exits 3. A target whose successful
operations report a charge of zero or less, or NaN, is faulty: no profile is written.

Use the profile with --calibration FILE (or 'calibration:' in validate.yaml) on run, plan and serve:
modeled charges are then labelled "model (calibrated: <account>, <date>)", never as measured.
docs/calibration.md says who should run it, what it costs and where to keep the profile.

With --scale it decides instead the rules of the query model no published figure settles ('validate
rules'): it seeds two probe containers of --scale-docs and 4× as many documents in a run-scoped
database cdv-calibrate-scale-*, prints their sizes, the seeding RU and time and what they cost in the
account's capacity mode (provisioned: each container billed for at least an hour; serverless: per RU,
a container topping out at 5,000 RU/s) before it starts, runs the shape that decides each rule and
the shapes that show how index work grows, reads the query metrics of every page
(retrievedDocumentCount, indexLookupTimeInMs), and writes the decisions and the growth to the
profile. With that profile, --calibration runs the engine and the estimator under the decided
alternatives: their production figures show no band and are labelled "calibrated: <account>, <date>".
Against 'validate serve --rules NAME=ALT' it must pin ALT: that proves the pipeline, not fidelity to
the service (serve is our engine).

Exit codes: 0 profile written, 2 usage (no --yes on an account, a wrong target), 3 infrastructure.`

func (a *app) calibrateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "calibrate --target account|endpoint --endpoint URL [--out calibration.json]",
		Short: "Fit the rate card to an account's measured charges and write a calibration profile",
		Long:  calibrateLong,
		Example: `  CDV_KEY=... validate calibrate --target account --endpoint https://myacct.documents.azure.com:443/ --yes
  validate calibrate --target endpoint --endpoint http://127.0.0.1:8081/ --out calibration.json
  validate run --calibration calibration.json designs/ecommerce.yaml
  validate calibrate --scale --target account --endpoint https://myacct.documents.azure.com:443/ --out scale.json --yes`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			kind, err := remoteKind(v, "calibrate measures")
			if err != nil {
				return err
			}
			logger, err := newLogger(a.stderr, v.GetString("log-level"))
			if err != nil {
				return err
			}
			out := v.GetString("out")
			if out == "" {
				out = "calibration.json"
			}
			setStopping("deleting the calibration's database")
			defer setStopping("")
			setInflight("the calibration's database (cdv-calibrate-*; with --scale cdv-calibrate-scale-*)")
			defer setInflight("")
			tcfg := target.Config{
				Kind:             record.Kind(kind),
				Insecure:         v.GetBool("insecure"),
				Endpoint:         v.GetString("endpoint"),
				Key:              v.GetString("key"),
				ConnectionString: v.GetString("connection-string"),
				Log:              logger,
			}
			var p *cost.Profile
			if v.GetBool("scale") {
				if n := v.GetInt("scale-docs"); n < calibrate.ScaleMinDocs {
					return usageErr("--scale-docs: want at least %d documents, so that the probes tell the alternatives apart (got %d)", calibrate.ScaleMinDocs, n)
				}
				p, err = calibrate.Scale(a.ctx, calibrate.ScaleConfig{
					Target: tcfg, Yes: v.GetBool("yes"), Serverless: v.GetBool("serverless"),
					Documents: v.GetInt("scale-docs"), RunID: v.GetString("run-id"), Status: a.stderr,
				})
			} else {
				p, err = calibrate.Run(a.ctx, calibrate.Config{
					Target:     tcfg,
					Yes:        v.GetBool("yes"),
					Serverless: v.GetBool("serverless"),
					RunID:      v.GetString("run-id"),
					Status:     a.stderr,
				})
			}
			switch {
			case errors.Is(err, calibrate.ErrNeedsYes), errors.Is(err, calibrate.ErrNotMeasured):
				return usageErr("%v", err)
			case errors.Is(err, target.ErrConfig):
				return usageErr("%s", target.Explain(err))
			case err != nil:
				var left *calibrate.LeftBehindError
				if errors.As(err, &left) {
					// calibrate printed what is left, and how to delete it, as it happened.
					return infraErr(fmt.Errorf("%s (and database %s was left behind: see above)", target.Explain(err), left.Database))
				}
				return infraErr(errors.New(target.Explain(err)))
			}
			// One profile holds both: an earlier profile of the account at --out keeps what this
			// calibration does not measure (the fitted figures, or the decided rules).
			// A file there that this build refuses (another card's growth, another SDK) is replaced,
			// and says so: nothing of it is kept.
			if _, old, lerr := cost.LoadCalibration(out, target.SDKVersion); lerr == nil {
				if kept := p.Keep(old); kept != "" {
					fmt.Fprintf(a.stderr, "calibrate: %s already holds %s for %s: kept\n", out, kept, p.Account)
				}
			} else if _, serr := os.Stat(out); serr == nil {
				fmt.Fprintf(a.stderr, "calibrate: %s is replaced, nothing of it kept: %v\n", out, lerr)
			}
			b, err := json.MarshalIndent(p, "", "  ")
			if err != nil {
				return infraErr(err)
			}
			if err := outfile.Replace(out, append(b, '\n'), 0o644); err != nil {
				return infraErr(fmt.Errorf("write %s: %w", out, err))
			}
			printCalibration(a.stdout, a.stderr, p, v.GetBool("scale"), out)
			return nil
		},
	}
	addFlags(cmd, "calibrate")
	// run's default target (auto) is no choice here: calibrate needs one named.
	cmd.Flags().Lookup("target").DefValue = ""
	return cmd
}

// printCalibration prints what a calibration wrote to out: a scale calibration's (scale) decided
// rules and growth, or a calibration's fitted figures that drifted, then its summary line.
func printCalibration(stdout, stderr io.Writer, p *cost.Profile, scale bool, out string) {
	// What this run did, not what the profile holds: Profile.Keep carries an earlier profile's
	// rules into a calibration's, and its figures into a scale calibration's.
	if scale {
		for _, r := range p.Rules {
			fmt.Fprintf(stdout, "  rule %-30s %s (%s %g)\n", r.Rule, r.Alternative, r.Metric, r.Measured)
		}
		for _, g := range p.Growth {
			fmt.Fprintf(stdout, "  growth %-9s %g → %g RU from %d to %d documents (exponent %g)\n", g.Shape,
				g.Points[0].RU, g.Points[len(g.Points)-1].RU, g.Points[0].Documents, g.Points[len(g.Points)-1].Documents, g.Exponent)
		}
		fits := p.GrowthFits()
		width := 0 // the keys' column: the longest key's width
		for _, f := range fits {
			width = max(width, len(f.Key))
		}
		pinned := 0
		for _, f := range fits {
			// The target's charges: an account's are measured; `validate serve`'s are modeled too.
			growth := fmt.Sprintf("%s growth: %g → %g RU reported by the target, %.4g → %.4g RU modeled, %g → %g %s; "+
				"the part that does not grow: %.2f RU reported, %.2f RU modeled", f.Shape,
				f.Small.RU, f.Large.RU, f.Small.Modeled, f.Large.Modeled, f.SmallCount, f.LargeCount, f.Counts, f.Fixed, f.ModeledFixed)
			if !f.Pinned {
				fmt.Fprintf(stdout, "  %-10s %-*s  the charges' two decimals leave it ±%.2g %s, more than 10%% of the built-in %.4g: "+
					"give --scale-docs %d or more (%s)\n", "not pinned", width, f.Key, f.Resolution, f.Unit, f.Published, f.NeedDocuments, growth)
				continue
			}
			pinned++
			fmt.Fprintf(stdout, "  %-10s %-*s  built-in %.4g → fitted %.4g %s (%+.0f%%, ±%.2g from the charges' two decimals; %s)\n",
				"pinned", width, f.Key, f.Published, f.Fitted, f.Unit, (f.Fitted/f.Published-1)*100, f.Resolution, growth)
		}
		for _, w := range p.GrowthWarnings() {
			fmt.Fprintf(stderr, "calibrate --scale: warning: %s\n", w)
		}
		fmt.Fprintf(stdout, "calibrate --scale: %s: %d rules decided and %d figures pinned by growth on %s (%s); wrote %s\n",
			p.Scale.Date, len(p.Rules), pinned, p.Account, p.Scale.CapacityMode, out)
		return
	}
	pinned, drift := 0, 0
	for _, c := range p.Coefficients {
		if c.Pinned {
			pinned++
		}
		if c.Pinned && c.Published != 0 && (c.Fitted/c.Published > 1.1 || c.Fitted/c.Published < 0.9) {
			drift++
			fmt.Fprintf(stdout, "  %-22s published %-10.4g fitted %-10.4g %s (%+.0f%%)\n", c.Key, c.Published, c.Fitted, c.Unit, (c.Fitted/c.Published-1)*100)
		}
	}
	fmt.Fprintf(stdout, "calibrate: %s: %d of %d figures fitted from %d measurements on %s (%d more than 10%% from the built-in card); wrote %s\n",
		p.Date, pinned, len(p.Coefficients), len(p.Measurements), p.Account, drift, out)
}

// rateCard is the card of --calibration (a profile) or, for serve, --rate-card (a card file); nil
// for the built-in card; and the rules a profile decided (cost.Profile.Selection; nil = none). A
// profile that does not check is a usage error that says why.
func rateCard(v *viper.Viper, cardFile bool) (*cost.RateCard, *cost.Selection, error) {
	cal := v.GetString("calibration")
	file := ""
	if cardFile {
		file = v.GetString("rate-card")
	}
	switch {
	case cal != "" && file != "":
		return nil, nil, usageErr("--calibration and --rate-card: give one (a profile gives its own card)")
	case cal != "":
		card, p, err := cost.LoadCalibration(cal, target.SDKVersion)
		if err != nil {
			return nil, nil, usageErr("--calibration: %v", err)
		}
		return card, p.Selection(), nil
	case file != "":
		card, err := cost.LoadRateCard(file)
		if err != nil {
			return nil, nil, usageErr("--rate-card: %v", err)
		}
		return card, nil, nil
	}
	return nil, nil, nil
}
