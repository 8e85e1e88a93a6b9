package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cosmosdv/validate/internal/provision"
	"github.com/cosmosdv/validate/internal/target"
	"github.com/spf13/cobra"
)

const diffLong = `Diff --deployed compares a design with what is deployed: it reads, and only reads, the database's
containers on an account or endpoint — partition key, indexing policy (included and excluded paths,
composite indexes), unique keys, default TTL, full-text and vector policies and throughput — and
prints one line per difference, in the words run uses when it reads back what it provisioned
("stored" is what is deployed). Nothing is created, changed or deleted.

A designed container that is not deployed and a different partition key are errors; the other
differences are warnings; a deployed container the design does not have is listed as info.

Exit codes: 0 the deployment matches the design, 1 it differs (an error or warning above), 2 usage
or design error, 3 infrastructure.`

func (a *app) diffCmd() *cobra.Command {
	var deployed bool
	var database string
	cmd := &cobra.Command{
		Use:   "diff --deployed --target account|endpoint --endpoint URL [--database NAME] DESIGN",
		Short: "Compare a design with the containers deployed on an account or endpoint (read-only)",
		Long:  diffLong,
		Example: `  CDV_KEY=... validate diff --deployed --target account --endpoint https://myacct.documents.azure.com:443/ --database payments designs/payments.yaml
  validate diff --deployed --target endpoint --endpoint http://127.0.0.1:8081/ designs/ecommerce.yaml`,
		Args: needArgs(1, "design file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !deployed {
				return usageErr("diff: give --deployed (two designs or reports: validate compare OLD NEW)")
			}
			if len(args) != 1 {
				return usageErr("diff --deployed: give one design (got %d)", len(args))
			}
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			kind, err := remoteKind(v, "diff --deployed reads")
			if err != nil {
				return err
			}
			designs, err := loadDesigns(a.stderr, args)
			if err != nil {
				return err
			}
			d := designs[0]
			if database == "" {
				database = d.Database
			}
			tgt, err := a.openRemote(cmd, v, kind)
			if err != nil {
				return err
			}
			defer tgt.Close(cmd.Context())
			fs, err := provision.DiffDeployed(cmd.Context(), tgt.Client, database, d)
			if err != nil {
				return infraErr(errors.New(target.Explain(err)))
			}
			drift := 0
			for _, f := range fs {
				fmt.Fprintf(a.stdout, "%s: %s: %s\n", strings.ToUpper(f.Level), f.Subject, f.Message)
				if f.Level == "error" || f.Level == "warn" {
					drift++
				}
			}
			if drift > 0 {
				fmt.Fprintf(a.stdout, "%s: database %s on %s differs from the design in %d way(s)\n", d.Name, database, tgt.Info.Endpoint, drift)
				return errFindings
			}
			fmt.Fprintf(a.stdout, "%s: database %s on %s matches the design (%d container(s))\n", d.Name, database, tgt.Info.Endpoint, len(d.Containers))
			return nil
		},
	}
	cmd.Flags().BoolVar(&deployed, "deployed", false, "compare with what is deployed on --endpoint (required)")
	cmd.Flags().StringVar(&database, "database", "", "the deployed database (default: the design's database)")
	addFlags(cmd, "diff")
	cmd.Flags().Lookup("target").DefValue = ""
	return cmd
}
