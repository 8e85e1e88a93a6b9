package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// nightlyDesign is shopDesign with an order document type, so that a comparison can name fields and
// production counts.
func nightlyDesign(production float64, fields ...string) *design.Design {
	d := shopDesign()
	var fs design.Fields
	for _, f := range fields {
		fs = append(fs, design.NamedField{Name: f, Field: design.Field{Gen: "word"}})
	}
	d.Containers[1].Documents = []design.DocType{{Type: "order", Count: 500, Production: production, Fields: fs}}
	return d
}

// nightlyRun is the embedded run of nightlyDesign: AP5 (create order) costs create, AP3's projection
// to production has the given factor, and each order document has bytes bytes.
func nightlyRun(create []float64, factor float64, bytes int64) *record.Run {
	run := embeddedRun()
	run.Patterns[4].Executions = execs(5, 201, 1, 1, create...)
	run.Projections = []record.Projection{
		{ID: "AP1", Point: true},
		{ID: "AP3", Production: true, SeededRU: 14.9, ProjectedRU: 14.9 * factor},
	}
	run.Seeding = []record.SeedStat{{Container: "Orders", Type: "order", Documents: 500, Bytes: 500 * bytes}}
	return run
}

// nightlyReports is a regression-only nightly run: no verdict changes, but create order rose from
// 7.7 to 9.47 RU (within its tolerance, beyond the regression threshold), and the production count
// of orders tripled, which moves only AP3's projected charge. The baseline went through a baseline
// file, as in a nightly job.
func nightlyReports(t *testing.T) (baseline, cur *Report) {
	t.Helper()
	old := nightlyRun([]float64{7.6, 7.8}, 10, 600)
	oldRep := Build(Input{Design: nightlyDesign(1_000_000, "status", "createdAt"), Measured: old, Modeled: old, Version: "v0.1.0-test"})
	oldRep.Cost = &MonthlyCost{Currency: "USD", RateCard: "test 2026-01-01", DesignedUSD: 81.76, RequiredUSD: 70.08}
	var file bytes.Buffer
	if err := WriteBaseline(&file, oldRep); err != nil {
		t.Fatal(err)
	}
	baseline, err := ReadBaseline(&file)
	if err != nil {
		t.Fatal(err)
	}
	run := nightlyRun([]float64{9.47}, 14, 700)
	cur = Build(Input{Design: nightlyDesign(3_000_000, "status", "createdAt", "giftNote"), Measured: run, Modeled: run,
		Version: "v0.1.0-test", Started: time.Date(2026, 1, 3, 3, 4, 5, 0, time.UTC), Duration: 2 * time.Second})
	cur.Cost = &MonthlyCost{Currency: "USD", RateCard: "test 2026-01-01", DesignedUSD: 81.76, RequiredUSD: 93.44,
		Containers: []ContainerCost{{Name: "Orders", Source: "model", Scale: VerdictOnProjected, AvgRUs: 512, PeakRUs: 1210, StorageGB: 1,
			Designed: "autoscale 1000", DesignedUSD: 81.76, Required: "autoscale 2000", RequiredUSD: 93.44,
			Formula: "max(avg 512, 10% of 1000) = 512 RU/s ÷ 100 × $0.012 × 730 h × 1 region(s) + 1 GB × $0.25 × 1 region(s)"}}}
	c, err := Compare(baseline, cur, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.Old.File = "baselines/embedded/shop.baseline.json"
	cur.Baseline = c
	return baseline, cur
}

func TestNightly_ComparisonInEveryFormat(t *testing.T) {
	_, r := nightlyReports(t)
	c := r.Baseline
	if c.Regressions() != 2 {
		t.Fatalf("regressions = %d, want 2 (AP5 seeded, AP3 production only): %+v", c.Regressions(), c.Patterns)
	}
	if got := r.Findings(); got != r.Summary.Fail+r.Summary.Error+2 {
		t.Errorf("Findings = %d: regressions must count", got)
	}
	ap3 := c.Of("AP3")
	if ap3.Change != Regression || ap3.Modeled.Change != Unchanged || ap3.Production == nil || ap3.Production.Change != Regression {
		t.Errorf("AP3 moved only at production scale and must be a regression on that figure: %+v", ap3)
	}
	if ap3.Production.Old != 149 || ap3.Production.New != 208.6 {
		t.Errorf("AP3 production drift %v → %v, want 149 → 208.6 (the estimator's production figures, the PRODUCTION column's)", ap3.Production.Old, ap3.Production.New)
	}
	for _, want := range []string{
		"container Orders: type order: field added: /giftNote (documents 600 → 700 bytes, +100)",
		"container Orders: type order: production count changed from 1,000,000 to 3,000,000",
	} {
		if !contains(c.DesignChanges, want) {
			t.Errorf("design changes lack %q: %q", want, c.DesignChanges)
		}
	}
	if c.Cost == nil || c.Cost.Required.Delta != 23.36 || c.Cost.Designed.Delta != 0 {
		t.Errorf("cost change = %+v", c.Cost)
	}

	for _, f := range Formats {
		t.Run(f.Name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Render(&buf, r, f.Name); err != nil {
				t.Fatal(err)
			}
			golden(t, "nightly."+f.Ext, buf.Bytes())
			out := buf.String()
			switch f.Name {
			case "md":
				// The summary starts with the regressions and their numbers.
				heads, _ := headings(t, buf.Bytes())
				if len(heads) < 2 || strings.HasPrefix(heads[0], "✅") || strings.HasPrefix(heads[0], "⚠️") || heads[1] != "Changes since baseline" {
					t.Errorf("headings = %q: want a failing heading, then the changes since baseline", heads)
				}
				first := strings.Index(out, "- 🔺 **AP5 create order**: modeled charge rose from 7.6 to 9.47 RU")
				second := strings.Index(out, "- 🔺 **AP3 orders by status**: modeled production charge rose from 149 to 208.6 RU")
				table := strings.Index(out, "| ID | Pattern | Op |")
				if first < 0 || second < 0 || first > table || second > table {
					t.Errorf("regressions with their numbers must come before the pattern table:\n%s", out)
				}
				if !strings.Contains(out, "Monthly cost at production: $81.76 → $81.76 (±$0) at the designed throughput; $70.08 → $93.44 (+$23.36, +33%) sized for this run's peak") {
					t.Errorf("no monthly-cost line:\n%s", out)
				}
			case "text":
				if !strings.Contains(out, "REGRESSION AP5 create order:") || !strings.Contains(out, "2 regressions since the baseline (AP3, AP5)") {
					t.Errorf("text lacks the comparison:\n%s", out)
				}
			case "json":
				var doc struct {
					Baseline *Comparison `json:"baseline"`
				}
				if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || doc.Baseline == nil || doc.Baseline.Summary.Regressions != 2 {
					t.Errorf("JSON report lacks the comparison (%v)", err)
				}
			case "junit":
				var doc junitSuites
				if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
					t.Fatal(err)
				}
				failures := 0
				for _, tc := range doc.Suites[0].Cases {
					if tc.Failure != nil {
						failures++
					}
					if strings.HasPrefix(tc.Name, "AP5 ") && (tc.Failure == nil || tc.Failure.Type != "regression" ||
						!strings.Contains(tc.Failure.Message, "rose from 7.6 to 9.47 RU (+25%")) {
						t.Errorf("AP5 passes its verdict but regressed: want a failure with the numbers, got %+v", tc.Failure)
					}
					if strings.HasPrefix(tc.Name, "AP1 ") && tc.Failure != nil {
						t.Errorf("an unchanged pattern must pass: %+v", tc.Failure)
					}
				}
				if doc.Failures != failures || doc.Suites[0].Failures != failures || failures != r.Summary.Fail+1 {
					t.Errorf("failures attribute %d / %d, test cases failing %d, want %d", doc.Failures, doc.Suites[0].Failures, failures, r.Summary.Fail+1)
				}
			case "html":
				if strings.Count(out, `data-series="baseline"`) != 5 || !strings.Contains(out, `<h2>Changes since baseline</h2>`) {
					t.Errorf("the HTML report must draw the baseline beside each pattern's bars (5 with a charge) and list the changes")
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestNightly_RegressionOnlyHeading: a run whose verdicts all pass but which regressed shows a
// failing heading, as its exit code is 1.
func TestNightly_RegressionOnlyHeading(t *testing.T) {
	_, r := nightlyReports(t)
	r.Summary.Verdict = Pass
	if headVerdict(r) != Fail {
		t.Errorf("heading verdict = %s, want fail for a regression", headVerdict(r))
	}
	r.Baseline.Summary.Regressions = 0
	if headVerdict(r) != Pass {
		t.Errorf("heading verdict = %s without a regression, want pass", headVerdict(r))
	}
}
