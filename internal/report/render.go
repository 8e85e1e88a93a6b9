package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/outfile"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// Formats lists the report formats Render accepts, with the file extension WriteAll gives each.
var Formats = []struct{ Name, Ext string }{
	{"text", "txt"},
	{"md", "md"},
	{"json", "json"},
	{"junit", "xml"},
	{"html", "html"},
}

// FormatNames returns the accepted format names.
func FormatNames() []string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = f.Name
	}
	return names
}

// Render writes r to w in one format: "text", "md", "json", "junit" or "html".
func Render(w io.Writer, r *Report, format string) error {
	if r == nil {
		return fmt.Errorf("render: no report")
	}
	switch format {
	case "text", "":
		return renderText(w, r)
	case "md", "markdown":
		return renderMarkdown(w, r)
	case "json":
		return renderJSON(w, r)
	case "junit":
		return renderJUnit(w, r)
	case "html":
		return renderHTML(w, r)
	}
	return fmt.Errorf("render: unknown format %q (want one of %s)", format, strings.Join(FormatNames(), ", "))
}

// WriteAll renders r once per format into dir as <design name>.<ext> and returns the paths written. Unknown
// formats are rejected before anything is written.
func WriteAll(dir string, r *Report, formats []string) ([]string, error) {
	var exts []string
	for _, f := range formats {
		i := slices.IndexFunc(Formats, func(x struct{ Name, Ext string }) bool { return x.Name == f })
		if f == "markdown" {
			i = 1
		}
		if i < 0 {
			return nil, fmt.Errorf("write reports: unknown format %q (want one of %s)", f, strings.Join(FormatNames(), ", "))
		}
		exts = append(exts, Formats[i].Ext)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write reports: %w", err)
	}
	var paths []string
	for i, f := range formats {
		var buf bytes.Buffer
		if err := Render(&buf, r, f); err != nil {
			return paths, err
		}
		p := filepath.Join(dir, fileStem(r)+"."+exts[i])
		if err := outfile.Replace(p, buf.Bytes(), 0o644); err != nil {
			return paths, fmt.Errorf("write reports: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// fileStem names a report's files after its design, so that several designs share one --out folder.
func fileStem(r *Report) string { return FileStem(r.Design.Name) }

// FileStem turns a design name into a file name of letters, digits, '-', '_' and '.', with no
// directory part and never "." or "..": every file named after a design (reports, baselines,
// plans) stays inside the directory it is written to, whatever the name.
func FileStem(designName string) string {
	name := strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			return c
		}
		return '-'
	}, designName)
	if name == "" || strings.Trim(name, ".") == "" {
		return "report"
	}
	return name
}

func renderJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("render json: %w", err)
	}
	return nil
}

// ReadReport decodes a report written by Render in format "json".
func ReadReport(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	return &r, nil
}

// chargeCell is a charge with its source label, as every column shows it: "3.1 modeled".
func chargeCell(c *Charge) string {
	if c == nil {
		return "—"
	}
	cell := fmtRU(c.Median) + " " + SourceLabel(c.Source)
	if c.Samples > 1 {
		// The median is the reported figure; p95 and the sample count say how settled it is.
		cell += fmt.Sprintf(" (p95 %s, n=%d)", fmtRU(c.P95), c.Samples)
	}
	return cell
}

// measuredCell says why there is no measured figure when there is none.
func measuredCell(r *Report, c *Charge) string {
	if c != nil {
		return chargeCell(c)
	}
	if r.Target.ChargeSource == record.ChargeModel {
		return "— (not measured)" // the target models its charges: embedded, or validate serve
	}
	return "—"
}

// sourcesUsed lists the charge sources that appear in the report, in legend order.
func sourcesUsed(r *Report) []record.ChargeSource {
	seen := map[record.ChargeSource]bool{}
	for _, p := range r.Patterns {
		if p.Modeled != nil {
			seen[p.Modeled.Source] = true
		}
		if p.Measured != nil {
			seen[p.Measured.Source] = true
		}
	}
	var out []record.ChargeSource
	for _, l := range Legend {
		if seen[l.Source] {
			out = append(out, l.Source)
		}
	}
	return out
}

