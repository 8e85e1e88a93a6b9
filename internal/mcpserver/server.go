// Package mcpserver exposes validate to coding agents as a Model Context Protocol server (the official
// Go SDK): tools import (markdown → design YAML), lint, plan, advise, run (embedded engine only, bounded) and
// explain (one pattern's execution facts and advice). Inputs and outputs are the JSON types of the
// reports; a failure is a tool error whose text is what the CLI prints for it. The server reads and
// writes files only inside the root directory it is given.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cosmosdv/validate/internal/advise"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/importer"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/report"
)

// Options configure the server.
type Options struct {
	// Root is the only directory tools read from and write to. Required.
	Root string
	// Version is the tool version reported to clients and in reports.
	Version string
	// MaxDocuments bounds the documents a run may seed (default 50,000); MaxSeedBytes their bytes
	// as the plan estimates them (default DefaultMaxSeedBytes); MaxSamples the executions per
	// pattern (default 50); MaxRunTime a run's wall time (default 120 s).
	MaxDocuments int
	MaxSeedBytes int64
	MaxSamples   int
	MaxRunTime   time.Duration
}

// DefaultMaxSeedBytes bounds the JSON a run through this server may seed into its embedded engine
// (assumed: the engine holds each item's JSON and its decoded form, a few times the JSON in memory,
// so 256 MB of JSON stays near a gigabyte). The document count alone let 4,000 documents of 2 MB
// through, 6 GB of memory in 17 s (issue 30).
const DefaultMaxSeedBytes = 256 << 20

func (o *Options) defaults() {
	if o.MaxDocuments <= 0 {
		o.MaxDocuments = 50_000
	}
	if o.MaxSeedBytes <= 0 {
		o.MaxSeedBytes = DefaultMaxSeedBytes
	}
	if o.MaxSamples <= 0 {
		o.MaxSamples = 50
	}
	if o.MaxRunTime <= 0 {
		o.MaxRunTime = 120 * time.Second
	}
}

// server holds the tools' shared state.
type server struct {
	o    Options
	root string
	// r is the root every file is opened under.
	r *os.Root
}

// New returns the MCP server with its six tools.
func New(o Options) (*mcp.Server, error) {
	o.defaults()
	if o.Root == "" {
		return nil, errors.New("mcp: a root directory is required")
	}
	root, err := filepath.Abs(o.Root)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: root %s: %w", o.Root, err)
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("mcp: root %s is not a directory", o.Root)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("mcp: root %s: %w", o.Root, err)
	}
	s := &server{o: o, root: root, r: r}
	srv := mcp.NewServer(&mcp.Implementation{Name: "validate", Title: "Cosmos DB design validator", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions})
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(srv, &mcp.Tool{Name: "import", Annotations: &mcp.ToolAnnotations{}, Description: "Draft a design YAML from a cosmosdb_data_model.md " +
		"(markdown text or a file under the root), optionally with cosmosdb_requirements.md. Every inference carries a " +
		"'# TODO(import): ...' comment; 'unmapped' lists what the markdown does not say or could not be mapped, the points to " +
		"ask the user about. Writes the draft only when 'output' names a file under the root."}, s.importTool)
	mcp.AddTool(srv, &mcp.Tool{Name: "lint", Annotations: ro, Description: "Check a design (YAML text or a file under the root): " +
		"strict format errors, then design findings (estimates below the floor, query shapes the Go SDK cannot run, hot " +
		"partitions, short throughput, price units)."}, s.lintTool)
	mcp.AddTool(srv, &mcp.Tool{Name: "plan", Annotations: ro, Description: "Static charges, RU/s, partitions, hot partitions and " +
		"monthly cost of a design from the cost model alone (no database); each query's charge at the seeded scale and projected to " +
		"the design's production scale (documents[].production, scale.storageGB), with the arithmetic; a figure that rests on a " +
		"rule no published figure pins carries its band (productionBand; a container's loadBand, the design's monthlyBand)."}, s.planTool)
	mcp.AddTool(srv, &mcp.Tool{Name: "advise", Annotations: ro, Description: "Propose a better design with its numbers, as " +
		"'validate advise' does (the same JSON): the index what-if weighted by traffic with a policy to paste, ranked partition-key " +
		"alternatives (busiest logical partition against 10,000 RU/s and 20 GB), embed or reference for each relationship with " +
		"the modeling rules of thumb, and a secondary container or global secondary index (preview) for cross-partition queries. " +
		"Every figure is plan's at the design's production scale; no database."}, s.adviseTool)
	mcp.AddTool(srv, &mcp.Tool{Name: "run", Annotations: ro, Description: "Provision the design on the embedded Cosmos DB engine, seed " +
		"synthetic documents, run every access pattern through the Go SDK and return the report: per pattern the estimate, " +
		"the modeled charge, each query's charge projected to the design's production scale (projection) and a verdict, which " +
		"judges queries at production scale when the design states one. Bounded in documents, samples and time; writes nothing."}, s.runTool)
	mcp.AddTool(srv, &mcp.Tool{Name: "explain", Annotations: ro, Description: "Run one access pattern of a design on the embedded engine " +
		"and return its execution facts (charges, pages, partitions, query and index metrics, errors) with the static plan " +
		"and advice (composite indexes to add, cross-partition shapes)."}, s.explainTool)
	return srv, nil
}

