package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cosmosdv/validate/internal/design"
)

// RenderComparison writes a comparison as "text", "md" or "json".
func RenderComparison(w io.Writer, c *Comparison, format string) error {
	if c == nil {
		return fmt.Errorf("render comparison: no comparison")
	}
	switch format {
	case "text", "":
		return compareText(w, c)
	case "md", "markdown":
		return compareMarkdown(w, c)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(c); err != nil {
			return fmt.Errorf("render comparison: %w", err)
		}
		return nil
	}
	return fmt.Errorf("render comparison: unknown format %q (want text, md or json)", format)
}

func compareSummaryLine(c *Comparison) string {
	s := c.Summary
	head := "NO REGRESSIONS"
	switch {
	case s.Regressions > 0:
		head = "REGRESSIONS"
	case s.AddedFailing > 0:
		head = "NEW FAILURES"
	case c.Failures() > 0 && c.Cost != nil && c.Cost.Change == Regression:
		head = "COST REGRESSION"
	case s.ModelChanges > 0:
		head = "MODEL CHANGED"
	}
	traded := ""
	if s.TradeOffs > 0 {
		traded = fmt.Sprintf(", %d traded off", s.TradeOffs)
	}
	line := fmt.Sprintf("%s: %s — %d regressed, %d improved%s, %d unchanged, %d added, %d removed; verdicts changed: %d",
		head, design.Count(s.Patterns, "pattern"), s.Regressions, s.Improvements, traded, s.Unchanged, s.Added, s.Removed, s.VerdictChanges)
	if s.AddedFailing > 0 {
		line += fmt.Sprintf("; added and failing: %d", s.AddedFailing)
	}
	if s.ModelChanges > 0 {
		line += fmt.Sprintf("; moved with the model: %d", s.ModelChanges)
	}
	return line
}

// modelLines is the comparison's model note and, one line each, the patterns that moved with the
// model.
func modelLines(c *Comparison) (note string, lines []string) {
	if c.Model == nil {
		return "", nil
	}
	for _, p := range c.Ordered() {
		if p.Change == ModelChanged {
			lines = append(lines, fmt.Sprintf("%s %s: %s", p.ID, p.Name, strings.Join(p.Reasons, "; ")))
		}
	}
	return "Model changed: " + c.Model.Note, lines
}

func driftCell(d *Drift) string {
	if d == nil {
		return "—"
	}
	return fmt.Sprintf("%s → %s %s (%+.0f%%)", fmtRU(d.Old), fmtRU(d.New), SourceLabel(d.Source), d.Pct)
}

func verdictChange(p PatternChange) string {
	switch {
	case p.OldVerdict == "":
		return string(p.NewVerdict)
	case p.NewVerdict == "":
		return string(p.OldVerdict)
	case p.OldVerdict == p.NewVerdict:
		return string(p.NewVerdict)
	}
	return string(p.OldVerdict) + " → " + string(p.NewVerdict)
}

// Embedded in a run's report (Report.Baseline), the comparison renders through the same bodies as
// `validate compare`: regressions first, with their numbers.

func compareText(w io.Writer, c *Comparison) error {
	bw := bufio.NewWriter(w)
	compareTextBody(bw, c, "")
	fmt.Fprintf(bw, "\n%s\n", compareSummaryLine(c))
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render comparison: %w", err)
	}
	return nil
}

// baselineName is how a comparison names its baseline: the file, or the design and fingerprint.
func baselineName(c *Comparison) string {
	if c.Old.File != "" {
		return fmt.Sprintf("%s (%s) from %s", c.Old.Design, c.Old.Fingerprint, c.Old.File)
	}
	return fmt.Sprintf("%s (%s)", c.Old.Design, c.Old.Fingerprint)
}

