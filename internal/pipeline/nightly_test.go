package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/report"
)

// nightlyDesign writes tiny.yaml with the given excluded paths and production count of items.
func nightlyDesign(t *testing.T, dir, excluded string, production int) *design.Design {
	t.Helper()
	y := strings.ReplaceAll(tinyYAML, "EXCLUDED", excluded)
	// Two tenants whatever the volume: a tenant's query grows with the production count.
	y = strings.Replace(y, "cardinality: 2}", "cardinality: 2, productionCardinality: 2}", 1)
	// A wide tolerance: the verdicts stay pass, so the run is regression-only.
	y = strings.Replace(y, "tolerance: {pct: 500}", "tolerance: {pct: 100000}", 1)
	y = strings.Replace(y, "        count: 300\n", "        count: 300\n        production: "+itoa(production)+"\n", 1)
	f := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(f, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := design.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestValidate_NightlyArtifacts is issue 26's "done when": a regression-only nightly run (the
// verdicts do not change) has findings (exit 1), and every artifact carries the comparison: the
// JUnit file fails the regressed pattern's test case with the numbers, the Markdown starts with the
// regressions, the JSON holds the comparison and the HTML shows it. The second change moves only
// the production count, so only the projected charge moves, and it is still a regression.
func TestValidate_NightlyArtifacts(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	c := config(&stdout, &stderr)
	c.Baseline = filepath.Join(dir, "baselines") + string(os.PathSeparator)
	c.UpdateBaseline = true
	if _, err := Validate(context.Background(), []*design.Design{nightlyDesign(t, dir, `["/body/?"]`, 3000)}, c); err != nil {
		t.Fatalf("update: %v\n%s", err, stderr.String())
	}
	c.UpdateBaseline = false
	c.Out, c.Formats = filepath.Join(dir, "reports"), []string{"text", "md", "json", "junit", "html"}

	for _, tc := range []struct {
		name       string
		excluded   string
		production int
		drift      string // the drift the regression is named by
	}{
		{"status out of the index", `["/body/?", "/status/?"]`, 3000, "modeled charge rose from"},
		{"production count only", `["/body/?"]`, 30_000, "modeled production charge rose from"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout.Reset()
			out, err := Validate(context.Background(), []*design.Design{nightlyDesign(t, dir, tc.excluded, tc.production)}, c)
			if err != nil {
				t.Fatal(err)
			}
			rep := out.Reports[0]
			if rep.Summary.Fail+rep.Summary.Error != 0 {
				t.Fatalf("want a regression-only run, got verdicts %+v", rep.Summary)
			}
			q1 := rep.Baseline.Of("Q1")
			if out.Findings != 1 || q1 == nil || q1.Change != report.Regression || !strings.Contains(strings.Join(q1.Reasons, ";"), tc.drift) {
				t.Fatalf("findings %d, Q1 %+v: want Q1's regression (%s)", out.Findings, q1, tc.drift)
			}
			if tc.production != 3000 && (q1.Modeled.Change != report.Unchanged || q1.Production == nil) {
				t.Errorf("only the production figure should move: %+v", q1)
			}
			read := func(ext string) string {
				b, err := os.ReadFile(filepath.Join(c.Out, "tiny."+ext))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			if md := read("md"); !strings.Contains(md, "### Changes since baseline") ||
				strings.Index(md, "- 🔺 **Q1") > strings.Index(md, "| ID | Pattern | Op |") || strings.Index(md, "- 🔺 **Q1") < 0 {
				t.Errorf("Markdown must start with the regression:\n%s", md)
			}
			if xml := read("xml"); !strings.Contains(xml, `failures="1"`) || !strings.Contains(xml, `type="regression"`) || !strings.Contains(xml, tc.drift) {
				t.Errorf("JUnit must fail Q1 with its numbers:\n%s", xml)
			}
			var doc struct {
				Baseline    *report.Comparison  `json:"baseline"`
				MonthlyCost *report.MonthlyCost `json:"monthlyCost"`
			}
			if err := json.Unmarshal([]byte(read("json")), &doc); err != nil || doc.Baseline == nil || doc.Baseline.Summary.Regressions != 1 {
				t.Errorf("JSON must hold the comparison (%v)", err)
			}
			if doc.MonthlyCost == nil || doc.MonthlyCost.DesignedUSD <= 0 || doc.Baseline.Cost == nil {
				t.Errorf("JSON must hold the monthly cost and its change: %+v", doc.MonthlyCost)
			}
			if html := read("html"); !strings.Contains(html, "Changes since baseline") || !strings.Contains(html, `data-series="baseline"`) {
				t.Error("HTML must show the comparison and the baseline bars")
			}
			if txt := read("txt"); !strings.Contains(txt, "REGRESSION Q1") || !strings.Contains(stdout.String(), "REGRESSION Q1") {
				t.Errorf("text report and terminal must name the regression:\n%s", stdout.String())
			}
		})
	}
}
