package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// TestBand_CellAndVerdict: the PRODUCTION cell carries the band as "14 RU (9–31: rule <name>
// unvalidated)", and a verdict whose estimate lies inside the band says so, with the figure under
// each alternative; the first reason (the JUnit message) has the band beside the figure.
func TestBand_CellAndVerdict(t *testing.T) {
	band := &record.Band{LowRU: 9, HighRU: 31, Rules: []record.BandRule{
		{Name: "order-top-unserved-filter", Alternative: "stops", RU: 14},
		{Name: "order-top-unserved-filter", Alternative: "scans", RU: 31},
		{Name: "pk-equality-order-composite", Alternative: "sorts", RU: 14},
		{Name: "pk-equality-order-composite", Alternative: "streams", RU: 9},
	}}
	pj := &record.Projection{ID: "AP1", Production: true, SeededRU: 3, ProjectedRU: 14, Band: band}
	c := &Charge{Source: record.ChargeModel, Median: 3, CarriesVerdict: true}
	project(c, pj)
	p := PatternResult{ID: "AP1", Modeled: c, Projection: pj}
	if got, want := projectedCell(p), "14 modeled (estimated; 9–31: rules order-top-unserved-filter, pk-equality-order-composite unvalidated)"; got != want {
		t.Errorf("cell %q, want %q", got, want)
	}
	ap := &design.AccessPattern{ID: "AP1", Op: design.OpQuery, Estimate: design.Estimate{RU: 25}}
	c.Band = 5
	c.Within = false
	v, reasons := chargeVerdict(ap, c, nil, Options{})
	if v != Fail || len(reasons) < 2 {
		t.Fatalf("verdict %s, reasons %q", v, reasons)
	}
	if !strings.Contains(reasons[0], "production figure 14 RU (9–31: rules order-top-unserved-filter, pk-equality-order-composite unvalidated)") {
		t.Errorf("first reason (the JUnit message) lacks the band: %q", reasons[0])
	}
	if !strings.Contains(reasons[1], "the estimate 25 RU lies inside the production figure's band 9–31 RU") ||
		!strings.Contains(reasons[1], "order-top-unserved-filter: stops 14, scans 31") {
		t.Errorf("no inside-the-band reason: %q", reasons)
	}
	// Outside the band: no such reason.
	ap.Estimate.RU = 50
	if _, reasons := chargeVerdict(ap, c, nil, Options{}); strings.Contains(strings.Join(reasons, "\n"), "inside the production figure's band") {
		t.Errorf("an estimate outside the band is said to lie inside: %q", reasons)
	}
	// A pinned rule: no band, the calibration named.
	pj2 := &record.Projection{ID: "AP1", Production: true, ProjectedRU: 31,
		PinnedRules: []record.PinnedRule{{Name: "order-top-unserved-filter", Alternative: "scans", By: "calibrated: acct, 2026-11-28"}}}
	c2 := &Charge{Source: record.ChargeModel, Median: 3, CarriesVerdict: true}
	project(c2, pj2)
	if got := projectedCell(PatternResult{ID: "AP1", Modeled: c2, Projection: pj2}); !strings.Contains(got, "rule order-top-unserved-filter=scans calibrated: acct, 2026-11-28") || strings.Contains(got, "unvalidated") {
		t.Errorf("pinned cell %q", got)
	}
}

// TestBand_Schema: a projection's band and pinned rules are documented in schema/report.schema.json.
func TestBand_Schema(t *testing.T) {
	schema := reportSchema(t)
	pj := record.Projection{ID: "AP1", Production: true, SeededRU: 3, ProjectedRU: 14,
		Band:        &record.Band{LowRU: 9, HighRU: 31, Rules: []record.BandRule{{Name: "r", Alternative: "a", RU: 14}, {Name: "r", Alternative: "b", RU: 31}}},
		PinnedRules: []record.PinnedRule{{Name: "q", Alternative: "c", By: "calibrated: acct, 2026-11-28"}}}
	b, _ := json.Marshal(pj)
	var doc any
	_ = json.Unmarshal(b, &doc)
	defs := schema["$defs"].(map[string]any)
	for _, e := range validate(schema, defs["projection"].(map[string]any), doc, "$.projection") {
		t.Error(e)
	}
}
