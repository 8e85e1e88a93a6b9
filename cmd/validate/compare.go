package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/cosmosdv/validate/internal/target"
	"github.com/spf13/cobra"
)

const compareLong = `Compare shows, per access pattern, how the charges moved from OLD to NEW: the modeled and the
measured median and the production figure (the PRODUCTION column: the charge projected to the
design's production scale) against the regression threshold (default +10% or +1 RU, whichever is
larger; a pattern's 'regression' band overrides it), the patterns added and removed, the verdicts
that changed, what changed in the design itself (containers, keys, throughput, TTL, indexing paths,
composites, document types and fields with the documents' size, seeded and production counts) and
what the change does to the monthly bill at production.

OLD and NEW are each a JSON report or baseline, or a design file (.yaml): a design is run first on
the embedded engine with --seed and --samples (modeled charges, no database needed), so that a model
change can be judged before it is merged:

  validate compare designs/ecommerce.yaml ecommerce-with-new-index.yaml

It refuses comparisons that would mislead: different charge sources (model vs service), different
report schema versions, different designs (by name), seeds or sample counts (unless --force). A
variant and its origin are not different designs: a design whose variantOf names the other side's
design (as 'validate advise --write-variants' writes them) is compared without --force, and the
comparison says it compares a variant with its origin.

Exit 0 no regression, 1 regression, 2 usage, unreadable input or an invalid design, 3 a design's run
failed.`

func (a *app) compareCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two runs (reports, baselines or design files): drift per pattern, regressions, design and cost changes",
		Long:  compareLong,
		Example: `  validate compare baselines/embedded/ecommerce.baseline.json reports/ecommerce.json
  validate compare designs/ecommerce.yaml ecommerce-denormalised.yaml
  validate compare --format md baselines/embedded/ecommerce.baseline.json designs/ecommerce.yaml`,
		Args: needArgs(2, "OLD and NEW report files"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErr("compare takes exactly two files, OLD and NEW (got %d)", len(args))
			}
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			formats, err := parseFormats(v.GetStringSlice("format"), "compare", []string{"text", "md", "json"})
			if err != nil {
				return err
			}
			samples := v.GetInt("samples")
			if samples < 1 || samples > 10000 {
				return usageErr("--samples: want 1..10000 (got %d)", samples)
			}
			sides, err := a.compareSides(cmd.Context(), args, v.GetInt64("seed"), samples)
			if err != nil {
				return err
			}
			cmp, err := report.Compare(sides[0], sides[1], report.CompareOptions{
				Pct:               v.GetFloat64("regression-pct"),
				RU:                v.GetFloat64("regression-ru"),
				Force:             v.GetBool("force"),
				USD:               v.GetFloat64("regression-usd"),
				FailOnModelChange: v.GetBool("fail-on-model-change"),
			})
			if err != nil {
				return usageErr("%v", err)
			}
			cmp.Old.File, cmp.New.File = args[0], args[1]
			for _, f := range formats {
				// Beside JSON, text and markdown are for people: standard error keeps stdout parseable.
				w := a.stdout
				if f != "json" && slices.Contains(formats, "json") {
					w = a.stderr
				}
				if err := report.RenderComparison(w, cmp, f); err != nil {
					return err
				}
			}
			if cmp.Failures() > 0 {
				return errFindings
			}
			return nil
		},
	}
	addFlags(cmd, "compare")
	return cmd
}

// isDesignFile tells a design file (YAML) from a report or baseline (JSON) by its extension.
func isDesignFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return true
	}
	return false
}

// compareSides reads each side: a report or baseline file as it is, a design file by running it on
// the embedded engine. Both design files are read before either runs, so a typo costs nothing.
func (a *app) compareSides(ctx context.Context, args []string, seed int64, samples int) ([2]*report.Report, error) {
	var sides [2]*report.Report
	var designs [2]*design.Design
	for i, p := range args {
		if isDesignFile(p) || isMarkdown(p) {
			// One at a time: the two versions of a design usually share its name.
			ds, err := loadDesigns(a.stderr, []string{p})
			if err != nil {
				return sides, err
			}
			designs[i] = ds[0]
			continue
		}
		r, err := report.ReadFile(p)
		if err != nil {
			return sides, usageErr("%s: %v", p, err)
		}
		sides[i] = r
	}
	for i, d := range designs {
		if d == nil {
			continue
		}
		setStopping("stopping the embedded engine")
		out, err := pipeline.Validate(ctx, []*design.Design{d}, pipeline.Config{
			Target:  target.Config{Kind: record.KindEmbedded},
			Seed:    seed,
			Samples: samples,
			Version: version,
			Stdout:  io.Discard, // the reports themselves are not shown: the comparison is
			Stderr:  a.stderr,
		})
		setStopping("")
		switch {
		case errors.Is(err, pipeline.ErrUsage):
			return sides, &exitError{code: ExitUsage, err: err}
		case err != nil:
			return sides, infraErr(err)
		}
		sides[i] = out.Reports[0]
	}
	return sides, nil
}