// legendOf is legendLine for report r: a calibrated card's modeled charges say so.
func legendOf(r *Report, source record.ChargeSource) string {
	if source == record.ChargeModel && r.ModelCard != "" {
		engine := "the embedded engine's RU model"
		if r.Target.Kind != record.KindEmbedded && r.Target.ChargeSource == record.ChargeModel {
			engine = "the RU model of the validate serve this run talked to"
		}
		card := "a rate card whose figures replace built-in ones"
		if strings.Contains(r.ModelCard, "(calibrated:") {
			card = "a rate card fitted to the account's measured charges"
		}
		return fmt.Sprintf("modeled (%s): computed by %s with %s; not a measurement", r.ModelCard, engine, card)
	}
	return legendLine(source)
}

func legendLine(source record.ChargeSource) string {
	for _, l := range Legend {
		if l.Source == source {
			return fmt.Sprintf("%s (%s): %s", l.Label, l.Source, l.Meaning)
		}
	}
	return string(source)
}

// SummaryLine is the one-line verdict of a report, as the text format's last line says it.
func SummaryLine(r *Report) string { return summaryLine(r) }

func summaryLine(r *Report) string {
	s := r.Summary
	line := fmt.Sprintf("%s: %s — %d pass, %d warn, %d fail, %d error; verdicts on %s",
		strings.ToUpper(string(s.Verdict)), design.Count(s.Patterns, "pattern"), s.Pass, s.Warn, s.Fail, s.Error, s.Basis)
	if n := failing(r.StageFindings); n > 0 {
		line += fmt.Sprintf("; %s (see Findings)", design.Count(n, "capacity finding"))
	}
	if line2 := baselineSummary(r); line2 != "" {
		line += "; " + line2
	}
	return line
}

// baselineSummary says in a few words how the run compares with its baseline ("" without one).
func baselineSummary(r *Report) string {
	if r.BaselineProblem != "" {
		return "not compared with a baseline: " + r.BaselineProblem
	}
	c := r.Baseline
	if c == nil {
		return ""
	}
	ids := func(ch Change) string {
		var out []string
		for _, p := range c.Ordered() {
			if p.Change == ch {
				out = append(out, p.ID)
			}
		}
		return strings.Join(out, ", ")
	}
	var line string
	if n := c.Summary.Regressions; n > 0 {
		line = fmt.Sprintf("%s since the baseline (%s)", design.Count(n, "regression"), ids(Regression))
	} else {
		line = fmt.Sprintf("no regression since the baseline (%d improved)", c.Summary.Improvements)
	}
	if c.Cost != nil && c.Cost.Change == Regression {
		line += fmt.Sprintf("; the monthly cost rose beyond %s", usd(c.Cost.ThresholdUSD))
	}
	if n := c.Summary.ModelChanges; n > 0 {
		line += fmt.Sprintf("; %s moved with the model, not the design (%s)", design.Count(n, "pattern"), ids(ModelChanged))
		if c.FailOnModelChange {
			line += ", failing as --fail-on-model-change asks"
		}
	} else if c.Model != nil && c.Model.RateCardChanged {
		// Another build alone that moved nothing is in the comparison's model section, not here:
		// every commit is another build.
		line += "; the baseline is from another rate card"
	}
	return line
}

// headVerdict is the verdict a report's heading shows: the worst pattern verdict, and fail when a
// pattern regressed against the baseline (the run exits 1 either way).
func headVerdict(r *Report) Verdict {
	v := r.Summary.Verdict
	if r.Baseline.Failures() > 0 || r.BaselineProblem != "" {
		v = worse(v, Fail)
	}
	return v
}

func targetLine(r *Report) string {
	t := r.Target
	parts := []string{"target " + orDash(string(t.Kind))}
	if t.Engine != "" {
		parts = append(parts, "engine "+t.Engine)
	}
	parts = append(parts, "charges "+orDash(string(t.ChargeSource)))
	if r.ModelCard != "" {
		parts = append(parts, "modeled charges "+r.ModelCard)
	}
	parts = append(parts, fmt.Sprintf("seed %d", r.Seed), fmt.Sprintf("%d samples", r.Samples))
	if s := sdkLine(r); s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, " · ")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func fmtRate(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmtRU(v)
}
