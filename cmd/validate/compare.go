package main

import (
	"slices"

	"github.com/cosmosdv/validate/internal/report"
	"github.com/spf13/cobra"
)

func (a *app) compareCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compare OLD.json NEW.json",
		Short: "Compare two runs (reports or baselines): drift per pattern, regressions, design changes",
		Long: `Compare reads two JSON reports or baselines of the same design and prints, per access pattern, the drift
of the modeled and of the measured charge against the regression threshold (default +10% or +1 RU,
whichever is larger; a pattern's 'regression' band overrides it), the patterns added and removed, the
verdicts that changed and what changed in the design itself.

It refuses comparisons that would mislead: different charge sources (model vs service), different
report schema versions, different designs (by name), seeds or sample counts (unless --force).

Exit 0 no regression, 1 regression, 2 usage or unreadable input.`,
		Example: "  validate compare baselines/ecommerce.baseline.json reports/ecommerce.json",
		Args:    needArgs(2, "OLD and NEW report files"),
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
			old, err := report.ReadFile(args[0])
			if err != nil {
				return usageErr("%s: %v", args[0], err)
			}
			cur, err := report.ReadFile(args[1])
			if err != nil {
				return usageErr("%s: %v", args[1], err)
			}
			cmp, err := report.Compare(old, cur, report.CompareOptions{
				Pct:   v.GetFloat64("regression-pct"),
				RU:    v.GetFloat64("regression-ru"),
				Force: v.GetBool("force"),
			})
			if err != nil {
				return usageErr("%v", err)
			}
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
			if cmp.Regressions() > 0 {
				return errFindings
			}
			return nil
		},
	}
	addFlags(cmd, "compare")
	return cmd
}
