package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBaselineCheck: `validate baseline check` exits 0 when the committed baseline is what this build
// writes (whatever tool version it records), 1 when a figure or the rate card differs or the baseline
// is missing, naming the file and what moved.
func TestBaselineCheck(t *testing.T) {
	dir := t.TempDir() + string(os.PathSeparator)
	design := repo("testdata", "designs", "tiny.yaml")
	if code, _, errOut := runCLI(t, "run", "--target", "embedded", "--samples", "2", "--baseline", dir, "--update-baseline", design); code != ExitOK && code != ExitFindings {
		t.Fatalf("writing the baseline: exit %d\n%s", code, errOut)
	}
	file := filepath.Join(dir, "tiny.baseline.json")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"rateCard": "`+strings.Fields(rateCardVersion())[0]+`"`) {
		t.Fatalf("the baseline does not record the rate card %s:\n%.400s", rateCardVersion(), raw)
	}
	check := func(content string) (int, string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, "baseline", "check", "--baseline", dir, design)
		return code, out + errOut
	}
	if code, out := check(string(raw)); code != ExitOK || !strings.Contains(out, "tiny.baseline.json: current") {
		t.Errorf("fresh baseline: exit %d, %s", code, out)
	}
	// Another tool version with the same figures is current.
	other := strings.Replace(string(raw), `"version": "`+version+`"`, `"version": "v0.0.1-older"`, 1)
	if other == string(raw) {
		t.Fatalf("no tool version %q in the baseline", version)
	}
	if code, out := check(other); code != ExitOK {
		t.Errorf("another tool version, same figures: exit %d, %s", code, out)
	}
	// Another rate card: out of date, the model named.
	card := strings.Replace(string(raw), `"rateCard": "`+strings.Fields(rateCardVersion())[0]+`"`, `"rateCard": "2025.01-1"`, 1)
	if code, out := check(card); code != ExitFindings || !strings.Contains(out, "OUT OF DATE: written by another model") ||
		!strings.Contains(out, "rate card 2025.01-1 →") {
		t.Errorf("another rate card: exit %d, %s", code, out)
	}
	// A figure moved: out of date.
	moved := regexp.MustCompile(`"median": [0-9.]+`).ReplaceAllString(string(raw), `"median": 12345`)
	if code, out := check(moved); code != ExitFindings || !strings.Contains(out, "OUT OF DATE") {
		t.Errorf("a moved figure: exit %d, %s", code, out)
	}
	// Missing.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCLI(t, "baseline", "check", "--baseline", dir, design); code != ExitFindings || !strings.Contains(out, "MISSING") {
		t.Errorf("missing baseline: exit %d, %s", code, out)
	}
	if code, _, errOut := runCLI(t, "baseline", "check", design); code != ExitUsage || !strings.Contains(errOut, "--baseline") {
		t.Errorf("without --baseline: exit %d, %s", code, errOut)
	}
}

// TestRun_ModelChangeIsNotARegression: a baseline of the same design written by another model
// (here: its rate card edited) makes a run report "model changed" and pass, and fail with
// --fail-on-model-change when figures moved.
func TestRun_ModelChangeIsNotARegression(t *testing.T) {
	dir := t.TempDir() + string(os.PathSeparator)
	design := repo("testdata", "designs", "tiny.yaml")
	args := []string{"run", "--target", "embedded", "--samples", "2", "--baseline", dir}
	if code, _, errOut := runCLI(t, append(args, "--update-baseline", design)...); code != ExitOK && code != ExitFindings {
		t.Fatalf("writing the baseline: exit %d\n%s", code, errOut)
	}
	file := filepath.Join(dir, "tiny.baseline.json")
	raw, _ := os.ReadFile(file)
	cur := strings.Fields(rateCardVersion())[0]
	// Another model whose figure for one pattern was far lower: on this build it "rose".
	edited := strings.Replace(string(raw), `"rateCard": "`+cur+`"`, `"rateCard": "2025.01-1"`, 1)
	edited = regexp.MustCompile(`"median": [0-9.]+`).ReplaceAllString(edited, `"median": 0.01`)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	base, _, _ := runCLI(t, append(args, design)...)
	code, out, errOut := runCLI(t, append(args, design)...)
	if code != base || !strings.Contains(out+errOut, "Model changed: the baseline was written by validate") ||
		!strings.Contains(out+errOut, "moved with the model") || strings.Contains(out+errOut, "REGRESSION ") {
		t.Errorf("model change: exit %d, want %d (the verdicts' own)\n%s%s", code, base, out, errOut)
	}
	if code, out, errOut := runCLI(t, append(args, "--fail-on-model-change", design)...); code != ExitFindings {
		t.Errorf("--fail-on-model-change: exit %d, want 1\n%s%s", code, out, errOut)
	}
}
