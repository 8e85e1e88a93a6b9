package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestMachineOutput_JSONLines: plan, lint and run with --format json print, for several designs, one
// valid JSON document per line on standard output (JSON Lines), one line per design.
func TestMachineOutput_JSONLines(t *testing.T) {
	designs := []string{repo("designs", "iot.yaml"), repo("designs", "saas.yaml")}
	for _, args := range [][]string{
		append([]string{"plan", "--format", "json"}, designs...),
		append([]string{"lint", "--format", "json"}, designs...),
		append([]string{"run", "--target", "embedded", "--samples", "1", "--progress", "none", "--format", "json"}, designs...),
	} {
		t.Run(args[0], func(t *testing.T) {
			code, out, errOut := runCLI(t, args...)
			if code != ExitOK && code != ExitFindings {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != len(designs) {
				t.Fatalf("%d lines for %d designs:\n%.500s", len(lines), len(designs), out)
			}
			for i, l := range lines {
				var v map[string]any
				if err := json.Unmarshal([]byte(l), &v); err != nil {
					t.Errorf("line %d is not a JSON document: %v\n%.300s", i+1, err, l)
				}
			}
		})
	}
}

// TestMachineOutput_TextBesideJSONGoesToStderr: json with text (or md) on standard output, or a run
// compared with a baseline, keeps stdout machine-readable; the text for people goes to stderr.
func TestMachineOutput_TextBesideJSONGoesToStderr(t *testing.T) {
	dir := t.TempDir()
	iot := repo("designs", "iot.yaml")
	baseline := filepath.Join(dir, "iot.baseline.json")
	run := []string{"run", "--target", "embedded", "--samples", "1", "--progress", "none", "--baseline", baseline}
	if code, _, errOut := runCLI(t, append(run, "--update-baseline", iot)...); code != ExitOK && code != ExitFindings {
		t.Fatalf("write the baseline: exit %d: %s", code, errOut)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		lines    int    // JSON documents on stdout, one per line; 0 = one indented document
		inStderr string // what the text for people says
	}{
		{"plan", []string{"plan", "--format", "json,text", iot}, 1, "RU/s"},
		{"run with baseline", append(append([]string{}, run...), "--format", "json", iot), 1, "Baseline iot"},
		{"run with text", append(append([]string{}, run...), "--format", "text,json", iot), 1, "VERDICT"},
		{"compare", []string{"compare", "--format", "text,json,md", baseline, baseline}, 0, "NO REGRESSIONS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			if code != ExitOK && code != ExitFindings {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			docs := []string{out}
			if tc.lines > 0 {
				docs = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				if len(docs) != tc.lines {
					t.Fatalf("%d lines on stdout, want %d JSON documents:\n%.800s", len(docs), tc.lines, out)
				}
			}
			for _, doc := range docs {
				var v map[string]any
				if err := json.Unmarshal([]byte(doc), &v); err != nil {
					t.Errorf("stdout is not JSON: %v\n%.500s", err, doc)
				}
			}
			if !strings.Contains(errOut, tc.inStderr) {
				t.Errorf("stderr lacks %q:\n%.1500s", tc.inStderr, errOut)
			}
		})
	}
}
