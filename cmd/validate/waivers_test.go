package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLint_Waivers: a finding a live waiver names is reported as waived and does not fail; an
// expired waiver waives nothing and fails at its own line; --fail-on none passes; --format sarif
// carries the same, with the waived finding suppressed and each region at the design's line:col.
func TestLint_Waivers(t *testing.T) {
	// Both designs are named ticketing: hpk-order at 37:5 of the first, partition-key-order twice
	// for AP5 in the second.
	design, pkOrder := repo("testdata", "review", "hpk-order.yaml"), repo("testdata", "review", "pk-order.yaml")
	dir := t.TempDir()
	n := 0
	write := func(body string) string {
		t.Helper()
		n++
		p := filepath.Join(dir, fmt.Sprintf("waivers%d.yaml", n))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	live := `waivers:
  - code: hpk-order
    design: ticketing
    reason: customerId is the shard the team chose
    owner: "@orders"
    expires: 2999-12-31
  - code: partition-key-order
    reason: the legacy client sends them this way
    owner: "@orders"
    expires: 2999-12-31
`
	code, out, errOut := runCLI(t, "lint", "--waivers", write(live), design, pkOrder)
	if code != ExitOK || strings.Count(out, "— waived: ") != 3 || !strings.Contains(out, "hpk-order.yaml: ok") || !strings.Contains(out, "pk-order.yaml: ok") {
		t.Errorf("every finding waived: exit %d, want 0 and 3 waived findings\n%s%s", code, out, errOut)
	}

	expired := strings.Replace(live, "expires: 2999-12-31\n  - code: partition-key-order", "expires: 2001-01-31\n  - code: partition-key-order", 1)
	file := write(expired)
	code, out, _ = runCLI(t, "lint", "--waivers", file, design, pkOrder)
	if code != ExitFindings || !strings.Contains(out, file+":2:5: the waiver of [hpk-order] (owner @orders, reason: customerId is the shard the team chose) expired on 2001-01-31") ||
		!strings.Contains(out, "hpk-order.yaml:37:5: containers[1]: ") || strings.Contains(out, "[hpk-order] — waived") {
		t.Errorf("expired waiver: exit %d, want 1, the finding back and the waiver's line\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "lint", "--waivers", file, "--fail-on", "none", design); code != ExitOK {
		t.Errorf("--fail-on none: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "lint", "--fail-on", "warning", design); code != ExitUsage || !strings.Contains(errOut, "want error, note or none") {
		t.Errorf("--fail-on warning: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "lint", "--waivers", write("waivers:\n  - code: x\n    reason: r\n    owner: o\n"), design); code != ExitUsage ||
		!strings.Contains(errOut, ".yaml:2:5: waivers[0].expires: missing") {
		t.Errorf("waiver without expiry: exit %d, %s", code, errOut)
	}

	// SARIF: one log, the waived finding suppressed, the expired waiver a result at its own line.
	code, out, errOut = runCLI(t, "lint", "--format", "sarif", "--waivers", file, design, pkOrder)
	if code != ExitFindings {
		t.Errorf("sarif with an expired waiver: exit %d, want 1\n%s", code, errOut)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
						Region           struct{ StartLine, StartColumn int }
					} `json:"physicalLocation"`
				} `json:"locations"`
				Suppressions []struct{ Kind, Status, Justification string } `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("not one SARIF 2.1.0 log (%v):\n%s", err, out)
	}
	var hpk, suppressed, expiredAt int
	for _, r := range log.Runs[0].Results {
		loc := r.Locations[0].PhysicalLocation
		switch r.RuleID {
		case "hpk-order":
			hpk++
			if loc.Region.StartLine != 37 || loc.Region.StartColumn != 5 || !strings.HasSuffix(loc.ArtifactLocation.URI, "testdata/review/hpk-order.yaml") || len(r.Suppressions) != 0 {
				t.Errorf("hpk-order result: %+v", r)
			}
		case "partition-key-order":
			if len(r.Suppressions) == 1 && r.Suppressions[0].Status == "accepted" && strings.Contains(r.Suppressions[0].Justification, "legacy client") {
				suppressed++
			}
		case "waiver-expired":
			if loc.Region.StartLine == 2 && loc.Region.StartColumn == 5 && r.Level == "error" {
				expiredAt++
			}
		}
	}
	if hpk != 1 || suppressed != 2 || expiredAt != 1 {
		t.Errorf("sarif: %d hpk-order, %d suppressed partition-key-order, %d expired waivers at 2:5; want 1, 2, 1\n%s", hpk, suppressed, expiredAt, out)
	}
}

// TestSettings_ScopedAndAllAtOnce: a CDV_* variable of a setting a command does not take does not
// stop it (CDV_SAMPLES is run's, not lint's), the command that takes it still refuses it, and a
// configuration file's problems are all printed at once, each at its line.
func TestSettings_ScopedAndAllAtOnce(t *testing.T) {
	t.Setenv("CDV_SAMPLES", "abc")
	if code, out, errOut := runCLI(t, "lint", repo("designs", "iot.yaml")); code != ExitOK {
		t.Errorf("lint with a stray CDV_SAMPLES: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "run", repo("designs", "iot.yaml")); code != ExitUsage || !strings.Contains(errOut, `CDV_SAMPLES: "abc" is not a whole number`) {
		t.Errorf("run with CDV_SAMPLES=abc: exit %d, %s", code, errOut)
	}
	t.Setenv("CDV_SAMPLES", "")
	cfg := filepath.Join(t.TempDir(), "validate.yaml")
	if err := os.WriteFile(cfg, []byte("seed: x\nfoo: 1\nregression-pct: many\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "--config", cfg, "compare", "a.json", "b.json")
	for _, want := range []string{cfg + ":2:1: unknown key \"foo\"", cfg + ":1:1: seed: \"x\" is not a whole number", cfg + ":3:1: regression-pct: \"many\""} {
		if !strings.Contains(errOut, want) {
			t.Errorf("want %q among the problems:\n%s", want, errOut)
		}
	}
	if code != ExitUsage {
		t.Errorf("exit %d, want 2", code)
	}
}

// TestPlan_Waivers: plan takes the same waivers file: a warning a live waiver names is marked
// waived and not counted; an expired waiver is printed at its own line and counted.
func TestPlan_Waivers(t *testing.T) {
	design := repo("testdata", "review", "hpk-order.yaml")
	file := filepath.Join(t.TempDir(), "waivers.yaml")
	body := "waivers:\n  - code: hpk-order\n    design: ticketing\n    path: containers[1]\n    reason: three tenants by contract\n    owner: \"@orders\"\n    expires: EXPIRES\n"
	for _, tc := range []struct {
		expires       string
		waived, stale bool
	}{{"2999-12-31", true, false}, {"2001-01-01", false, true}} {
		if err := os.WriteFile(file, []byte(strings.Replace(body, "EXPIRES", tc.expires, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, out, errOut := runCLI(t, "plan", "--format", "json", "--waivers", file, design)
		var p struct {
			Warnings []struct{ Code, Subject, Message string } `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &p); err != nil {
			t.Fatalf("%s: %v\n%s", tc.expires, err, out)
		}
		waived := false
		for _, w := range p.Warnings {
			if w.Code == "hpk-order" && strings.Contains(w.Message, "— waived: three tenants by contract") {
				waived = true
			}
		}
		stale := strings.Contains(errOut, file+":2:5: the waiver of [hpk-order]") && strings.Contains(errOut, "expired on 2001-01-01")
		if waived != tc.waived || stale != tc.stale {
			t.Errorf("expires %s: waived %v (want %v), expired line %v (want %v)\n%s", tc.expires, waived, tc.waived, stale, tc.stale, errOut)
		}
	}
}

// TestPlan_SARIF: plan --format sarif writes one SARIF log whose results sit at the design file's
// line of their subject (a container's name, a pattern's estimate), a waived warning suppressed;
// beside another format on standard output it is refused.
func TestPlan_SARIF(t *testing.T) {
	design := repo("testdata", "review", "hpk-order.yaml")
	file := filepath.Join(t.TempDir(), "waivers.yaml")
	if err := os.WriteFile(file, []byte("waivers:\n  - code: hpk-order\n    reason: three tenants by contract\n    owner: \"@orders\"\n    expires: 2999-12-31\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, errOut := runCLI(t, "plan", "--format", "sarif", "--waivers", file, design)
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartLine int }
					} `json:"physicalLocation"`
				} `json:"locations"`
				Suppressions []struct{ Status string } `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("not one SARIF log (%v):\n%s%s", err, out, errOut)
	}
	found := false
	for _, r := range log.Runs[0].Results {
		if r.Locations[0].PhysicalLocation.Region.StartLine == 0 {
			t.Errorf("%s: no line", r.RuleID)
		}
		if r.RuleID == "hpk-order" {
			found = r.Locations[0].PhysicalLocation.Region.StartLine == 37 && len(r.Suppressions) == 1 && r.Suppressions[0].Status == "accepted"
		}
	}
	if !found {
		t.Errorf("want hpk-order at line 37, suppressed:\n%s", out)
	}
	if code, _, errOut := runCLI(t, "plan", "--format", "text,sarif", design); code != ExitUsage || !strings.Contains(errOut, "alone on standard output") {
		t.Errorf("text,sarif without --out: exit %d, %s", code, errOut)
	}
}

// TestLint_WaiversInTheDesign: a finding is waived in the design next to what it is about (#45
// point 5): the pattern's waive: entry waives its lost-partition-key, and lint and plan say so at
// the waiver's line in the design; an expired one waives nothing and fails at its own line; a
// waiver on another pattern does not reach this one.
func TestLint_WaiversInTheDesign(t *testing.T) {
	src, err := os.ReadFile(repo("testdata", "review", "report-every-second.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const anchor = "    estimate: {ru: 14}\n"
	if !strings.HasSuffix(string(src), anchor) {
		t.Fatalf("the fixture no longer ends with AP9's %q", anchor)
	}
	write := func(expires, pattern string) string {
		t.Helper()
		text := string(src) + "    waive:\n      - code: lost-partition-key\n        reason: the admin report reads every tenant on purpose\n" + expires
		if pattern != "AP9" { // move the waiver to AP1 instead
			text = string(src)
			text = strings.Replace(text, "  - id: AP1\n", "  - id: AP1\n    waive:\n      - {code: lost-partition-key, reason: not this one}\n", 1)
		}
		p := filepath.Join(t.TempDir(), "report.yaml")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	live := write("        expires: 2999-12-31\n", "AP9")
	code, out, errOut := runCLI(t, "lint", live)
	if code != ExitOK || !strings.Contains(out, "[lost-partition-key] — waived: the admin report reads every tenant on purpose") || !strings.Contains(out, live+":134:") {
		t.Errorf("waived in the design: exit %d, want 0 with the waiver at its line in the design\n%s%s", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, "plan", live); strings.Count(out, "waived: the admin report") == 0 {
		t.Errorf("plan does not mark the waived finding: exit %d\n%s%s", code, out, errOut)
	}
	expired := write("        expires: 2020-01-31\n", "AP9")
	code, out, errOut = runCLI(t, "lint", expired)
	if code != ExitFindings || !strings.Contains(out, "[waiver-expired]") || !strings.Contains(out, expired+":134:") || strings.Contains(out, "— waived:") {
		t.Errorf("an expired waiver in the design: exit %d, want 1 with waiver-expired at its line\n%s%s", code, out, errOut)
	}
	other := write("", "AP1")
	if code, out, errOut = runCLI(t, "lint", other); code != ExitFindings || strings.Contains(out, "— waived:") {
		t.Errorf("a waiver on AP1 waived AP9's finding: exit %d\n%s%s", code, out, errOut)
	}
}