const instructions = `validate checks an Azure Cosmos DB NoSQL data model before it is built. Typical loop while modeling:
import the cosmosdb_data_model.md to a design draft, resolve its TODO(import) comments, lint it, then run it
on the embedded engine and explain the patterns whose verdict is not "pass". Charges from the embedded engine
are modeled ("model"), never measured.`

// inside turns a client path into a path relative to the root, refusing one that leaves it through
// "..". Every open then goes through the server's os.Root, which also refuses a symbolic link (dangling
// or not) whose target lies outside the root: no check here can be raced or fooled by a link.
func (s *server) inside(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", errors.New("empty path")
	}
	rel := filepath.Clean(p)
	if filepath.IsAbs(rel) {
		r, err := filepath.Rel(s.root, rel)
		if err != nil {
			return "", fmt.Errorf("%s: outside the server's root %s; give a path under it", p, s.root)
		}
		rel = r
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s: outside the server's root %s; give a path under it", p, s.root)
	}
	return rel, nil
}

// rootErr words an error of the os.Root for the client: a path that escapes the root says so; other
// errors keep only their cause (the path is the client's own).
func (s *server) rootErr(p string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes") {
		return fmt.Errorf("%s: leads outside the server's root %s (through \"..\" or a symbolic link); give a path under it", p, s.root)
	}
	return fmt.Errorf("%s: %v", p, err)
}

