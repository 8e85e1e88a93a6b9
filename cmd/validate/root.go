package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

// app is one invocation: its output streams and configuration.
type app struct {
	ctx        context.Context
	stdout     io.Writer
	stderr     io.Writer
	configFile string
}

// Run executes the validate command line and returns its exit code. main is a thin wrapper; tests call
// Run with buffers.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{ctx: ctx, stdout: stdout, stderr: stderr}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code, printed := codeOf(err)
	if !printed {
		msg := err.Error()
		if code == ExitUsage && isCobraUsage(err) {
			msg += "\nRun 'validate --help' for usage."
		}
		fmt.Fprintln(stderr, "validate: "+msg)
	}
	return code
}

// isCobraUsage tells flag and argument errors from cobra apart from our own errors.
func isCobraUsage(err error) bool {
	var ee *exitError
	if errors.As(err, &ee) {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "flag") || strings.Contains(s, "unknown command") || strings.Contains(s, "arg")
}

const rootLong = `validate tells whether an Azure Cosmos DB NoSQL data model behaves and costs what its design says.

It reads a design file (containers, partition keys, indexing policies, document types and numbered
access patterns with RPS and RU estimates), provisions it on a target — the embedded engine by
default, the Cosmos DB emulator through Docker, or a real account —, seeds synthetic documents, runs
every access pattern and reports the request charges against the estimates.

Every RU figure says where it comes from: "model" (the embedded engine's cost model), "service" (an
Azure Cosmos DB account), "emulator-indicative" (the classic emulator) or "emulator-placeholder" (the
vNext emulator, which does not compute request units).

Configuration: flags > CDV_* environment variables > validate.yaml (or --config) > defaults.
Exit codes: 0 ok, 1 findings, 2 usage or design error, 3 infrastructure.`

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "validate",
		Short:         "Validate a Cosmos DB design: provision, seed, probe and report request charges",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
		Example: `  validate lint designs/*.yaml          check design files
  validate plan designs/ecommerce.yaml  cost and capacity from the model alone, no database
  validate run designs/ecommerce.yaml   provision, seed and probe on the default target
  validate run --target emulator designs/*.yaml --out reports --format md,json,junit,html`,
	}
	root.PersistentFlags().StringVar(&a.configFile, "config", "", "configuration file (default: validate.yaml in the working directory, if present)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// Run prints "validate: " before the message: name the subcommand only. A number that does
		// not parse says what the flag wants, not strconv's words.
		err = plainNumberError(err)
		msg := fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())
		if c.HasParent() {
			msg = fmt.Errorf("%s: %w", strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" "), msg)
		}
		return &exitError{code: ExitUsage, err: msg}
	})
	root.AddCommand(
		a.runCmd(),
		a.lintCmd(),
		a.planCmd(),
		a.adviseCmd(),
		a.serveCmd(),
		a.calibrateCmd(),
		a.rulesCmd(),
		a.compareCmd(),
		a.baselineCmd(),
		a.cleanupCmd(),
		a.diffCmd(),
		a.configCmd(),
		a.versionCmd(),
		a.importCmd(),
		a.mcpCmd(),
		a.studioCmd(),
	)
	return root
}

// viper returns the configuration of cmd's invocation.
func (a *app) viper(cmd *cobra.Command) (*viper.Viper, error) {
	return newViperChecked(cmd.Flags(), a.configFile, cmd.Name() == "config")
}

// needArgs is cobra.MinimumNArgs with an error that maps to exit 2 and says what to give.
func needArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErr("%s: missing %s\nRun '%s --help' for usage.", cmd.Name(), what, cmd.CommandPath())
		}
		return nil
	}
}

// noArgs is cobra.NoArgs with an error that maps to exit 2 and points at the command's own help.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErr("%s takes no arguments (got %q)\nRun '%s --help' for usage.", cmd.Name(), strings.Join(args, " "), cmd.CommandPath())
	}
	return nil
}

func (a *app) configCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration and where each value comes from (secrets redacted)",
		Long: `Config prints every setting of every command, its effective value and where it comes from: a flag,
a CDV_* environment variable (CDV_ and the key in upper case, dashes as underscores: --samples is
CDV_SAMPLES), the configuration file (validate.yaml in the working directory, or --config FILE,
whose keys are the long flag names) or the default. Keys and connection strings are shown as
<redacted>. An unknown key or a value of the wrong type is an error naming the file, line and key.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			printConfig(a.stdout, v, cmd.Flags())
			return nil
		},
	}
}

// plainNumberError rewrites pflag's "invalid argument "abc" for "--samples" flag: strconv.ParseInt:
// parsing "abc": invalid syntax" as "invalid argument "abc" for "--samples" flag: want a whole
// number" (or "a number", "true or false").
func plainNumberError(err error) error {
	msg := err.Error()
	head, tail, ok := strings.Cut(msg, ": strconv.")
	if !ok {
		return err
	}
	want := "a number"
	switch {
	case strings.HasPrefix(tail, "ParseInt"), strings.HasPrefix(tail, "ParseUint"):
		want = "a whole number"
	case strings.HasPrefix(tail, "ParseBool"):
		want = "true or false"
	}
	if strings.Contains(tail, "out of range") {
		want += " in range"
	}
	return errors.New(head + ": want " + want)
}
