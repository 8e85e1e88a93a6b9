package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/sarif"
	"github.com/cosmosdv/validate/internal/waiver"
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
composite index listed twice, an included path no query reads, a hierarchical key with a handful of
values in its first level or logical partitions near 20 GB without a unique last level;
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
With --format sarif, standard output is one SARIF 2.1.0 log for all the files (GitHub code scanning),
each result at the design file's line and column.

--waivers FILE accepts findings the team has judged (code, optional design, pattern or path; reason,
owner and expiry; docs/design-format.md#waivers-fail-on-and-sarif): a waived finding is reported and
does not fail; an expired waiver fails at its own line. --fail-on error|note|none chooses the least
severity that fails.

Exit 0 when every file is clean, 1 when a valid design has findings, 2 when a file cannot be read,
parsed or validated.`,
		Example: "  validate lint designs/*.yaml",
		Args:    needArgs(1, "design file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			formats, err := parseFormats(v.GetStringSlice("format"), "lint", []string{"text", "json", "sarif"})
			if err != nil {
				return err
			}
			if len(formats) > 1 {
				return usageErr("lint --format: give one of text, json and sarif (got %s)", strings.Join(formats, ","))
			}
			failOn := v.GetString("fail-on")
			if err := checkFailOn(failOn); err != nil {
				return err
			}
			var ws *waiver.Set
			if f := v.GetString("waivers"); f != "" {
				if ws, err = waiver.Load(f); err != nil {
					return usageErr("--waivers: %v", err)
				}
			}
			format := formats[0]
			lintOpts, err := lintOptions(v.GetFloat64("negligible-share"))
			if err != nil {
				return err
			}
			worst := ExitOK
			expired := map[*waiver.Waiver]lint.Finding{}
			var results []sarif.Finding
			for _, path := range args {
				if pipeline.IsMarkdown(path) {
					fmt.Fprintln(a.stderr, pipeline.MarkdownHint(path))
					worst = ExitUsage
					continue
				}
				d, err := design.Load(path)
				switch format {
				case "json":
					doc, code := lintDocument(path, d, err, lintOpts, ws, failOn, expired)
					worst = max(worst, code)
					if err := pipeline.WriteJSONLine(a.stdout, doc); err != nil {
						return infraErr(err)
					}
					continue
				case "sarif":
					rs, code := lintSARIF(path, d, err, lintOpts, ws, failOn, expired)
					results = append(results, rs...)
					worst = max(worst, code)
					continue
				}
				if err != nil {
					fmt.Fprintln(a.stderr, err)
					worst = ExitUsage
					continue
				}
				failing := 0
				for _, j := range judge(ws, d, lint.CheckWith(d, lintOpts), expired) {
					switch {
					case j.Waiver != nil:
						fmt.Fprintln(a.stdout, j.Finding.String()+waivedText(j.Waiver))
					default:
						fmt.Fprintln(a.stdout, j.Finding)
						if fails(level(j.Finding), failOn) {
							failing++
						}
					}
				}
				if failing > 0 {
					worst = max(worst, ExitFindings)
					continue
				}
				fmt.Fprintf(a.stdout, "%s: ok (%s, %s, %s)\n",
					path, design.Count(len(d.Containers), "container"), design.Count(countTypes(d), "document type"),
					design.Count(len(d.AccessPatterns), "access pattern"))
			}
			// Expired waivers fail wherever they are, once each, in the order of the file.
			for _, w := range expiredInOrder(expired) {
				f, ok := expired[w]
				if !ok {
					continue
				}
				switch format {
				case "text":
					fmt.Fprintln(a.stdout, f)
				case "json":
					if err := pipeline.WriteJSONLine(a.stdout, lint.Doc{File: f.File, Valid: true,
						Findings: []lint.Problem{{Line: f.Pos.Line, Col: f.Pos.Col, Code: f.Code, Message: f.Message}}}); err != nil {
						return infraErr(err)
					}
				case "sarif":
					results = append(results, sarif.Finding{Rule: f.Code, Level: sarif.LevelError, Message: f.Message, File: f.File, Line: f.Pos.Line, Col: f.Pos.Col})
				}
				if fails(sarif.LevelError, failOn) {
					worst = max(worst, ExitFindings)
				}
			}
			for _, w := range ws.Unused() {
				fmt.Fprintf(a.stderr, "%s: note: the waiver of [%s] matched no finding; remove it when the design no longer needs it\n", w.Where(), w.Code)
			}
			if format == "sarif" {
				if err := sarif.Build(version, lintHelpURI, results).Write(a.stdout); err != nil {
					return infraErr(err)
				}
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

// lintHelpURI is the page that explains lint's codes.
const lintHelpURI = "https://github.com/cosmosdv/validate/blob/main/docs/design-format.md"

// lintJudged is lint's document of one design file (lint.Document) with the waivers applied to its
// findings (judge), and the exit code it means under --fail-on.
func lintJudged(path string, d *design.Design, loadErr error, opts lint.Options, ws *waiver.Set, failOn string, expired map[*waiver.Waiver]lint.Finding) (lint.Doc, []judged, int) {
	doc := lint.Document(path, d, loadErr, opts)
	if !doc.Valid {
		return doc, nil, ExitUsage
	}
	fs := make([]lint.Finding, len(doc.Findings))
	for i, p := range doc.Findings {
		fs[i] = lint.Finding{File: path, Pos: design.Pos{Line: p.Line, Col: p.Col}, Path: p.Path, Code: p.Code, Message: p.Message, Note: p.Note}
	}
	js := judge(ws, d, fs, expired)
	code := ExitOK
	for i, j := range js {
		switch {
		case j.Waiver != nil:
			doc.Findings[i].Waived = &lint.Waived{Reason: j.Waiver.Reason, Owner: j.Waiver.Owner, Expires: j.Waiver.Expires, At: j.Waiver.Where()}
		case fails(level(j.Finding), failOn):
			code = ExitFindings
		}
	}
	return doc, js, code
}

// lintDocument is lintJudged's document and exit code (--format json).
func lintDocument(path string, d *design.Design, loadErr error, opts lint.Options, ws *waiver.Set, failOn string, expired map[*waiver.Waiver]lint.Finding) (lint.Doc, int) {
	doc, _, code := lintJudged(path, d, loadErr, opts, ws, failOn, expired)
	return doc, code
}

// lintSARIF is lint's findings of one file as SARIF results: an invalid design is one error result
// per problem (rule invalid-design), a waived finding keeps an accepted suppression.
func lintSARIF(path string, d *design.Design, loadErr error, opts lint.Options, ws *waiver.Set, failOn string, expired map[*waiver.Waiver]lint.Finding) ([]sarif.Finding, int) {
	doc, js, code := lintJudged(path, d, loadErr, opts, ws, failOn, expired)
	var out []sarif.Finding
	for _, e := range doc.Errors {
		out = append(out, sarif.Finding{Rule: "invalid-design", Level: sarif.LevelError, Message: e.Message, File: path, Line: e.Line, Col: e.Col, Path: e.Path})
	}
	for _, j := range js {
		f := j.Finding
		r := sarif.Finding{Rule: f.Code, Level: level(f), Message: f.Message, File: path, Line: f.Pos.Line, Col: f.Pos.Col, Path: f.Path}
		if j.Waiver != nil {
			r.Waived = fmt.Sprintf("%s (owner %s, until %s; %s)", j.Waiver.Reason, j.Waiver.Owner, j.Waiver.Expires, j.Waiver.Where())
		}
		out = append(out, r)
	}
	return out, code
}

// expiredInOrder is the expired waivers, from a waivers file or a design, in file and line order.
func expiredInOrder(expired map[*waiver.Waiver]lint.Finding) []*waiver.Waiver {
	out := slices.Collect(maps.Keys(expired))
	slices.SortFunc(out, func(a, b *waiver.Waiver) int {
		return cmp.Or(strings.Compare(a.File, b.File), a.Line-b.Line, a.Col-b.Col)
	})
	return out
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
