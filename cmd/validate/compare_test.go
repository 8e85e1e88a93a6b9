package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTiny writes testdata/designs/tiny.yaml to dir/name with each replacement applied.
func writeTiny(t *testing.T, dir, name string, replace ...string) string {
	t.Helper()
	b, err := os.ReadFile(repo("testdata", "designs", "tiny.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	y := string(b)
	for i := 0; i+1 < len(replace); i += 2 {
		if !strings.Contains(y, replace[i]) {
			t.Fatalf("tiny.yaml has no %q", replace[i])
		}
		y = strings.Replace(y, replace[i], replace[i+1], 1)
	}
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCompare_DesignFiles: compare runs two design files on the embedded engine and judges the
// change before it is merged: per pattern (a change that only moves the production figure
// included), the design changes and the monthly cost; the same design twice has no regression; an
// invalid design is a usage error.
func TestCompare_DesignFiles(t *testing.T) {
	dir := t.TempDir()
	fixed := []string{"cardinality: 2}", "cardinality: 2, productionCardinality: 2}", "        count: 300\n", "        count: 300\n        production: 3000\n"}
	old := writeTiny(t, dir, "old.yaml", fixed...)
	grown := writeTiny(t, dir, "new.yaml", append(fixed[:2:2], "        count: 300\n", "        count: 300\n        production: 30000\n")...)

	code, stdout, stderr := runCLI(t, "compare", "--samples", "3", "--format", "json", old, grown)
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitFindings, stdout, stderr)
	}
	var cmp struct {
		DesignChanges []string `json:"designChanges"`
		Patterns      []struct {
			ID         string `json:"id"`
			Change     string `json:"change"`
			Production *struct {
				Old, New float64
			} `json:"production"`
		} `json:"patterns"`
		MonthlyCost *struct {
			Required struct{ Delta float64 } `json:"required"`
		} `json:"monthlyCost"`
	}
	if err := json.Unmarshal([]byte(stdout), &cmp); err != nil {
		t.Fatalf("stdout is not one JSON comparison (%v):\n%s", err, stdout)
	}
	if !strings.Contains(strings.Join(cmp.DesignChanges, "\n"), "production count changed from 3,000 to 30,000") {
		t.Errorf("design changes = %q", cmp.DesignChanges)
	}
	for _, p := range cmp.Patterns {
		if p.ID == "Q1" && (p.Change != "regression" || p.Production == nil || p.Production.New <= p.Production.Old) {
			t.Errorf("Q1 = %+v, want a regression of its production figure", p)
		}
	}
	if cmp.MonthlyCost == nil || cmp.MonthlyCost.Required.Delta <= 0 {
		t.Errorf("monthly cost change = %+v, want the bill sized for the grown load to rise", cmp.MonthlyCost)
	}

	if code, stdout, stderr := runCLI(t, "compare", "--samples", "3", old, old); code != ExitOK || !strings.Contains(stdout, "NO REGRESSIONS") {
		t.Errorf("the same design twice: exit %d\n%s\n%s", code, stdout, stderr)
	}
	broken := writeTiny(t, dir, "broken.yaml", "op: read", "op: reed")
	if code, _, stderr := runCLI(t, "compare", old, broken); code != ExitUsage || !strings.Contains(stderr, "broken.yaml") {
		t.Errorf("an invalid design: exit %d, want %d naming the file\n%s", code, ExitUsage, stderr)
	}
}
