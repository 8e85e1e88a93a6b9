package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// modelReport is P1 of ordersDesign charged ru by a model (tool version and rate card), its
// container's designed throughput at ru400 RU/s and priced as given.
func modelReport(ru float64, tool, card string, usd float64, indexing *design.Indexing) *Report {
	d := ordersDesign(indexing)
	d.AccessPatterns = d.AccessPatterns[2:] // P1 only
	run := &record.Run{Target: record.TargetInfo{Kind: "embedded", ChargeSource: record.ChargeModel}, Seed: 1, Samples: 1,
		Patterns: []record.Pattern{{ID: "P1", Executions: execs(1, 200, 1, 1, ru)}}}
	r := Build(Input{Design: d, Measured: run, Modeled: run, Version: tool, RateCard: card})
	r.Cost = &MonthlyCost{Currency: "USD", RateCard: card, DesignedUSD: usd, RequiredUSD: usd}
	return r
}

// TestCompare_ModelChange: the same design under another model (tool version or rate card) moves as
// "model-changed", apart from regressions, and fails only with FailOnModelChange; a design that
// moved too is classified as usual, with the model named; a baseline that does not record its
// model is another model.
func TestCompare_ModelChange(t *testing.T) {
	old := modelReport(5, "v1.0.0", "2026.11-3", 100, nil)

	// Same model: a regression is a regression, and there is no model section.
	c, err := Compare(old, modelReport(7, "v1.0.0", "2026.11-3", 100, nil), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != nil || c.Summary.Regressions != 1 || c.Failures() != 1 {
		t.Fatalf("same model: model %+v, %d regressions, %d failures; want none, 1, 1", c.Model, c.Summary.Regressions, c.Failures())
	}

	// Another rate card, same design: model-changed, no regression, passes.
	c, err = Compare(old, modelReport(7, "v1.0.0", "2026.12-1", 100, nil), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := findChange(t, c, "P1")
	if c.Model == nil || !c.Model.RateCardChanged || c.Model.ToolChanged || c.Model.DesignChanged || p.Change != ModelChanged ||
		c.Summary.Regressions != 0 || c.Summary.ModelChanges != 1 || c.Failures() != 0 {
		t.Fatalf("rate card changed: model %+v, P1 %s, summary %+v, %d failures", c.Model, p.Change, c.Summary, c.Failures())
	}
	if !strings.Contains(strings.Join(p.Reasons, "; "), "rate card 2026.11-3 → 2026.12-1") {
		t.Errorf("P1's reasons do not name the model change: %q", p.Reasons)
	}
	var text, md bytes.Buffer
	if err := RenderComparison(&text, c, "text"); err != nil {
		t.Fatal(err)
	}
	if err := RenderComparison(&md, c, "md"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Model changed: the baseline was written by validate v1.0.0 with rate card 2026.11-3, this run by validate v1.0.0 with rate card 2026.12-1",
		"MODEL-CHANGED P1", "MODEL CHANGED: 1 pattern", "moved with the model: 1"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if !strings.Contains(md.String(), "## 🔄 Baseline comparison") || !strings.Contains(md.String(), "### Model changed") {
		t.Errorf("markdown lacks the model section:\n%s", md.String())
	}

	// Asked to fail on it, it fails.
	c, _ = Compare(old, modelReport(7, "v1.0.0", "2026.12-1", 100, nil), CompareOptions{FailOnModelChange: true})
	if c.Failures() != 1 || c.Summary.Regressions != 0 {
		t.Errorf("--fail-on-model-change: %d failures, %d regressions; want 1, 0", c.Failures(), c.Summary.Regressions)
	}

	// Another tool version and another design: classified as usual, the model named.
	c, _ = Compare(old, modelReport(7, "v1.1.0", "2026.11-3", 100, &design.Indexing{Excluded: []string{"/status/?"}}), CompareOptions{})
	if c.Model == nil || !c.Model.ToolChanged || !c.Model.DesignChanged || findChange(t, c, "P1").Change != Regression || c.Failures() != 1 {
		t.Errorf("tool and design changed: model %+v, P1 %s, %d failures", c.Model, findChange(t, c, "P1").Change, c.Failures())
	}

	// A baseline written before baselines recorded their model is read as another model.
	var buf bytes.Buffer
	unrecorded := modelReport(5, "", "", 100, nil)
	if err := WriteBaseline(&buf, unrecorded); err != nil {
		t.Fatal(err)
	}
	fromFile, err := ReadBaseline(&buf)
	if err != nil {
		t.Fatal(err)
	}
	c, _ = Compare(fromFile, modelReport(7, "v1.0.0", "2026.11-3", 100, nil), CompareOptions{})
	if c.Model == nil || findChange(t, c, "P1").Change != ModelChanged || !strings.Contains(c.Model.Note, "(not recorded)") {
		t.Errorf("unrecorded model: %+v, P1 %s", c.Model, findChange(t, c, "P1").Change)
	}
}

// TestBaseline_RecordsItsModel: a baseline holds the tool version and the rate card that wrote it,
// and reads them back.
func TestBaseline_RecordsItsModel(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, modelReport(5, "v1.2.3", "2026.11-3", 100, nil)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"tool": {`) || !strings.Contains(buf.String(), `"rateCard": "2026.11-3"`) {
		t.Fatalf("baseline lacks its model:\n%s", buf.String())
	}
	r, err := ReadBaseline(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if r.Tool.Version != "v1.2.3" || r.Tool.RateCard != "2026.11-3" {
		t.Errorf("read back tool %+v", r.Tool)
	}
}

// TestCompare_CostThreshold: a monthly bill that rises by more than --regression-usd is a
// regression of the comparison (it fails), one within it is not, and none is judged without it;
// under a model change with the design unchanged it is the model's.
func TestCompare_CostThreshold(t *testing.T) {
	tests := []struct {
		name      string
		old, new  float64
		usd       float64
		card      string
		want      Change
		failures  int
		wantInDoc string
	}{
		{"no threshold", 100, 112.62, 0, "2026.11-3", "", 0, ""},
		{"within", 100, 104, 10, "2026.11-3", "", 0, ""},
		{"beyond", 100, 112.62, 10, "2026.11-3", Regression, 1, "REGRESSION: rose by more than the threshold of $10.00 a month"},
		{"beyond, with the model", 100, 112.62, 10, "2026.12-1", ModelChanged, 0, "with the model (model-changed)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(modelReport(5, "v1", "2026.11-3", tt.old, nil), modelReport(5, "v1", tt.card, tt.new, nil), CompareOptions{USD: tt.usd})
			if err != nil {
				t.Fatal(err)
			}
			if c.Cost.Change != tt.want || c.Failures() != tt.failures || !strings.Contains(c.CostLine(), tt.wantInDoc) {
				t.Errorf("cost change %q, %d failures, line %q; want %q, %d, %q", c.Cost.Change, c.Failures(), c.CostLine(), tt.want, tt.failures, tt.wantInDoc)
			}
		})
	}
}
