package mcpserver

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/report"
)

// TestBand_PlanAndRun: MCP's plan and run return each production figure's band as the CLI does
// (plan's productionBand, the run's projection.band), and the run's reasons write the figure with
// it.
func TestBand_PlanAndRun(t *testing.T) {
	data, err := os.ReadFile("../../testdata/designs/rules-band.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, t.TempDir())
	res, text := call(t, cs, "plan", map[string]any{"design": string(data)})
	if res.IsError {
		t.Fatalf("plan: %s", text)
	}
	var p plan.Plan
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	for _, pt := range p.Patterns {
		if pt.ProductionBand == nil || len(pt.ProductionBand.Rules) < 2 {
			t.Errorf("plan %s: no band", pt.ID)
		}
	}
	res, text = call(t, cs, "run", map[string]any{"design": string(data), "samples": 2})
	if res.IsError {
		t.Fatalf("run: %s", text)
	}
	var rep report.Report
	raw, _ = json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	// The container's load band: plan's ends, and the run's production load between the same ends.
	lb := p.Containers[0].LoadBand
	if lb == nil {
		t.Fatal("plan: no load band")
	}
	if m := rep.Containers[0].Modeled; m == nil || m.PeakBand == nil || m.PeakBand.Low != lb.Low.PeakRUs || m.PeakBand.High != lb.High.PeakRUs {
		t.Errorf("run: modeled load band %+v, want plan's ends %g–%g", m, lb.Low.PeakRUs, lb.High.PeakRUs)
	}
	for _, pr := range rep.Patterns {
		if pr.Projection == nil || pr.Projection.Band == nil {
			t.Errorf("run %s: no band in the projection", pr.ID)
			continue
		}
		if !strings.Contains(strings.Join(pr.Reasons, "\n"), "unvalidated)") {
			t.Errorf("run %s: the reasons do not write the figure with its band: %q", pr.ID, pr.Reasons)
		}
	}
}
