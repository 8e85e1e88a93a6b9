package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cosmosdv/validate/internal/outfile"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/importer"
	"github.com/spf13/cobra"
)

const importLong = `Import drafts a design file from the markdown an AI data-modeling session (or a person following its
template) produced: cosmosdb_data_model.md, and optionally cosmosdb_requirements.md for scale,
relationships and request rates.

It maps container sections (name, partition key, throughput, TTL, unique keys), indexing-policy JSON
and prose lists, composite indexes, the example documents (grouped into document types, with
generators inferred from their values and field names) and the numbered access-pattern table
(operation, SQL, RPS, RU estimate, container and sampled type). Free-form notes work too: every SQL
block (fenced as sql, indented, or a SELECT code span) becomes a pattern named by its lead-in sentence, with
the rates and charge that sentence gives ("150 requests a second at peak, 6-9 RU": the midpoint), and
a sentence naming operations on a container with a figure becomes one; a charge the text says was
measured is kept as estimate.measured. Headings may be English or Chinese.

What teams write about load and size is kept: an average and a peak in any of the usual forms ("70/s,
400 at peak", "peak 400 rps, ~70 avg", "~70 avg (400 peak)", avg/peak columns, per-minute rates); a
per-day or per-month rate is an average only, with a TODO (no peak without an hourly shape). A query
goes to the container whose documents have the fields and type it reads. A scale table (documents
now / in a year) sets seeded and production counts, per-parent counts ("about 30 members a guild")
set children per parent and reference cardinalities, the SDK named sets app.sdk, and hot-partition
notes attach to every container they name. A skewed distribution is suggested only after planning
the draft with it at production counts: never one whose busiest key nears the 20 GB logical-partition
limit or exceeds a physical partition's throughput.

Every inference a person should check carries a "# TODO(import): ..." comment saying why and where in
the markdown; whatever cannot be mapped stays in the draft as a TODO, and lint reports each one left
(import-todo). The draft always parses; lint it and run it next.

Markdown over 1 MiB is refused; lines over 4 KiB are wrapped and block quotes nested over 16 deep are
cut (each noted in the draft), so that reading stays linear in the input. Ctrl-C or SIGTERM stops it.

Exit 0 when the draft is written, 2 when a file cannot be read or the output exists (use --force),
3 when interrupted.`

func (a *app) importCmd() *cobra.Command {
	var reqFile, out, name string
	var force bool
	cmd := &cobra.Command{
		Use:   "import FILE.md",
		Short: "Draft a design file from a cosmosdb_data_model.md (markdown → design YAML)",
		Long:  importLong,
		Example: `  validate import cosmosdb_data_model.md --requirements cosmosdb_requirements.md -o designs/shop.yaml
  validate import cosmosdb_data_model.md > draft.yaml && validate lint draft.yaml`,
		Args: needArgs(1, "markdown file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErr("import: one markdown file at a time (got %d)", len(args))
			}
			res, err := importFiles(cmd.Context(), args[0], reqFile, name)
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				if _, err := a.stdout.Write(res.YAML); err != nil {
					return infraErr(err)
				}
			} else if err := writeNew(out, res.YAML, force); err != nil {
				return err
			}
			where := out
			if where == "" || where == "-" {
				where = "standard output"
			}
			fmt.Fprintf(a.stderr, "%s: drafted %s, %s, %s to %s; %s to check\n", args[0],
				design.Count(res.Containers, "container"), design.Count(res.Types, "document type"),
				design.Count(res.Patterns, "access pattern"), where, design.Count(res.TODOs, "TODO(import) comment"))
			if res.Problems != nil {
				fmt.Fprintln(a.stderr, res.Problems)
				return &exitError{code: ExitUsage, err: errors.New("import: the draft does not parse (a bug in the importer: please report it with the markdown)")}
			}
			if out != "" && out != "-" {
				fmt.Fprintf(a.stderr, "next: validate lint %s && validate run %s\n", out, out)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&reqFile, "requirements", "", "cosmosdb_requirements.md: scale, relationships and the requirements' access-pattern table")
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write the draft to (default: standard output)")
	cmd.Flags().StringVar(&name, "name", "", "design name (default: from the document's title)")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite the --output file if it exists")
	return cmd
}

// importFiles reads the markdown (and requirements) and drafts the design; errors are usage errors
// that name the file.
func importFiles(ctx context.Context, mdPath, reqPath, name string) (*importer.Result, error) {
	src, err := readInput(mdPath)
	if err != nil {
		return nil, err
	}
	o := importer.Options{File: mdPath, Name: name}
	if reqPath != "" {
		if o.Requirements, err = readInput(reqPath); err != nil {
			return nil, err
		}
		o.RequirementsFile = reqPath
	}
	res, err := importer.ImportContext(ctx, src, o)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, infraErr(fmt.Errorf("import %s: interrupted; nothing written", mdPath))
	case err != nil:
		return nil, usageErr("%s: %v", mdPath, err)
	}
	return res, nil
}

func readInput(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, usageErr("%s: %v", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, usageErr("%s: is a directory, not a markdown file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, importer.MaxInput+1))
	if err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	if len(data) > importer.MaxInput {
		return nil, usageErr("%s: larger than %d bytes", path, importer.MaxInput)
	}
	return data, nil
}

// writeNew writes data to path through a temporary file, refusing to replace a file unless force.
func writeNew(path string, data []byte, force bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return infraErr(err)
	}
	write := outfile.Create
	if force {
		write = outfile.Replace
	}
	if err := write(path, data, 0o644); err != nil {
		if errors.Is(err, outfile.ErrExists) {
			return usageErr("%v; give --force to overwrite it", err)
		}
		return infraErr(err)
	}
	return nil
}
