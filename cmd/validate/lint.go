package main

import (
	"fmt"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/spf13/cobra"
)

func (a *app) lintCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lint DESIGN...",
		Short: "Check design files: strict format, references, placeholders, bounds, design mistakes",
		Long: `Lint reads each design file strictly (unknown keys are errors) and validates it: unique names,
partition keys, indexing paths, that every pattern names an existing container and document type,
that every {placeholder} resolves and every query parameter is declared. Every problem is printed as
file:line:col: field.path: message, all of them at once.

A valid design is then checked for mistakes that would cost or fail later: a property path (in a
query, a patch, a unique key, an index, a search policy) that no document type generates, with the
field meant; what the service would refuse in a query (a syntax error, an unknown function, an
ORDER BY without its composite index), read with the engine's own parser and pointing at the
character in the design file, with the YAML to paste; an estimate below what the pattern can cost,
a query shape the Go SDK cannot run across partitions (when app.sdk is go; a design naming no SDK
gets one note), a unique key some document type does not have, a price in the wrong unit, a hot
partition, throughput below the peak, production counts that disagree with scale.storageGB.

The design review catches what a run on seeded data passes and production pays for: an item ttl
in a container without defaultTtl (never expires), a defaultTtl that expires types with no TTL of
their own, ttl values the service refuses, expiring documents followed by a change feed; a
partitionKey template or key parameter that reads another field than the container's key (or
HPK levels out of order), a patch of a key path, a query that lost its partition key (with its
fan-out at production), expect.singlePartition decided before the run, a filter value no
generator produces; throughput over 3x the peak (with the idle capacity's monthly cost), a
composite index listed twice, an included path no query reads, HPK levels from narrow to broad;
a hierarchical key filtered on a lower level without the levels above it, GROUP BY or aggregates
across partitions (what the SDKs do and cost), a key with few distinct values, an embedded array
that grows without bound towards the 2 MB item limit, a key prefix sent in the request options (the
SDKs' partial-key trap). Each says what to paste; docs/design-format.md lists them with examples.

A fan-out, scan or missing index is weighed by what it costs at production (the plan's figures):
at most --negligible-share percent of its container's average load (default 1) with its burst
inside the headroom over the peak, it is a note that says what it costs, and lint passes.
'validate run' explains the same problems in the same words.

With --format json, standard output is JSON Lines: one document per design file, one per line, with
the file's errors or findings (line, col, path, code, message).

Exit 0 when every file is clean, 1 when a valid design has findings, 2 when a file cannot be read,
parsed or validated.`,
		Example: "  validate lint designs/*.yaml",
		Args:    needArgs(1, "design file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			formats, err := parseFormats(v.GetStringSlice("format"), "lint", []string{"text", "json"})
			if err != nil {
				return err
			}
			asJSON := contains(formats, "json")
			lintOpts, err := lintOptions(v.GetFloat64("negligible-share"))
			if err != nil {
				return err
			}
			worst := ExitOK
			for _, path := range args {
				if pipeline.IsMarkdown(path) {
					fmt.Fprintln(a.stderr, pipeline.MarkdownHint(path))
					worst = ExitUsage
					continue
				}
				d, err := design.Load(path)
				if asJSON {
					doc, code := lintDocument(path, d, err, lintOpts)
					worst = max(worst, code)
					if err := pipeline.WriteJSONLine(a.stdout, doc); err != nil {
						return infraErr(err)
					}
					continue
				}
				if err != nil {
					fmt.Fprintln(a.stderr, err)
					worst = ExitUsage
					continue
				}
				fs := lint.CheckWith(d, lintOpts)
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
	addFlags(cmd, "lint")
	return cmd
}

// lintDocument is lint's JSON document for one design file (lint.Document) and the exit code it
// means.
func lintDocument(path string, d *design.Design, loadErr error, opts lint.Options) (lint.Doc, int) {
	doc := lint.Document(path, d, loadErr, opts)
	switch {
	case !doc.Valid:
		return doc, ExitUsage
	case doc.Mistakes > 0:
		return doc, ExitFindings
	}
	return doc, ExitOK
}

func countTypes(d *design.Design) int {
	n := 0
	for _, c := range d.Containers {
		n += len(c.Documents)
	}
	return n
}

// lintOptions reads --negligible-share (percent).
func lintOptions(pctShare float64) (lint.Options, error) {
	if pctShare <= 0 || pctShare >= 100 {
		return lint.Options{}, usageErr("--negligible-share %g: give a percent between 0 and 100 (default 1)", pctShare)
	}
	return lint.Options{NegligibleShare: pctShare / 100}, nil
}
