package report

import (
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// TestDesignerMeasured: a charge the designer measured (estimate.measured) reaches the report as what
// it is, beside the model's figure, and does not move the verdict.
func TestDesignerMeasured(t *testing.T) {
	ap := design.AccessPattern{ID: "X1", Name: "History", Op: design.OpQuery, Estimate: design.Estimate{RU: 3, Measured: 7.2}}
	model := runOf(record.ChargeModel, execs(3, 200, 1, 1, 3))
	r := Build(Input{Design: onePattern(ap), Measured: model, Modeled: model})
	p := r.Patterns[0]
	if p.DesignerMeasured != 7.2 || p.Verdict != Pass {
		t.Fatalf("designerMeasured %v, verdict %s", p.DesignerMeasured, p.Verdict)
	}
	var text strings.Builder
	if err := Render(&text, r, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "X1 History: the designer measured 7.2 RU; the model 3 RU (median); the estimate 3 RU") {
		t.Errorf("text report:\n%s", text.String())
	}
	var js strings.Builder
	if err := Render(&js, r, "json"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ReplaceAll(js.String(), " ", ""), `"designerMeasured":7.2`) {
		t.Errorf("json report lacks designerMeasured")
	}
}
