package main

import (
	"encoding/json"
	"errors"
	"fmt"

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

Exit codes: 0 profile written, 2 usage (no --yes on an account, a wrong target), 3 infrastructure.`

func (a *app) calibrateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "calibrate --target account|endpoint --endpoint URL [--out calibration.json]",
		Short: "Fit the rate card to an account's measured charges and write a calibration profile",
		Long:  calibrateLong,
		Example: `  CDV_KEY=... validate calibrate --target account --endpoint https://myacct.documents.azure.com:443/ --yes
  validate calibrate --target endpoint --endpoint http://127.0.0.1:8081/ --out calibration.json
  validate run --calibration calibration.json designs/shop.yaml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			kind := v.GetString("target")
			if kind != "account" && kind != "endpoint" {
				return usageErr("--target: calibrate measures an account or an endpoint (got %q)", kind)
			}
			if v.GetString("endpoint") == "" && v.GetString("connection-string") == "" {
				return usageErr("--target %s needs --endpoint URL (or CDV_CONNECTION_STRING)", kind)
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
			setInflight("the calibration's database (cdv-calibrate-*)")
			defer setInflight("")
			p, err := calibrate.Run(a.ctx, calibrate.Config{
				Target: target.Config{
					Kind:             record.Kind(kind),
					Insecure:         v.GetBool("insecure"),
					Endpoint:         v.GetString("endpoint"),
					Key:              v.GetString("key"),
					ConnectionString: v.GetString("connection-string"),
					Log:              logger,
				},
				Yes:        v.GetBool("yes"),
				Serverless: v.GetBool("serverless"),
				RunID:      v.GetString("run-id"),
				Status:     a.stderr,
			})
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
			b, err := json.MarshalIndent(p, "", "  ")
			if err != nil {
				return infraErr(err)
			}
			if err := outfile.Replace(out, append(b, '\n'), 0o644); err != nil {
				return infraErr(fmt.Errorf("write %s: %w", out, err))
			}
			pinned, drift := 0, 0
			for _, c := range p.Coefficients {
				if c.Pinned {
					pinned++
				}
				if c.Pinned && c.Published != 0 && (c.Fitted/c.Published > 1.1 || c.Fitted/c.Published < 0.9) {
					drift++
					fmt.Fprintf(a.stdout, "  %-22s published %-10.4g fitted %-10.4g %s (%+.0f%%)\n", c.Key, c.Published, c.Fitted, c.Unit, (c.Fitted/c.Published-1)*100)
				}
			}
			fmt.Fprintf(a.stdout, "calibrate: %s: %d of %d figures fitted from %d measurements on %s (%d more than 10%% from the built-in card); wrote %s\n",
				p.Date, pinned, len(p.Coefficients), len(p.Measurements), p.Account, drift, out)
			return nil
		},
	}
	addFlags(cmd, "calibrate")
	// run's default target (auto) is no choice here: calibrate needs one named.
	cmd.Flags().Lookup("target").DefValue = ""
	return cmd
}

// rateCard is the card of --calibration (a profile) or, for serve, --rate-card (a card file); nil
// for the built-in card. A profile that does not check is a usage error that says why.
func rateCard(v *viper.Viper, cardFile bool) (*cost.RateCard, error) {
	cal := v.GetString("calibration")
	file := ""
	if cardFile {
		file = v.GetString("rate-card")
	}
	switch {
	case cal != "" && file != "":
		return nil, usageErr("--calibration and --rate-card: give one (a profile gives its own card)")
	case cal != "":
		card, _, err := cost.LoadCalibration(cal, target.SDKVersion)
		if err != nil {
			return nil, usageErr("--calibration: %v", err)
		}
		return card, nil
	case file != "":
		card, err := cost.LoadRateCard(file)
		if err != nil {
			return nil, usageErr("--rate-card: %v", err)
		}
		return card, nil
	}
	return nil, nil
}
