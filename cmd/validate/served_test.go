package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/report"
)

// TestRun_ServedChargesReachReport: `run --target endpoint` against a `validate serve --rate-card`
// whose reads cost ×0.8 reports the serve's charges as the modeled figures, labelled with the serve's
// label, not the built-in card's (catalog AP1: about 0.82 RU, not 1.03). No proxy in between.
func TestRun_ServedChargesReachReport(t *testing.T) {
	dir := t.TempDir()
	reads := cost.Current.Clone().ReadBySize
	for i := range reads.Points {
		reads.Points[i].RU *= 0.8
	}
	b, _ := json.Marshal(map[string]any{"readBySize": reads})
	cardFile := filepath.Join(dir, "reads08.json")
	if err := os.WriteFile(cardFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	url := startServeEndpoint(t, "--rate-card", cardFile)
	label := "model (rate card: reads08.json)"

	builtin := runReport(t, "run", "--target", "embedded", "--samples", "2", "--progress", "none", "--format", "json", repo("designs", "catalog.yaml"))
	served := runReport(t, "run", "--target", "endpoint", "--endpoint", url, "--run-id", "served", "--samples", "2", "--progress", "none", "--format", "json", repo("designs", "catalog.yaml"))

	if served.ModelCard != label || served.Target.Charges != label {
		t.Errorf("modelCard %q, target charges %q; want %q", served.ModelCard, served.Target.Charges, label)
	}
	want := pattern(t, builtin, "AP1").Modeled.Median * 0.8
	ap1 := pattern(t, served, "AP1")
	if ap1.Measured != nil {
		t.Errorf("AP1: the serve's charges shown as measured: %+v", ap1.Measured)
	}
	if ap1.Modeled == nil || math.Abs(ap1.Modeled.Median/want-1) > 0.01 {
		t.Fatalf("AP1 modeled %+v, want the serve's %.3f RU (built-in ×0.8)", ap1.Modeled, want)
	}
	if ap1.Modeled.Source != "model" {
		t.Errorf("AP1 source %q, want model", ap1.Modeled.Source)
	}

	// The report says how many physical partitions each side had (one: catalog's autoscale 8,000).
	found := false
	for _, f := range served.StageFindings {
		found = found || (f.Subject == "container Products" && strings.Contains(f.Message, "physical partitions: target 1, modeled 1, design's production 1"))
	}
	if !found {
		t.Errorf("no partition finding for Products: %+v", served.StageFindings)
	}

	// The text report names the serve's card in its header and legend.
	code, stdout, stderr := runCLI(t, "run", "--target", "endpoint", "--endpoint", url, "--run-id", "served2", "--samples", "1", "--progress", "none", repo("designs", "catalog.yaml"))
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("run exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "modeled charges "+label) || !strings.Contains(stdout, "modeled ("+label+"): computed by the RU model of the validate serve") {
		t.Errorf("text report does not label the serve's charges %q:\n%s", label, stdout)
	}
}

func runReport(t *testing.T, args ...string) *report.Report {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("%v: exit %d\n%s", args, code, stderr)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, stdout)
	}
	return &r
}

func pattern(t *testing.T, r *report.Report, id string) report.PatternResult {
	t.Helper()
	for _, p := range r.Patterns {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("no pattern %s in the report", id)
	return report.PatternResult{}
}
