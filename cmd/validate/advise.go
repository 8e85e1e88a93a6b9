package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/cosmosdv/validate/internal/outfile"

	"github.com/cosmosdv/validate/internal/advise"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/spf13/cobra"
)

func (a *app) adviseCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "advise DESIGN...",
		Short: "Propose a better design with its numbers: indexes, partition key, embedding, secondary copies",
		Long: `Advise reads each design and, without any database, prices the changes a modeling review would
weigh, each as a variant of the design that 'validate plan' prices (the same estimator, at the
design's production scale):

  indexing        every indexed path no query names, every composite, and every path or composite a
                  query filters or sorts on that is not indexed: RU/s added to writes, saved on
                  queries, monthly cost; a recommended policy as YAML to paste
  partition key   the fields the queries pin, synthetic keys, hierarchical keys, the design's own:
                  share of traffic on one partition, fan-out RU/s, the busiest logical partition
                  against 10,000 RU/s and 20 GB, monthly cost; ranked
  embed/reference each parent/child relationship and array of objects: document size at production
                  against the 2 MB item limit, a child write's charge, reads, monthly cost, and the
                  modeling article's rules of thumb
  secondary copy  for each cross-partition query: a container keyed for it (kept from the change
                  feed) or a global secondary index (preview), against the fan-out it removes

At most 50 variants are priced per design (--max-variants N raises it); the containers whose key
or throughput does not fit are searched first, and what the cap leaves unpriced is listed by name.
A key whose busiest logical partition uses more than --headroom (default 50%) of the 10,000 RU/s
or the 20 GB a logical partition can have at production is ranked below every key with headroom,
by the rule plan's hot-partition warnings follow. A design with nothing to improve says so.

--write-variants DIR writes each recommended variant as a design file; run it with 'validate run'
(or compare runs with 'validate compare') to check the claim.

Exit 0 when advice is given (or there is nothing to improve), 2 when a design cannot be read.`,
		Example: `  validate advise designs/ecommerce.yaml
  validate advise --format md designs/*.yaml
  validate advise --write-variants variants/ designs/iot.yaml && validate run variants/iot.*.yaml`,
		Args: needArgs(1, "design file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			formats, err := parseFormats(v.GetStringSlice("format"), "advise", []string{"text", "md", "json"})
			if err != nil {
				return err
			}
			card, rules, err := rateCard(v, false)
			if err != nil {
				return err
			}
			designs, err := loadDesigns(a.stderr, args)
			if err != nil {
				return err
			}
			out, variants := v.GetString("out"), v.GetString("write-variants")
			maxVariants, headroom := v.GetInt("max-variants"), v.GetFloat64("headroom")
			if maxVariants < 0 {
				return usageErr("--max-variants: want 0 (the default, 50) or more (got %d)", maxVariants)
			}
			if headroom < 0 || headroom > 1 {
				return usageErr("--headroom: want a share above 0 and at most 1, or 0 for the default 0.5 (got %g)", headroom)
			}
			for _, d := range designs {
				adv, err := advise.Advise(d, advise.Options{Seed: v.GetInt64("seed"), RateCard: card, Rules: rules, MaxCandidates: maxVariants, Headroom: headroom})
				if err != nil {
					return usageErr("%s: %v", d.File, err)
				}
				for _, f := range formats {
					if out == "" {
						if f == "json" {
							if err := pipeline.WriteJSONLine(a.stdout, adv); err != nil {
								return infraErr(err)
							}
							continue
						}
						w := a.stdout
						if slices.Contains(formats, "json") {
							w = a.stderr
						}
						if err := advise.Render(w, adv, f); err != nil {
							return infraErr(err)
						}
						continue
					}
					if err := os.MkdirAll(out, 0o755); err != nil {
						return infraErr(err)
					}
					ext := map[string]string{"text": "txt", "md": "md", "json": "json"}[f]
					name := filepath.Join(out, report.FileStem(d.Name)+".advise."+ext)
					var buf bytes.Buffer
					err := advise.Render(&buf, adv, f)
					if err == nil {
						err = outfile.Replace(name, buf.Bytes(), 0o644)
					}
					if err != nil {
						return infraErr(fmt.Errorf("write %s: %w", name, err))
					}
					fmt.Fprintf(a.stderr, "%s: wrote %s\n", d.Name, name)
				}
				if variants != "" {
					written, err := advise.WriteVariants(variants, adv, v.GetBool("force"))
					if errors.Is(err, outfile.ErrExists) {
						return usageErr("--write-variants: %v", err)
					}
					if err != nil {
						return infraErr(fmt.Errorf("--write-variants: %w", err))
					}
					for _, w := range written {
						fmt.Fprintf(a.stderr, "%s: wrote variant %s\n", d.Name, w)
					}
					if len(written) == 0 {
						fmt.Fprintf(a.stderr, "%s: no variant to write: nothing to improve\n", d.Name)
					}
				}
			}
			return nil
		},
	}
	addFlags(cmd, "advise")
	return cmd
}
