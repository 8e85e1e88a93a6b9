package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdvise_CLI: advise exits 0 with advice, 2 on a design it cannot read; json is one document
// per design; --write-variants writes files that lint and plan accept.
func TestAdvise_CLI(t *testing.T) {
	code, out, errb := runCLI(t, "advise", repo("designs", "ecommerce.yaml"))
	if code != 0 || !strings.Contains(out, "Recommended") || !strings.Contains(out, "Partition key alternatives") {
		t.Fatalf("advise: exit %d\n%s\n%s", code, out, errb)
	}
	code, out, errb = runCLI(t, "advise", "--format", "json", repo("designs", "ecommerce.yaml"), repo("designs", "support.yaml"))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("json: exit %d, %d lines\n%s", code, len(lines), errb)
	}
	for _, l := range lines {
		var a map[string]any
		if err := json.Unmarshal([]byte(l), &a); err != nil || a["schemaVersion"] != float64(1) {
			t.Fatalf("json line: %v %v", err, a["schemaVersion"])
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nname: x\ncontainers: []\naccessPatterns: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errb = runCLI(t, "advise", bad); code != 2 {
		t.Fatalf("a bad design: exit %d, want 2\n%s", code, errb)
	}
	dir := t.TempDir()
	code, _, errb = runCLI(t, "advise", "--write-variants", dir, repo("designs", "ecommerce.yaml"))
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if code != 0 || len(files) == 0 || !strings.Contains(errb, "wrote variant") {
		t.Fatalf("--write-variants: exit %d, %d files\n%s", code, len(files), errb)
	}
	for _, f := range files {
		if code, out, errb := runCLI(t, "lint", f); code != 0 {
			t.Errorf("lint %s: exit %d\n%s%s", f, code, out, errb)
		}
	}
	// Each variant says how to check it with compare against its origin, and compare does so
	// without --force, saying it compares a variant with its origin.
	src, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	origin := repo("designs", "ecommerce.yaml")
	if want := "validate compare " + origin + " " + files[0]; !strings.Contains(string(src), want) || !strings.Contains(string(src), "\nvariantOf: ecommerce\n") {
		t.Fatalf("%s does not record variantOf: ecommerce and say %q:\n%s", files[0], want, src)
	}
	code, out, errb = runCLI(t, "compare", "--samples", "2", origin, files[0])
	if code != ExitOK && code != ExitFindings || !strings.Contains(out, "is a variant of ecommerce: this compares the variant with its origin") {
		t.Fatalf("compare with the origin: exit %d\n%s\n%s", code, out, errb)
	}
}

// TestAdvise_WriteVariantsNoLinks: --write-variants never writes through a link planted at a
// variant's name (dangling or not) and never replaces a file unasked: exit 2 naming the file and
// --force; with --force the link itself is replaced and its target left alone.
func TestAdvise_WriteVariantsNoLinks(t *testing.T) {
	design := repo("designs", "ecommerce.yaml")
	first := t.TempDir()
	if code, _, errb := runCLI(t, "advise", "--write-variants", first, design); code != 0 {
		t.Fatalf("--write-variants: exit %d\n%s", code, errb)
	}
	files, _ := filepath.Glob(filepath.Join(first, "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no variant written")
	}
	name := filepath.Base(files[0])
	// A second run into the same folder: the file exists.
	code, _, errb := runCLI(t, "advise", "--write-variants", first, design)
	if code != 2 || !strings.Contains(errb, name+" exists") || !strings.Contains(errb, "--force") {
		t.Errorf("over an existing variant: exit %d, want 2 naming %s and --force\n%s", code, name, errb)
	}
	for _, dangling := range []bool{false, true} {
		dir, elsewhere := t.TempDir(), t.TempDir()
		victim := filepath.Join(elsewhere, "victim.yaml")
		if !dangling {
			if err := os.WriteFile(victim, []byte("keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(victim, filepath.Join(dir, name)); err != nil {
			t.Skip("no symlinks here:", err)
		}
		code, _, errb := runCLI(t, "advise", "--write-variants", dir, design)
		if code != 2 || !strings.Contains(errb, "--force") {
			t.Errorf("link (dangling %v): exit %d, want 2\n%s", dangling, code, errb)
		}
		if code, _, errb := runCLI(t, "advise", "--write-variants", dir, "--force", design); code != 0 {
			t.Errorf("link (dangling %v) with --force: exit %d\n%s", dangling, code, errb)
		}
		b, err := os.ReadFile(victim)
		if dangling && err == nil || !dangling && string(b) != "keep\n" {
			t.Errorf("the link's target (dangling %v) was written: %q %v", dangling, b, err)
		}
		if fi, err := os.Lstat(filepath.Join(dir, name)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("after --force the variant is not a regular file: %v", err)
		}
	}
}

// TestAdvise_CLI_Issue37: a design with a patch of its partition key and a query that matches
// nothing is refused with exit 2 and lint's lines; --max-variants bounds the search and names what
// it left out; --headroom out of range is a usage error; a written variant compared with its
// origin has no regression (exit 0) and an RU/s line.
func TestAdvise_CLI_Issue37(t *testing.T) {
	code, _, errb := runCLI(t, "advise", repo("testdata", "advise", "cannot-run.yaml"))
	if code != 2 || !strings.Contains(errb, "[partition-key-patch]") || !strings.Contains(errb, "[filter-unmatched]") {
		t.Fatalf("cannot-run: exit %d\n%s", code, errb)
	}
	code, out, errb := runCLI(t, "advise", "--max-variants", "3", repo("testdata", "advise", "cap-order.yaml"))
	if code != 0 || !strings.Contains(out, "3 variant design(s) priced; capped:") || !strings.Contains(out, "on Users") {
		t.Fatalf("--max-variants 3: exit %d\n%s\n%s", code, out, errb)
	}
	if code, _, _ = runCLI(t, "advise", "--headroom", "1.5", repo("designs", "support.yaml")); code != 2 {
		t.Errorf("--headroom 1.5: exit %d, want 2", code)
	}
	dir := t.TempDir()
	if code, _, errb = runCLI(t, "advise", "--write-variants", dir, repo("testdata", "advise", "unused-composite.yaml")); code != 0 {
		t.Fatalf("write: exit %d\n%s", code, errb)
	}
	code, out, errb = runCLI(t, "compare", repo("testdata", "advise", "unused-composite.yaml"), filepath.Join(dir, "unused-composite.index-Products.yaml"))
	if code != 0 || !strings.Contains(out, "NO REGRESSIONS") || !strings.Contains(out, "RU/s (modeled") {
		t.Fatalf("compare the variant: exit %d\n%s\n%s", code, out, errb)
	}
}
