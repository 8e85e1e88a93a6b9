package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/cosmosdv/validate/internal/outfile"

	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/cosmosdv/validate/internal/sarif"
	"github.com/cosmosdv/validate/internal/waiver"
	"github.com/spf13/cobra"
)

func (a *app) planCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan DESIGN...",
		Short: "Estimate charges, capacity, partitions and monthly cost from the model alone (no database)",
		Long: `Plan reads each design and, without any database, computes from the cost model: per access pattern the
model's static charge (from the generators' document sizes and the indexing policy) next to the
designer's estimate, RU/s at average and peak; per container the cheapest throughput mode that holds
the peak, physical partitions, hot-partition risk and monthly cost. Every figure can be checked by
hand from the rate card printed with it.

Static query charges are rough: 'validate run' executes the queries on an engine. When the design
states a production scale (documents[].production or storageGB), each query also gets a PRODUCTION
figure, projected as 'validate run' projects it (with the arithmetic), and its estimate is judged
on that figure; the plan says which figure it judged on.

With --format json and no --out, standard output is JSON Lines: one JSON document per design, one
per line (text asked for as well goes to standard error). With --out each design gets its own file.

Its warnings include every finding of 'validate lint' (docs/design-format.md) — the design review
(TTL semantics, key templates against the container's key, lost partition keys and other fan-outs,
filters no document matches, redundant indexes, unknown fields, …) and the rules that need the cost
model (over-provisioning with its idle monthly cost, hot partitions sized with the traffic skew
(rps.hotKeyShare) apart from the data's, HPK level order, low-cardinality keys); a fan-out lint
weighs as negligible (--negligible-share) is not a warning, as it is not a lint finding.

Exit 0 when the plan has no warnings, 1 when it warns (an estimate below what a pattern can cost, a
price in the wrong unit, a hot partition, a design-review finding), 2 when a design cannot be read.`,
		Example: `  validate plan designs/ecommerce.yaml
  validate plan --format json designs/*.yaml`,
		Args: needArgs(1, "design file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			formats, err := parseFormats(v.GetStringSlice("format"), "plan", []string{"text", "json", "sarif"})
			if err != nil {
				return err
			}
			if slices.Contains(formats, "sarif") && len(formats) > 1 && v.GetString("out") == "" {
				return usageErr("plan --format sarif: alone on standard output (one SARIF log), or give --out DIR for several formats")
			}
			card, rules, err := rateCard(v, false)
			if err != nil {
				return err
			}
			if h := v.GetFloat64("headroom"); h < 0 || h > 1 {
				return usageErr("--headroom: want a share above 0 and at most 1, or 0 for the default 0.5 (got %g)", h)
			}
			lintOpts, err := lintOptions(v.GetFloat64("negligible-share"))
			if err != nil {
				return err
			}
			designs, ok := pipeline.LoadDesigns(a.stderr, args)
			if !ok {
				return &exitError{code: ExitUsage, printed: true}
			}
			var ws *waiver.Set
			if f := v.GetString("waivers"); f != "" {
				if ws, err = waiver.Load(f); err != nil {
					return usageErr("--waivers: %v", err)
				}
			}
			expired := map[*waiver.Waiver]lint.Finding{}
			var results []sarif.Finding
			out := v.GetString("out")
			warnings := 0
			for _, d := range designs {
				p, err := pipeline.PlanWith(d, plan.Options{Seed: v.GetInt64("seed"), RateCard: card, Rules: rules, Headroom: v.GetFloat64("headroom")}, lintOpts)
				if err != nil {
					return usageErr("%s: %v", d.File, err)
				}
				waived := waivePlan(ws, d, p, expired)
				warnings += len(p.Warnings) - len(waived)
				for _, f := range formats {
					if f == "sarif" {
						results = append(results, pipeline.PlanFindings(d, p, waived)...)
						continue
					}
					if out == "" {
						// JSON on standard output is JSON Lines: one compact document per design, so
						// that several designs still make valid machine output.
						if f == "json" {
							if err := pipeline.WriteJSONLine(a.stdout, p); err != nil {
								return infraErr(err)
							}
							continue
						}
						// Beside JSON Lines, text is for people: standard error keeps the stream parseable.
						w := a.stdout
						if slices.Contains(formats, "json") {
							w = a.stderr
						}
						if err := plan.Render(w, p, f); err != nil {
							return infraErr(err)
						}
						continue
					}
					if err := os.MkdirAll(out, 0o755); err != nil {
						return infraErr(err)
					}
					ext := map[string]string{"text": "txt", "json": "json"}[f]
					name := filepath.Join(out, report.FileStem(d.Name)+".plan."+ext)
					var buf bytes.Buffer
					err := plan.Render(&buf, p, f)
					if err == nil {
						err = outfile.Replace(name, buf.Bytes(), 0o644)
					}
					if err != nil {
						return infraErr(fmt.Errorf("write %s: %w", name, err))
					}
					fmt.Fprintf(a.stderr, "%s: wrote %s\n", d.Name, name)
				}
			}
			for _, w := range expiredInOrder(expired) {
				if f, ok := expired[w]; ok {
					fmt.Fprintln(a.stderr, f)
					results = append(results, sarif.Finding{Rule: f.Code, Level: sarif.LevelError, Message: f.Message, File: f.File, Line: f.Pos.Line, Col: f.Pos.Col})
					warnings++
				}
			}
			if slices.Contains(formats, "sarif") {
				// One log for every design: on standard output, or as plan.sarif in --out.
				log := sarif.Build(version, lintHelpURI, results)
				if out == "" {
					if err := log.Write(a.stdout); err != nil {
						return infraErr(err)
					}
				} else {
					var buf bytes.Buffer
					err := log.Write(&buf)
					if err == nil {
						err = os.MkdirAll(out, 0o755)
					}
					name := filepath.Join(out, "plan.sarif")
					if err == nil {
						err = outfile.Replace(name, buf.Bytes(), 0o644)
					}
					if err != nil {
						return infraErr(fmt.Errorf("write %s: %w", name, err))
					}
					fmt.Fprintf(a.stderr, "wrote %s\n", name)
				}
			}
			if warnings > 0 {
				return errFindings
			}
			return nil
		},
	}
	addFlags(cmd, "plan")
	return cmd
}
