package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImport_DraftLintsAndRuns(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "shop.yaml")
	md := repo("internal", "importer", "testdata", "corpus", "gaming.md")
	code, stdout, stderr := runCLI(t, "import", md, "-o", out)
	if code != ExitOK || stdout != "" {
		t.Fatalf("import: exit %d\nstdout %q\nstderr %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "drafted 2 containers, 2 document types, 5 access patterns") || !strings.Contains(stderr, "next: validate lint") {
		t.Errorf("import summary: %s", stderr)
	}
	// Lint: the draft parses; what lint reports is about the design (exit 0 or 1, never 2).
	if code, _, stderr := runCLI(t, "lint", out); code == ExitUsage {
		t.Fatalf("lint of the draft: exit 2\n%s", stderr)
	}
	if code, _, stderr := runCLI(t, "run", "--target", "embedded", "--samples", "2", "--progress", "none", out); code != ExitOK && code != ExitFindings {
		t.Fatalf("run of the draft: exit %d\n%s", code, stderr)
	}
	// The output is not overwritten without --force.
	if code, _, stderr := runCLI(t, "import", md, "-o", out); code != ExitUsage || !strings.Contains(stderr, "--force") {
		t.Fatalf("import over an existing file: exit %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "import", md, "-o", out, "--force"); code != ExitOK {
		t.Fatalf("import --force: exit %d %s", code, stderr)
	}
}

func TestImport_ToStandardOutput(t *testing.T) {
	md := repo("internal", "importer", "testdata", "corpus", "ecommerce.md")
	req := repo("internal", "importer", "testdata", "corpus", "ecommerce.requirements.md")
	code, stdout, stderr := runCLI(t, "import", md, "--requirements", req, "--name", "shop")
	if code != ExitOK || !strings.HasPrefix(stdout, "# yaml-language-server") || !strings.Contains(stdout, "\nname: shop\n") {
		t.Fatalf("exit %d, stderr %s\n%s", code, stderr, stdout)
	}
	if code, _, stderr := runCLI(t, "import", filepath.Join(t.TempDir(), "missing.md")); code != ExitUsage || !strings.Contains(stderr, "no such file") {
		t.Fatalf("missing file: exit %d %s", code, stderr)
	}
}

func TestLint_MarkdownSaysImport(t *testing.T) {
	md := repo("internal", "importer", "testdata", "corpus", "ecommerce.md")
	code, stdout, stderr := runCLI(t, "lint", md)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != ExitUsage || stdout != "" || len(lines) != 1 || !strings.Contains(stderr, "is markdown") || !strings.Contains(stderr, "validate import "+md) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A markdown file without the extension is recognised by its heading.
	noExt := filepath.Join(t.TempDir(), "cosmosdb_data_model")
	if err := os.WriteFile(noExt, []byte("# Azure Cosmos DB NoSQL Data Model\n\n## Container Designs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "lint", noExt); code != ExitUsage || !strings.Contains(stderr, "is markdown") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// run and plan say the same one line as lint for a markdown file, and run nothing.
func TestRunPlan_MarkdownSaysImport(t *testing.T) {
	md := repo("internal", "importer", "testdata", "corpus", "ecommerce.md")
	for _, cmd := range []string{"run", "plan"} {
		code, stdout, stderr := runCLI(t, cmd, "--progress", "none", md)
		if cmd == "plan" {
			code, stdout, stderr = runCLI(t, cmd, md)
		}
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "is markdown") || !strings.Contains(stderr, "validate import "+md) || strings.Contains(stderr, "YAML") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", cmd, code, stdout, stderr)
		}
	}
}

func TestMCP_Help(t *testing.T) {
	code, out, _ := runCLI(t, "mcp", "--help")
	if code != ExitOK || !strings.Contains(out, "mcpServers") || !strings.Contains(out, "--root") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if code, _, stderr := runCLI(t, "mcp", "--root", filepath.Join(t.TempDir(), "nope")); code != ExitUsage {
		t.Fatalf("mcp with a missing root: exit %d %s", code, stderr)
	}
}

// TestImport_Interrupted: an import whose context ends (Ctrl-C, SIGTERM) stops, writes nothing and
// exits 3, instead of printing "stopping" and going on.
func TestImport_Interrupted(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "big.md")
	if err := os.WriteFile(md, []byte(strings.Repeat("[a](", 200_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := Run(ctx, []string{"import", md, "-o", filepath.Join(dir, "big.yaml")}, &out, &errb)
	if code != ExitInfra || !strings.Contains(errb.String(), "interrupted; nothing written") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "big.yaml")); err == nil {
		t.Error("a draft was written")
	}
}