// readFile reads a regular file under the root, at most limit bytes. It opens without blocking, so a
// FIFO or a device under the root is refused instead of hanging the call.
func (s *server) readFile(p string, limit int) ([]byte, string, error) {
	rel, err := s.inside(p)
	if err != nil {
		return nil, "", err
	}
	f, err := s.r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, "", s.rootErr(p, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, "", s.rootErr(p, err)
	}
	switch {
	case st.IsDir():
		return nil, "", fmt.Errorf("%s: is a directory", p)
	case !st.Mode().IsRegular():
		return nil, "", fmt.Errorf("%s: not a regular file (%s); give a file", p, st.Mode().Type())
	case st.Size() > int64(limit):
		return nil, "", fmt.Errorf("%s: file is %d bytes; the limit is %d", p, st.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, "", s.rootErr(p, err)
	}
	if len(data) > limit {
		return nil, "", fmt.Errorf("%s: file is over %d bytes; the limit is %d", p, limit, limit)
	}
	return data, p, nil
}

// writeFile writes data to a new file under the root (or replaces a regular file when overwrite),
// creating its directories. O_EXCL makes a dangling link at the name an error, never a way out.
func (s *server) writeFile(p string, data []byte, overwrite bool) error {
	rel, err := s.inside(p)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(rel); dir != "." {
		if err := s.r.MkdirAll(dir, 0o755); err != nil {
			return s.rootErr(p, err)
		}
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if overwrite {
		if st, err := s.r.Lstat(rel); err == nil && st.Mode().IsRegular() {
			flag = os.O_WRONLY | os.O_TRUNC | syscall.O_NOFOLLOW
		} else if err == nil {
			return fmt.Errorf("%s: not a regular file (%s); it is not replaced", p, st.Mode().Type())
		}
	}
	f, err := s.r.OpenFile(rel, flag, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists; set overwrite to replace it", p)
	}
	if err != nil {
		return s.rootErr(p, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return s.rootErr(p, err)
	}
	if err := f.Close(); err != nil {
		return s.rootErr(p, err)
	}
	return nil
}

// DesignInput names a design: its YAML text, or a file under the server's root.
type DesignInput struct {
	Design string `json:"design,omitempty" jsonschema:"the design YAML text (give this or path)"`
	Path   string `json:"path,omitempty" jsonschema:"a design file under the server's root (give this or design)"`
}

func (s *server) load(in DesignInput) (*design.Design, error) {
	data, name := []byte(in.Design), "design.yaml"
	switch {
	case in.Design != "" && in.Path != "":
		return nil, errors.New("give design or path, not both")
	case in.Path != "":
		var err error
		if data, name, err = s.readFile(in.Path, design.MaxFileSize); err != nil {
			return nil, err
		}
		if isMarkdownText(name, data) {
			return nil, fmt.Errorf("%s: this is markdown, not a design file; draft one with the import tool", name)
		}
	case in.Design == "":
		return nil, errors.New("give the design YAML (design) or a file under the root (path)")
	default:
		if isMarkdownText("", data) {
			return nil, errors.New("this is markdown, not a design file; draft one with the import tool")
		}
		if looksLikeFileName(in.Design) {
			return nil, fmt.Errorf("design holds the design's YAML text; %q looks like a file name: give it as path (a file under the server's root %s)", strings.TrimSpace(in.Design), s.root)
		}
	}
	// The design package's errors are what `validate lint` prints: file:line:col: path: message.
	return design.Parse(data, name)
}

// loadRunnable is load for the tools that price or run a design (plan, advise, run): a query or
// patch condition that does not parse is a design error there, as `validate run` refuses it before
// provisioning (pipeline.LoadDesigns), with lint's file:line:col lines. lint and explain take such
// a design and report the syntax error as a finding.
func (s *server) loadRunnable(in DesignInput) (*design.Design, error) {
	d, err := s.load(in)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, f := range lint.SyntaxErrors(d) {
		errs = append(errs, errors.New(f.String()))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return d, nil
}

// looksLikeFileName reports whether a design text is one line naming a YAML file
// ("designs/shop.yaml"), which an agent gave as design instead of path.
func looksLikeFileName(text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	return !strings.ContainsAny(t, "\n{") && (strings.HasSuffix(t, ".yaml") || strings.HasSuffix(t, ".yml"))
}

func isMarkdownText(name string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown":
		return true
	case ".yaml", ".yml":
		return false
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(data[:min(len(data), 256)])), "\n")
	if !strings.HasPrefix(first, "# ") && !strings.HasPrefix(first, "## ") {
		return false
	}
	// "# " also starts a YAML comment, which design files open with: a text with a design's
	// top-level keys at the start of a line is YAML.
	for _, line := range strings.Split(string(data), "\n") {
		for _, key := range []string{"version:", "containers:", "accessPatterns:"} {
			if strings.HasPrefix(line, key) {
				return false
			}
		}
	}
	return true
}

// ImportInput is the import tool's input.
type ImportInput struct {
	Markdown         string `json:"markdown,omitempty" jsonschema:"the cosmosdb_data_model.md text (give this or path)"`
	Path             string `json:"path,omitempty" jsonschema:"a markdown file under the server's root"`
	Requirements     string `json:"requirements,omitempty" jsonschema:"the cosmosdb_requirements.md text, optional"`
	RequirementsPath string `json:"requirementsPath,omitempty" jsonschema:"a requirements markdown file under the root, optional"`
	Name             string `json:"name,omitempty" jsonschema:"design name (default: from the title)"`
	Output           string `json:"output,omitempty" jsonschema:"write the draft to this file under the root (it must not exist unless overwrite)"`
	Overwrite        bool   `json:"overwrite,omitempty" jsonschema:"replace the output file if it exists"`
}

// ImportOutput is the draft and what it holds.
type ImportOutput struct {
	YAML       string `json:"yaml"`
	TODOs      int    `json:"todos"`
	Containers int    `json:"containers"`
	Types      int    `json:"documentTypes"`
	Patterns   int    `json:"accessPatterns"`
	Written    string `json:"written,omitempty"`
	// Unmapped lists what the markdown does not say or could not be mapped, each with the draft's
	// field it concerns: the points to ask the user about.
	Unmapped []importer.Unmapped `json:"unmapped" jsonschema:"what the markdown does not say or could not be mapped (each also a TODO(import) in the draft), with the draft's field it concerns: ask the user about exactly these"`
}

func (s *server) importTool(ctx context.Context, _ *mcp.CallToolRequest, in ImportInput) (*mcp.CallToolResult, ImportOutput, error) {
	var out ImportOutput
	src, file := []byte(in.Markdown), "cosmosdb_data_model.md"
	var err error
	switch {
	case in.Markdown != "" && in.Path != "":
		return nil, out, errors.New("give markdown or path, not both")
	case in.Path != "":
		if src, file, err = s.readFile(in.Path, importer.MaxInput); err != nil {
			return nil, out, err
		}
	case in.Markdown == "":
		return nil, out, errors.New("give the markdown text (markdown) or a file under the root (path)")
	}
	o := importer.Options{File: file, Name: in.Name, Requirements: []byte(in.Requirements)}
	if in.Requirements != "" {
		o.RequirementsFile = "cosmosdb_requirements.md"
	}
	if in.RequirementsPath != "" {
		if o.Requirements, o.RequirementsFile, err = s.readFile(in.RequirementsPath, importer.MaxInput); err != nil {
			return nil, out, err
		}
	}
	res, err := importer.ImportContext(ctx, src, o)
	if err != nil {
		return nil, out, fmt.Errorf("%s: %v", file, err)
	}
	if res.Problems != nil {
		return nil, out, fmt.Errorf("the draft does not parse (a bug in the importer):\n%v", res.Problems)
	}
	out = ImportOutput{YAML: string(res.YAML), TODOs: res.TODOs, Containers: res.Containers, Types: res.Types, Patterns: res.Patterns,
		Unmapped: res.Unmapped}
	if in.Output != "" {
		if err := s.writeFile(in.Output, res.YAML, in.Overwrite); err != nil {
			return nil, out, err
		}
		out.Written = in.Output
	}
	return nil, out, nil
}

// LintFinding is one lint finding, as `validate lint` prints it and in parts.
type LintFinding struct {
	Text    string `json:"text"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Path    string `json:"path"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// LintOutput lists a valid design's findings (none: ok).
type LintOutput struct {
	OK       bool          `json:"ok"`
	Summary  string        `json:"summary"`
	Findings []LintFinding `json:"findings"`
}

func (s *server) lintTool(ctx context.Context, _ *mcp.CallToolRequest, in DesignInput) (*mcp.CallToolResult, LintOutput, error) {
	d, err := s.load(in)
	if err != nil {
		return nil, LintOutput{}, err
	}
	out := LintOutput{OK: true, Findings: []LintFinding{}}
	for _, f := range lint.Check(d) {
		out.OK = false
		out.Findings = append(out.Findings, LintFinding{Text: f.String(), Line: f.Pos.Line, Col: f.Pos.Col, Path: f.Path, Code: f.Code, Message: f.Message})
	}
	types := 0
	for _, c := range d.Containers {
		types += len(c.Documents)
	}
	out.Summary = fmt.Sprintf("%s: %s (%s, %s, %s)", d.File, map[bool]string{true: "ok", false: design.Count(len(out.Findings), "finding")}[out.OK],
		design.Count(len(d.Containers), "container"), design.Count(types, "document type"), design.Count(len(d.AccessPatterns), "access pattern"))
	return nil, out, nil
}

// PlanInput is a design and the seed whose counts the plan uses.
type PlanInput struct {
	DesignInput
	Seed int64 `json:"seed,omitempty" jsonschema:"generator seed (default 1)"`
}

func (s *server) planTool(ctx context.Context, _ *mcp.CallToolRequest, in PlanInput) (*mcp.CallToolResult, *plan.Plan, error) {
	d, err := s.loadRunnable(in.DesignInput)
	if err != nil {
		return nil, nil, err
	}
	p, err := pipeline.Plan(d, plan.Options{Seed: in.Seed})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", d.File, err)
	}
	return nil, p, nil
}

func (s *server) adviseTool(ctx context.Context, _ *mcp.CallToolRequest, in PlanInput) (*mcp.CallToolResult, *advise.Advice, error) {
	d, err := s.loadRunnable(in.DesignInput)
	if err != nil {
		return nil, nil, err
	}
	a, err := advise.Advise(d, advise.Options{Seed: in.Seed})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", d.File, err)
	}
	return nil, a, nil
}

// RunInput bounds a run.
type RunInput struct {
	DesignInput
	Samples int   `json:"samples,omitempty" jsonschema:"executions of each pattern (default 10; the server caps it)"`
	Seed    int64 `json:"seed,omitempty" jsonschema:"generator seed (default 1)"`
}

func (s *server) runTool(ctx context.Context, _ *mcp.CallToolRequest, in RunInput) (*mcp.CallToolResult, *report.Report, error) {
	d, err := s.loadRunnable(in.DesignInput)
	if err != nil {
		return nil, nil, err
	}
	rep, _, err := s.runBounded(ctx, d, in.Samples, in.Seed)
	return nil, rep, err
}
