package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/cosmosdv/validate/internal/target"
	"github.com/spf13/cobra"
)

const baselineCheckLong = `Check runs each design on the embedded engine at its committed baseline's seed and sample count
and tells whether the baseline is what this build writes (like 'terraform plan -detailed-exitcode'):
a baseline that differs — the design moved without it, or the model (validate's version or its rate
card) moved the figures — is out of date and is named with what moved. The tool version the baseline
records is not compared: a new build that writes the same figures leaves a baseline current.

Only baselines of modeled charges (the embedded engine's, "model") can be checked: a measured
baseline differs run to run and is reported as not checkable.

Exit codes: 0 every baseline is current, 1 a baseline is out of date or missing, 2 usage or design
error (or a baseline that cannot be checked), 3 infrastructure.`

func (a *app) baselineCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "baseline",
		Short: "Work with committed baselines: check that they are what this build writes",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErr("baseline: give a subcommand (check)\nRun 'validate baseline --help' for usage.")
		},
	}
	var dir string
	check := &cobra.Command{
		Use:   "check --baseline DIR DESIGN...",
		Short: "Exit 1 when a committed baseline differs from what this build writes",
		Long:  baselineCheckLong,
		Example: `  validate baseline check --baseline baselines/embedded/ designs/*.yaml
  validate run --target embedded --baseline baselines/embedded/ --update-baseline designs/*.yaml   # bring them up to date`,
		Args: needArgs(1, "design file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return usageErr("baseline check: --baseline: give the folder of <design>.baseline.json files")
			}
			designs, err := loadDesigns(a.stderr, args)
			if err != nil {
				return err
			}
			return a.baselineCheck(cmd, dir, designs)
		},
	}
	check.Flags().StringVar(&dir, "baseline", "", "folder of committed <design>.baseline.json files (or one file, for one design)")
	cmd.AddCommand(check)
	return cmd
}

// baselineCheck compares each design's committed baseline with the one this build writes.
func (a *app) baselineCheck(cmd *cobra.Command, dir string, designs []*design.Design) error {
	if len(designs) > 1 && !strings.HasSuffix(dir, string(os.PathSeparator)) && !strings.HasSuffix(dir, "/") {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return usageErr("baseline check: --baseline %s: with several designs, give a folder (ending in /)", dir)
		}
	}
	var outdated, unusable int
	for _, d := range designs {
		file := pipeline.BaselineFile(dir, d)
		status, err := a.checkOne(cmd, file, d)
		if err != nil {
			var ee *exitError
			if errors.As(err, &ee) && ee.code == ExitInfra {
				return err
			}
			fmt.Fprintf(a.stdout, "%s: cannot check: %v\n", file, err)
			unusable++
			continue
		}
		fmt.Fprintf(a.stdout, "%s\n", status.line(file, d))
		if !status.current {
			outdated++
		}
	}
	switch {
	case unusable > 0:
		return &exitError{code: ExitUsage, printed: true}
	case outdated > 0:
		fmt.Fprintf(a.stdout, "%s out of date: regenerate with validate run --target embedded --baseline %s --update-baseline DESIGN... and commit them, saying what moved and why\n",
			design.Count(outdated, "baseline"), dir)
		return errFindings
	}
	return nil
}

type baselineStatus struct {
	current, missing bool
	cmp              *report.Comparison
}

func (s baselineStatus) line(file string, d *design.Design) string {
	switch {
	case s.missing:
		return fmt.Sprintf("%s: MISSING for design %s", file, d.Name)
	case s.current:
		return fmt.Sprintf("%s: current", file)
	}
	var what []string
	c := s.cmp
	if c != nil {
		if c.Model != nil {
			what = append(what, "written by another model ("+c.ModelShort()+")")
		}
		if len(c.DesignChanges) > 0 {
			what = append(what, fmt.Sprintf("the design changed (%s)", strings.Join(c.DesignChanges, "; ")))
		}
		var moved []string
		for _, p := range c.Ordered() {
			if p.Change != report.Unchanged {
				moved = append(moved, fmt.Sprintf("%s %s", p.ID, p.Change))
			}
		}
		if len(moved) > 0 {
			what = append(what, "beyond the thresholds: "+strings.Join(moved, ", "))
		}
		if len(moved) == 0 && len(c.DesignChanges) == 0 {
			what = append(what, "it differs from what this build writes, within the regression thresholds")
		}
	}
	if len(what) == 0 {
		what = append(what, "it differs from what this build writes, within the regression thresholds")
	}
	return fmt.Sprintf("%s: OUT OF DATE: %s", file, strings.Join(what, "; "))
}

// checkOne runs d as the baseline in file was written (embedded engine, its seed and samples) and
// compares the baseline this build writes with it, every field but the tool version.
func (a *app) checkOne(cmd *cobra.Command, file string, d *design.Design) (baselineStatus, error) {
	committed, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return baselineStatus{missing: true}, nil
	}
	if err != nil {
		return baselineStatus{}, err
	}
	old, err := report.ReadBaseline(bytes.NewReader(committed))
	if err != nil {
		return baselineStatus{}, err
	}
	if old.Target.ChargeSource != record.ChargeModel {
		return baselineStatus{}, fmt.Errorf("its charges are %s, measured: they differ run to run; only modeled baselines (the embedded engine's) can be checked", old.Target.ChargeSource)
	}
	setStopping("stopping the embedded engine")
	out, err := pipeline.Validate(cmd.Context(), []*design.Design{d}, pipeline.Config{
		Target:  target.Config{Kind: record.KindEmbedded},
		Seed:    old.Seed,
		Samples: old.Samples,
		Version: version,
		Stdout:  io.Discard,
		Stderr:  io.Discard,
	})
	setStopping("")
	switch {
	case errors.Is(err, pipeline.ErrUsage):
		return baselineStatus{}, err
	case err != nil:
		return baselineStatus{}, infraErr(err)
	}
	var fresh bytes.Buffer
	if err := report.WriteBaseline(&fresh, out.Reports[0]); err != nil {
		return baselineStatus{}, err
	}
	same, err := sameBaseline(committed, fresh.Bytes())
	if err != nil {
		return baselineStatus{}, err
	}
	if same {
		return baselineStatus{current: true}, nil
	}
	cmp, err := report.Compare(old, out.Reports[0], report.CompareOptions{Force: true})
	if err != nil {
		cmp = nil // another schema version: out of date all the same
	}
	return baselineStatus{cmp: cmp}, nil
}

// sameBaseline reports whether two baselines hold the same figures: every field but tool.version.
func sameBaseline(a, b []byte) (bool, error) {
	var x, y map[string]any
	if err := json.Unmarshal(a, &x); err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return false, err
	}
	for _, m := range []map[string]any{x, y} {
		if t, ok := m["tool"].(map[string]any); ok {
			delete(t, "version")
		}
	}
	return reflect.DeepEqual(x, y), nil
}
