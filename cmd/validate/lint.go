package main

import (
	"fmt"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/spf13/cobra"
)

func (a *app) lintCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "lint DESIGN...",
		Short: "Check design files: strict format, references, placeholders, bounds, design mistakes",
		Long: `Lint reads each design file strictly (unknown keys are errors) and validates it: unique names,
partition keys, indexing paths, that every pattern names an existing container and document type,
that every {placeholder} resolves and every query parameter is declared. Every problem is printed as
file:line:col: field.path: message, all of them at once.

A valid design is then checked for mistakes that would cost or fail later: an estimate below what the
pattern can cost, a query shape the Go SDK cannot run across partitions (when app.sdk is go; a
design naming no SDK gets one note), a unique key some document
type does not have, a price in the wrong unit, a hot partition, throughput below the peak.

Exit 0 when every file is clean, 1 when a valid design has findings, 2 when a file cannot be read,
parsed or validated.`,
		Example: "  validate lint designs/*.yaml",
		Args:    needArgs(1, "design file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			worst := ExitOK
			for _, path := range args {
				if isMarkdown(path) {
					fmt.Fprintln(a.stderr, markdownHint(path))
					worst = ExitUsage
					continue
				}
				d, err := design.Load(path)
				if err != nil {
					fmt.Fprintln(a.stderr, err)
					worst = ExitUsage
					continue
				}
				fs := lint.Check(d)
				mistakes := 0
				for _, f := range fs {
					fmt.Fprintln(a.stdout, f)
					if !f.Note {
						mistakes++
					}
				}
				if mistakes > 0 {
					worst = max(worst, ExitFindings)
					continue
				}
				fmt.Fprintf(a.stdout, "%s: ok (%s, %s, %s)\n",
					path, design.Count(len(d.Containers), "container"), design.Count(countTypes(d), "document type"),
					design.Count(len(d.AccessPatterns), "access pattern"))
			}
			if worst != ExitOK {
				return &exitError{code: worst, printed: true}
			}
			return nil
		},
	}
}

func countTypes(d *design.Design) int {
	n := 0
	for _, c := range d.Containers {
		n += len(c.Documents)
	}
	return n
}