// compareTextBody writes the comparison for the terminal, each line after indent: what was
// compared, the regressions with their numbers, the monthly cost, the design changes, the table
// (regressions first) and the improvements' reasons.
func compareTextBody(bw *bufio.Writer, c *Comparison, indent string) {
	fmt.Fprintf(bw, "%sBaseline %s → %s (%s) · charges %s\n", indent, baselineName(c), c.New.Design, c.New.Fingerprint, c.New.ChargeSource)
	if c.Variant != "" {
		fmt.Fprintf(bw, "%s%s\n", indent, c.Variant)
	}
	for _, f := range c.Forced {
		fmt.Fprintf(bw, "%sforced: %s\n", indent, f)
	}
	ordered := c.Ordered()
	for _, p := range ordered {
		if p.Change != Regression && p.Change != TradeOff {
			continue
		}
		fmt.Fprintf(bw, "%s%s %s %s:\n", indent, strings.ToUpper(string(p.Change)), p.ID, p.Name)
		for _, r := range p.Reasons {
			fmt.Fprintf(bw, "%s  - %s\n", indent, r)
		}
	}
	if note, lines := modelLines(c); note != "" {
		fmt.Fprintf(bw, "%s%s\n", indent, note)
		for _, l := range lines {
			fmt.Fprintf(bw, "%s  - MODEL-CHANGED %s\n", indent, l)
		}
	}
	if line := c.LoadLine(); line != "" {
		fmt.Fprintf(bw, "%s%s\n", indent, line)
	}
	fmt.Fprintf(bw, "%s%s\n", indent, upperFirst(c.CostOrMissingLine()))
	if len(c.DesignChanges) > 0 {
		fmt.Fprintf(bw, "\n%sDesign changes:\n", indent)
		for _, d := range c.DesignChanges {
			fmt.Fprintf(bw, "%s  - %s\n", indent, d)
		}
	}
	fmt.Fprintln(bw)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%sID\tNAME\tCHANGE\tMODELED RU\tMEASURED RU\tPRODUCTION RU\tVERDICT\n", indent)
	for _, p := range ordered {
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\t%s\n", indent, p.ID, p.Name, p.Change, driftCell(p.Modeled), driftCell(p.Measured),
			driftCell(p.Production), verdictChange(p))
	}
	_ = tw.Flush() // a bufio.Writer's error is reported by its Flush
	first := true
	for _, p := range ordered {
		if p.Change != Improvement {
			continue
		}
		if first {
			fmt.Fprintln(bw)
			first = false
		}
		fmt.Fprintf(bw, "%s%s %s (%s):\n", indent, p.ID, p.Name, p.Change)
		for _, r := range p.Reasons {
			fmt.Fprintf(bw, "%s  - %s\n", indent, r)
		}
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

var changeIcon = map[Change]string{Regression: "🔺", TradeOff: "⚖️", Improvement: "🟢", Unchanged: "▫️", Added: "➕", Removed: "➖", ModelChanged: "🔄"}

func compareMarkdown(w io.Writer, c *Comparison) error {
	bw := bufio.NewWriter(w)
	icon := "✅"
	switch {
	case c.Failures() > 0:
		icon = "❌"
	case c.Model != nil:
		icon = "🔄"
	}
	fmt.Fprintf(bw, "## %s Baseline comparison %s\n\n", icon, codeSpan(c.New.Design))
	compareMarkdownBody(bw, c, "###")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render comparison: %w", err)
	}
	return nil
}

// compareMarkdownBody writes the comparison in Markdown under headings of level h: the counts, the
// regressions with their numbers first, the monthly cost, the design changes and the table,
// regressions on top. Every design string is escaped (mdEscape).
func compareMarkdownBody(bw *bufio.Writer, c *Comparison, h string) {
	s := c.Summary
	fmt.Fprintf(bw, "**%d regressed, %d improved, %d unchanged, %d added, %d removed** — verdicts changed: %d; charges %s; baseline %s.\n\n",
		s.Regressions, s.Improvements, s.Unchanged, s.Added, s.Removed, s.VerdictChanges, c.New.ChargeSource, mdEscape(baselineName(c)))
	if c.Variant != "" {
		fmt.Fprintf(bw, "> %s\n\n", mdEscape(c.Variant))
	}
	for _, f := range c.Forced {
		fmt.Fprintf(bw, "> forced comparison: %s\n\n", mdEscape(f))
	}
	ordered := c.Ordered()
	var regressions []string
	for _, p := range ordered {
		switch p.Change {
		case Regression:
			regressions = append(regressions, fmt.Sprintf("- 🔺 **%s %s**: %s", mdEscape(p.ID), mdEscape(p.Name), mdEscape(strings.Join(p.Reasons, "; "))))
		case TradeOff:
			regressions = append(regressions, fmt.Sprintf("- %s **%s %s** (trade-off): %s", changeIcon[p.Change], mdEscape(p.ID), mdEscape(p.Name), mdEscape(strings.Join(p.Reasons, "; "))))
		}
	}
	if len(regressions) > 0 {
		fmt.Fprintln(bw, strings.Join(regressions, "\n"))
		fmt.Fprintln(bw)
	}
	if note, lines := modelLines(c); note != "" {
		fmt.Fprintf(bw, "%s Model changed\n\n%s\n\n", h, mdEscape(strings.TrimPrefix(note, "Model changed: ")))
		for _, l := range lines {
			fmt.Fprintf(bw, "- 🔄 %s\n", mdEscape(l))
		}
		if len(lines) > 0 {
			fmt.Fprintln(bw)
		}
	}
	if line := c.LoadLine(); line != "" {
		fmt.Fprintf(bw, "%s\n\n", mdEscape(line))
	}
	fmt.Fprintf(bw, "💰 %s\n\n", mdEscape(upperFirst(c.CostOrMissingLine())))
	if len(c.DesignChanges) > 0 {
		fmt.Fprintf(bw, "%s Design changes\n\n", h)
		for _, d := range c.DesignChanges {
			fmt.Fprintf(bw, "- %s\n", mdEscape(d))
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprintln(bw, "| ID | Pattern | Change | Modeled (RU) | Measured (RU) | Production (RU) | Verdict |")
	fmt.Fprintln(bw, "|---|---|---|--:|--:|--:|---|")
	for _, p := range ordered {
		fmt.Fprintf(bw, "| %s | %s | %s %s | %s | %s | %s | %s |\n", mdEscape(p.ID), mdEscape(p.Name), changeIcon[p.Change], p.Change,
			driftCell(p.Modeled), driftCell(p.Measured), driftCell(p.Production), verdictChange(p))
	}
	var improved []string
	for _, p := range ordered {
		if p.Change == Improvement {
			improved = append(improved, fmt.Sprintf("- **%s %s** (%s): %s", mdEscape(p.ID), mdEscape(p.Name), p.Change,
				mdEscape(strings.Join(p.Reasons, "; "))))
		}
	}
	if len(improved) > 0 {
		fmt.Fprintf(bw, "\n%s Improvements\n\n", h)
		fmt.Fprintln(bw, strings.Join(improved, "\n"))
	}
}
