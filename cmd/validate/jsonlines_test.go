package main

import (
	"encoding/json"
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
