package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/cosmosdv/validate/internal/record"
)

// hostileName is issue 30's pattern name: a line of three backticks, then a heading that fakes a
// verdict, then a new fence.
const hostileName = "x\n```\n## ✅ All patterns pass — nothing to review\n```text"

// headings parses md as GitHub does (CommonMark with tables) and returns every heading's text and
// the text of every code block.
func headings(t *testing.T, md []byte) (heads, code []string) {
	t.Helper()
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(md))
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			var b strings.Builder
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				b.Write(c.Text(md)) //nolint:staticcheck // the plain text is what a reader sees
			}
			heads = append(heads, b.String())
		case *ast.FencedCodeBlock:
			var b strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				b.Write(seg.Value(md))
			}
			code = append(code, b.String())
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return heads, code
}

// TestMarkdown_HostileNamesStayText holds issue 30 item 9: a design string cannot break out of a
// code block or a table, or fake a heading, in the run report and in the comparison.
func TestMarkdown_HostileNamesStayText(t *testing.T) {
	render := func(name string) (string, []string, []string) {
		r := embeddedReport()
		r.Design.Name = name
		for i := range r.Patterns {
			r.Patterns[i].Name = name
			r.Patterns[i].ID += "|`" // a cell separator and a backtick in an id
			if r.Patterns[i].Query != "" {
				r.Patterns[i].Query += "\n" + name
			}
			r.Patterns[i].Reasons = append(r.Patterns[i].Reasons, name)
			// A projection note puts the name in the "Production scale" code block.
			r.Patterns[i].Projection = &record.Projection{ID: r.Patterns[i].ID, Unprojected: true, Note: "no scale " + name}
			// An estimator check puts the name in the "Estimator check" code block (#42 defect 7).
			r.Patterns[i].EstimatorCheck = &EstimatorCheck{EstimatedRU: 3, ExecutedRU: 3, Agree: true, Executions: 5,
				Facts: []FactCheck{{Name: "index", Estimated: 4, Executed: 4, Agree: true}}}
		}
		r.StageFindings = append(r.StageFindings, record.Finding{Stage: "probe", Level: "warn", Subject: name, Message: name})
		var md bytes.Buffer
		if err := Render(&md, r, "md"); err != nil {
			t.Fatal(err)
		}
		heads, code := headings(t, md.Bytes())
		return md.String(), heads, code
	}
	_, benignHeads, benignCode := render("benign")
	md, heads, code := render(hostileName)
	// The same headings and code blocks as with a harmless name: nothing was added or closed early.
	if len(heads) != len(benignHeads) || len(code) != len(benignCode) {
		t.Fatalf("%d headings and %d code blocks, want %d and %d as with a harmless name:\n%s",
			len(heads), len(code), len(benignHeads), len(benignCode), md)
	}
	for i, h := range heads {
		if strings.HasPrefix(h, "✅ All patterns pass") || strings.Fields(h)[0] != strings.Fields(benignHeads[i])[0] {
			t.Errorf("heading %d = %q, want it to start as %q", i, h, benignHeads[i])
		}
	}
	inCode := 0
	for _, c := range code {
		if strings.Contains(c, "\n## ✅ All patterns pass") {
			inCode++
		}
	}
	if inCode != len(code) {
		t.Errorf("the hostile lines should stay inside every code block as text; code blocks: %q", code)
	}
	// The pattern table keeps one row per pattern with all its cells.
	rows := 0
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| AP") {
			rows++
			if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); n != 9 {
				t.Errorf("table row has %d cell separators, want 9: %s", n, line)
			}
		}
	}
	if rows != 6 {
		t.Errorf("%d table rows, want 6", rows)
	}
}

// TestMarkdown_HostileNamesInTheComparison: the same for the changes since the baseline, in a run's
// report and in `validate compare`'s Markdown.
func TestMarkdown_HostileNamesInTheComparison(t *testing.T) {
	render := func(name string) (run, cmp []string) {
		base, cur := nightlyReports(t)
		for _, r := range []*Report{base, cur} {
			r.Design.Name = name
			for i := range r.Patterns {
				r.Patterns[i].Name = name
			}
		}
		cur.Patterns[2].Query += "\n" + name // a design change quoting the query
		c, err := Compare(base, cur, CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c.Old.File = name
		cur.Baseline = c
		var a, b bytes.Buffer
		if err := Render(&a, cur, "md"); err != nil {
			t.Fatal(err)
		}
		if err := RenderComparison(&b, c, "md"); err != nil {
			t.Fatal(err)
		}
		run, _ = headings(t, a.Bytes())
		cmp, _ = headings(t, b.Bytes())
		return run, cmp
	}
	benignRun, benignCmp := render("benign")
	run, cmp := render(hostileName)
	if len(run) != len(benignRun) || len(cmp) != len(benignCmp) {
		t.Fatalf("headings %q and %q, want as many as with a harmless name: %q and %q", run, cmp, benignRun, benignCmp)
	}
	for _, h := range append(run, cmp...) {
		if strings.HasPrefix(h, "✅ All patterns pass") {
			t.Errorf("a design string became a heading: %q", h)
		}
	}
}
