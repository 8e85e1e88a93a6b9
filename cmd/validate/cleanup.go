package main

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/target"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

const cleanupLong = `Cleanup finds the databases that runs left on an account or endpoint — a run killed with kill -9,
a machine that died, a teardown the service refused — and, with --yes, deletes them.

Every database a run creates there carries the mark: its name is cdv-<database>-<run id>, and a run id
'validate run' or 'validate calibrate' makes is the run's UTC start and 4 random hex digits
(cdv-shop-20261121t054346-a1b2). Cleanup considers only such names, and of them only runs that
started more than --older-than ago (default 6h), so a run still going is left alone; --run-id ID
picks the database(s) of that run whatever their age. Nothing else is ever listed or deleted: not a
database without the mark, not one whose name only resembles it.

It lists what it found (each name, when the run started and how long ago); with --yes it deletes
them through the same SDK and says what it deleted.

Exit codes: 0 nothing left behind (or all of it deleted), 1 leftovers found and not deleted (no
--yes), 2 usage, 3 infrastructure (the target could not be reached, a delete failed).`

func (a *app) cleanupCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cleanup --target account|endpoint --endpoint URL [--older-than 6h] [--yes]",
		Short: "Find, and with --yes delete, the databases killed runs left on an account or endpoint",
		Long:  cleanupLong,
		Example: `  CDV_KEY=... validate cleanup --target account --endpoint https://myacct.documents.azure.com:443/
  validate cleanup --target endpoint --endpoint http://127.0.0.1:8081/ --older-than 1h --yes
  validate cleanup --target endpoint --endpoint http://127.0.0.1:8081/ --run-id nightly-4711 --yes`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			kind, err := remoteKind(v, "cleanup looks on")
			if err != nil {
				return err
			}
			age := v.GetDuration("older-than")
			if age < 0 {
				return usageErr("--older-than: must not be negative (got %s)", age)
			}
			tgt, err := a.openRemote(cmd, v, kind)
			if err != nil {
				return err
			}
			defer tgt.Close(cmd.Context())
			return a.cleanup(cmd, tgt.Client, tgt.Info.Endpoint, v.GetString("run-id"), age, v.GetBool("yes"))
		},
	}
	addFlags(cmd, "cleanup")
	cmd.Flags().Lookup("target").DefValue = ""
	return cmd
}

// leftover is a database a run left behind.
type leftover struct {
	name    string
	started time.Time // zero for a --run-id match
}

// cleanup lists the marked databases older than age (or of runID) and deletes them with yes.
func (a *app) cleanup(cmd *cobra.Command, cl *azcosmos.Client, where, runID string, age time.Duration, yes bool) error {
	ctx := cmd.Context()
	var found []leftover
	pager := cl.NewQueryDatabasesPager("SELECT * FROM c", nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return infraErr(fmt.Errorf("list the databases of %s: %w", where, err))
		}
		for _, db := range page.Databases {
			started, ok := target.ParseRunScoped(db.ID, runID)
			if !ok || runID == "" && now().Sub(started) <= age {
				continue
			}
			found = append(found, leftover{db.ID, started})
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].name < found[j].name })
	if len(found) == 0 {
		fmt.Fprintf(a.stdout, "cleanup: no database left behind by a run on %s%s\n", where, scope(runID, age))
		return nil
	}
	for _, l := range found {
		when := "run " + runID
		if !l.started.IsZero() {
			when = fmt.Sprintf("run started %s, %s ago", l.started.Format(time.RFC3339), now().Sub(l.started).Round(time.Minute))
		}
		if !yes {
			fmt.Fprintf(a.stdout, "left behind: database %s (%s)\n", l.name, when)
			continue
		}
		db, err := cl.NewDatabase(l.name)
		if err == nil {
			_, err = db.Delete(ctx, nil)
		}
		if err != nil {
			return infraErr(fmt.Errorf("delete database %s on %s: %w", l.name, where, err))
		}
		fmt.Fprintf(a.stdout, "deleted: database %s (%s)\n", l.name, when)
	}
	if !yes {
		fmt.Fprintf(a.stdout, "cleanup: %d database(s) left behind by runs on %s%s; run again with --yes to delete them\n", len(found), where, scope(runID, age))
		return errFindings
	}
	fmt.Fprintf(a.stdout, "cleanup: deleted %d database(s) left behind by runs on %s\n", len(found), where)
	return nil
}

func scope(runID string, age time.Duration) string {
	if runID != "" {
		return " (run " + runID + ")"
	}
	return fmt.Sprintf(" (runs older than %s)", age)
}

// remoteKind is the --target of a command that works on an account or an endpoint only (cleanup,
// calibrate, diff --deployed: what says what it does there), with the endpoint it needs given; a
// usage error otherwise.
func remoteKind(v *viper.Viper, what string) (string, error) {
	kind := v.GetString("target")
	if kind != "account" && kind != "endpoint" {
		return "", usageErr("--target: %s an account or an endpoint (got %q)", what, kind)
	}
	if v.GetString("endpoint") == "" && v.GetString("connection-string") == "" {
		return "", usageErr("--target %s needs --endpoint URL (or CDV_CONNECTION_STRING)", kind)
	}
	return kind, nil
}

// openRemote opens the account or endpoint that cleanup and diff --deployed read, from the target
// flags; a bad configuration is a usage error, an unreachable target an infrastructure one.
func (a *app) openRemote(cmd *cobra.Command, v *viper.Viper, kind string) (*target.Target, error) {
	logger, err := newLogger(a.stderr, v.GetString("log-level"))
	if err != nil {
		return nil, err
	}
	tgt, err := target.Open(cmd.Context(), target.Config{
		Kind:             record.Kind(kind),
		Insecure:         v.GetBool("insecure"),
		Endpoint:         v.GetString("endpoint"),
		Key:              v.GetString("key"),
		ConnectionString: v.GetString("connection-string"),
		Log:              logger,
	})
	if err != nil {
		if errors.Is(err, target.ErrConfig) {
			return nil, usageErr("%s", target.Explain(err))
		}
		return nil, infraErr(errors.New(target.Explain(err)))
	}
	return tgt, nil
}
