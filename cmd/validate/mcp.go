package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/cosmosdv/validate/internal/mcpserver"
)

const mcpLong = `The mcp command serves validate's tools to a coding agent over the Model Context Protocol (stdio),
so that the agent running the data-modeling prompt can check its draft while it designs. Tools:

  import   markdown (cosmosdb_data_model.md) → design YAML with TODO(import) comments
  lint     format errors and design findings
  plan     static charges, capacity, partitions and cost
  advise   a better design with its numbers: index what-if, partition keys, embedding, copies
  run      the design on the embedded engine (bounded: documents, samples, time); the JSON report
  explain  one pattern's execution facts (charges, pages, partitions, query and index metrics) and advice

Tools read and write files only under --root (default: the working directory); import writes only when
asked to. Errors carry the text the CLI prints. Register it with an editor's agent, for example:

  {"mcpServers": {"validate": {"command": "validate", "args": ["mcp", "--root", "."]}}}`

func (a *app) mcpCmd() *cobra.Command {
	var root string
	var maxDocs, maxSamples int
	cmd := &cobra.Command{
		Use:     "mcp",
		Short:   "Serve import, lint, plan, advise, run and explain to coding agents (Model Context Protocol over stdio)",
		Long:    mcpLong,
		Example: "  validate mcp --root ~/src/shop",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if root == "" {
				root = "."
			}
			srv, err := mcpserver.New(mcpserver.Options{Root: root, Version: version, MaxDocuments: maxDocs, MaxSamples: maxSamples})
			if err != nil {
				return usageErr("%v", err)
			}
			// Stdio answers bad lines with JSON-RPC errors; when standard input closes (the client has gone)
			// requests still running get mcpserver.EOFGrace, then are cancelled, and the session ends.
			if err := srv.Run(cmd.Context(), mcpserver.Stdio(os.Stdin, a.stdout)); err != nil && cmd.Context().Err() == nil {
				return infraErr(err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&root, "root", "", "the only directory tools read from and write to (default: the working directory)")
	cmd.Flags().IntVar(&maxDocs, "max-documents", 50000, "most documents a run tool call may seed")
	cmd.Flags().IntVar(&maxSamples, "max-samples", 50, "most executions per pattern a run tool call may ask for")
	return cmd
}
