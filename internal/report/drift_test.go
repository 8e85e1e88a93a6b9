package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// TestBuild_ModelDrift: on an account run, a query measured beyond its tolerance of the model is
// listed as model drift with both sides' metrics, and the service's index metrics sit beside the
// engine's; within tolerance, or on a target that is not the service, nothing is listed.
func TestBuild_ModelDrift(t *testing.T) {
	d := onePattern(design.AccessPattern{Op: design.OpQuery, Query: "SELECT * FROM c WHERE c.x = 1", Estimate: design.Estimate{RU: 3}})
	ex := func(ru float64, used string, retrieved float64) []record.Execution {
		return []record.Execution{{RU: ru, Status: 200, Results: 1, Partitions: 1,
			QueryMetrics: map[string]float64{"retrievedDocumentCount": retrieved, "totalExecutionTimeInMs": 1},
			IndexMetrics: &record.IndexMetrics{UtilizedSingle: []string{used}}}}
	}
	model := runOf(record.ChargeModel, ex(3, "/x/?", 1))
	for name, c := range map[string]struct {
		source   record.ChargeSource
		measured float64
		drift    bool
	}{
		"beyond tolerance":     {record.ChargeService, 9, true},
		"within tolerance":     {record.ChargeService, 3.5, false},
		"emulator, not listed": {record.ChargeEmulatorIndicative, 9, false},
	} {
		t.Run(name, func(t *testing.T) {
			meas := runOf(c.source, ex(c.measured, "/x/?", 40))
			r := Build(Input{Design: d, Measured: meas, Modeled: model})
			if got := len(r.ModelDrift) == 1; got != c.drift {
				t.Fatalf("model drift = %+v, want listed: %v", r.ModelDrift, c.drift)
			}
			if c.source == record.ChargeService && (r.Patterns[0].Indexes == nil || r.Patterns[0].Indexes.Service == nil || r.Patterns[0].Indexes.Model == nil) {
				t.Errorf("indexes = %+v", r.Patterns[0].Indexes)
			}
			if !c.drift {
				return
			}
			dr := r.ModelDrift[0]
			if dr.Pattern != "X1" || dr.Measured != 9 || dr.Modeled != 3 || dr.DiffPct != 200 || dr.ServiceMetrics["retrievedDocumentCount"] != 40 || dr.ModelMetrics["retrievedDocumentCount"] != 1 {
				t.Errorf("drift = %+v", dr)
			}
			// The schema documents the new fields.
			raw, _ := os.ReadFile("../../schema/report.schema.json")
			var schema map[string]any
			if err := json.Unmarshal(raw, &schema); err != nil {
				t.Fatal(err)
			}
			js, _ := json.Marshal(r)
			var doc any
			_ = json.Unmarshal(js, &doc)
			for _, e := range validate(schema, schema, doc, "$") {
				t.Errorf("schema: %s", e)
			}
			var buf bytes.Buffer
			if err := Render(&buf, r, "text"); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"Model drift", "X1: measured 9.00 RU, modeled 3.00 RU (+200.0%", "retrievedDocumentCount=40", "X1: service utilized /x/?"} {
				if !strings.Contains(buf.String(), want) {
					t.Errorf("text report lacks %q:\n%s", want, buf.String())
				}
			}
		})
	}
}
