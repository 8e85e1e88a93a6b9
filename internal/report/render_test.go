package report

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/testenv"
	"golang.org/x/net/html"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it under -update (testenv.Golden).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testenv.Golden(t, filepath.Join("testdata", name), got, *update)
}

func TestRender_Golden(t *testing.T) {
	reports := []struct {
		name string
		r    *Report
	}{
		{"embedded", embeddedReport()},
		{"service", serviceReport()},
		{"placeholder", placeholderReport()},
	}
	for _, rep := range reports {
		for _, f := range Formats {
			t.Run(rep.name+"."+f.Name, func(t *testing.T) {
				var buf bytes.Buffer
				if err := Render(&buf, rep.r, f.Name); err != nil {
					t.Fatal(err)
				}
				golden(t, rep.name+"."+f.Ext, buf.Bytes())
			})
		}
	}
}

func TestRender_UnknownFormat(t *testing.T) {
	if err := Render(&bytes.Buffer{}, embeddedReport(), "pdf"); err == nil || !strings.Contains(err.Error(), "pdf") {
		t.Fatalf("want an error naming the format, got %v", err)
	}
	if err := Render(&bytes.Buffer{}, nil, "text"); err == nil {
		t.Fatal("want an error for a nil report")
	}
}

func TestRender_JSONRoundTrip(t *testing.T) {
	r := serviceReport()
	var buf bytes.Buffer
	if err := Render(&buf, r, "json"); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReport(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.SchemaVersion != SchemaVersion || len(got.Patterns) != len(r.Patterns) || got.Findings() != r.Findings() {
		t.Fatalf("round trip lost data: schema %d, %d patterns, %d findings", got.SchemaVersion, len(got.Patterns), got.Findings())
	}
	if got.Patterns[1].Measured == nil || got.Patterns[1].Measured.Source != record.ChargeService {
		t.Fatalf("measured charge lost its source: %+v", got.Patterns[1].Measured)
	}
}

func TestRender_JUnitParses(t *testing.T) {
	var buf bytes.Buffer
	r := serviceReport()
	if err := Render(&buf, r, "junit"); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("junit does not parse: %v", err)
	}
	s := doc.Suites[0]
	if len(s.Cases) != len(r.Patterns) {
		t.Fatalf("want %d testcases, got %d", len(r.Patterns), len(s.Cases))
	}
	failures, errors := 0, 0
	for _, c := range s.Cases {
		if c.Classname != "shop" {
			t.Errorf("classname = %q, want the design name", c.Classname)
		}
		if c.Failure != nil {
			failures++
		}
		if c.Error != nil {
			errors++
		}
	}
	if failures != r.Summary.Fail || errors != r.Summary.Error {
		t.Errorf("failures/errors = %d/%d, want %d/%d", failures, errors, r.Summary.Fail, r.Summary.Error)
	}
}

func TestRender_HTML(t *testing.T) {
	_, nightly := nightlyReports(t) // with a baseline: a fourth bar per group
	for _, r := range []*Report{embeddedReport(), serviceReport(), placeholderReport(), nightly} {
		var buf bytes.Buffer
		if err := Render(&buf, r, "html"); err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("html does not parse: %v", err)
		}
		groups := map[string]int{}
		var svgs, scripts, external int
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode {
				switch n.Data {
				case "svg":
					svgs++
				case "script":
					scripts++
				}
				for _, a := range n.Attr {
					if (a.Key == "src" || a.Key == "href") && strings.Contains(a.Val, "//") {
						external++
					}
					if a.Key == "class" && a.Val == "bar-group" {
						for _, b := range n.Attr {
							if b.Key == "data-pattern" {
								groups[b.Val]++
							}
						}
					}
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
		if svgs != 2 {
			t.Errorf("want 2 inline svg charts, got %d", svgs)
		}
		if scripts != 0 || external != 0 {
			t.Errorf("page must be self-contained: %d scripts, %d external references", scripts, external)
		}
		if len(groups) != len(r.Patterns) {
			t.Errorf("want one bar group per pattern (%d), got %d", len(r.Patterns), len(groups))
		}
		for _, p := range r.Patterns {
			if groups[p.ID] != 1 {
				t.Errorf("pattern %s has %d bar groups, want 1", p.ID, groups[p.ID])
			}
		}
		if r.Target.ChargeSource == record.ChargeEmulatorPlaceholder && !strings.Contains(buf.String(), "measured (placeholder)") {
			t.Error("placeholder bars must be labelled as placeholders")
		}
	}
}

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteAll(dir, embeddedReport(), []string{"text", "json", "html"})
	if err != nil {
		t.Fatal(err)
	}
	stem := embeddedReport().Design.Name
	want := []string{stem + ".txt", stem + ".json", stem + ".html"}
	if len(paths) != len(want) {
		t.Fatalf("paths = %v", paths)
	}
	for i, p := range paths {
		if filepath.Base(p) != want[i] {
			t.Errorf("path %d = %s, want %s", i, p, want[i])
		}
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	if _, err := WriteAll(filepath.Join(dir, "x"), embeddedReport(), []string{"text", "yaml"}); err == nil {
		t.Error("want an error for an unknown format")
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("nothing may be written when a format is unknown")
	}
}

// TestRender_HTMLReadsAtAGlance: failing rows differ by colour and by a marker, not only a word, and
// the legend is on the page; scripts/check-html.sh shows what a browser draws at 800 and 1600 px.
func TestRender_HTMLReadsAtAGlance(t *testing.T) {
	var buf bytes.Buffer
	if err := Render(&buf, embeddedReport(), "html"); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`<tr class="row-fail">`, `<span class="mark">✗</span>fail`, `<tr class="row-error">`,
		`class="legend"`, "tolerance band around the estimate", "tr.row-fail td{background:"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Bar value labels stand vertically: neighbours cannot overlap however many digits they have.
	if strings.Contains(page, `text-anchor="middle" font-size="9">`) {
		t.Error("horizontal value labels over 20 px bars collide")
	}
}

// The pattern chart switches to a logarithmic axis when the charges span more than three orders of
// magnitude, and its bars are labelled with the figure they show: the seeded median as modeled, the
// estimator's production figure as production, never one over the other's label.
func TestPatternChart_LogScaleAndJudgedFigure(t *testing.T) {
	r := &Report{Patterns: []PatternResult{
		{ID: "A", Estimate: 3, Verdict: Pass, Modeled: &Charge{Source: "model", Median: 3.1}},
		{ID: "B", Estimate: 300000, Verdict: Pass, Modeled: &Charge{Source: "model", Median: 13, Projected: 310000, VerdictOn: VerdictOnProjected}},
	}}
	svg := patternChart(r)
	for _, want := range []string{"logarithmic scale", ">100k<", "B modeled at the seeded scale: 13<", "B production (estimated): 310000<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if strings.Contains(svg, "modeled at the seeded scale: 310000") {
		t.Error("the production figure is drawn over the modeled label")
	}
	r.Patterns = r.Patterns[:1]
	if svg := patternChart(r); strings.Contains(svg, "logarithmic") {
		t.Error("a chart of one small charge should stay linear")
	}
}
