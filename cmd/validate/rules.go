package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/spf13/cobra"
)

// rulesCmd lists the rules with alternatives (cost.Rules): what `serve --rules`, calibrate --scale
// and the band name.
func (a *app) rulesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rules of the query model no published figure decides, with their alternatives",
		Long: `Rules lists each rule of the index and query model whose behaviour on the service no published
figure settles: its alternatives, the default the engine and the estimator take (and why), its source
or "assumed", and the measurement that pins it. A production figure that rests on an unpinned rule
shows its band, the figure under each alternative (docs/cost-model.md); 'validate calibrate --scale'
decides the rules on your account, and 'validate serve --rules NAME=ALT' runs the engine under another
alternative.`,
		Example: `  validate rules
  validate rules --format json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			formats, err := parseFormats(v.GetStringSlice("format"), "rules", []string{"text", "json"})
			if err != nil {
				return err
			}
			rules := cost.Rules()
			if formats[0] == "json" {
				b, err := json.MarshalIndent(rules, "", "  ")
				if err != nil {
					return infraErr(err)
				}
				fmt.Fprintln(a.stdout, string(b))
				return nil
			}
			for _, r := range rules {
				src := r.Source
				if r.Assumed() {
					src = "assumed: production figures resting on it show a band"
				}
				fmt.Fprintf(a.stdout, "%s (%s)\n  %s\n", r.Name, src, r.Description)
				for _, alt := range r.Alt {
					mark := " "
					if alt.Name == r.Default {
						mark = "*"
					}
					fmt.Fprintf(a.stdout, "  %s %-8s %s\n", mark, alt.Name, alt.Description)
				}
				fmt.Fprintf(a.stdout, "  default %s: %s\n  pinned by: %s\n\n", r.Default, r.Note, r.Pins)
			}
			names := make([]string, len(rules))
			for i, r := range rules {
				names[i] = r.Name
			}
			fmt.Fprintf(a.stdout, "%d rules (%s); * marks the default\n", len(rules), strings.Join(names, ", "))
			return nil
		},
	}
	addFlags(cmd, "rules")
	return cmd
}
