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
	if s.Regressions > 0 {
		head = "REGRESSIONS"
	}
	return fmt.Sprintf("%s: %s — %d regressed, %d improved, %d unchanged, %d added, %d removed; verdicts changed: %d",
		head, design.Count(s.Patterns, "pattern"), s.Regressions, s.Improvements, s.Unchanged, s.Added, s.Removed, s.VerdictChanges)
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

func compareText(w io.Writer, c *Comparison) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Baseline %s (%s) → %s (%s) · charges %s\n", c.Old.Design, c.Old.Fingerprint, c.New.Design, c.New.Fingerprint, c.New.ChargeSource)
	for _, f := range c.Forced {
		fmt.Fprintf(bw, "forced: %s\n", f)
	}
	if len(c.DesignChanges) > 0 {
		fmt.Fprintln(bw, "\nDesign changes:")
		for _, d := range c.DesignChanges {
			fmt.Fprintf(bw, "  - %s\n", d)
		}
	}
	fmt.Fprintln(bw)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tCHANGE\tMODELED RU\tMEASURED RU\tVERDICT")
	for _, p := range c.Patterns {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.ID, p.Name, p.Change, driftCell(p.Modeled), driftCell(p.Measured), verdictChange(p))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("render comparison: %w", err)
	}
	first := true
	for _, p := range c.Patterns {
		if p.Change != Regression && p.Change != Improvement {
			continue
		}
		if first {
			fmt.Fprintln(bw)
			first = false
		}
		fmt.Fprintf(bw, "%s %s (%s):\n", p.ID, p.Name, p.Change)
		for _, r := range p.Reasons {
			fmt.Fprintf(bw, "  - %s\n", r)
		}
	}
	fmt.Fprintf(bw, "\n%s\n", compareSummaryLine(c))
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render comparison: %w", err)
	}
	return nil
}

var changeIcon = map[Change]string{Regression: "🔺", Improvement: "🟢", Unchanged: "▫️", Added: "➕", Removed: "➖"}

func compareMarkdown(w io.Writer, c *Comparison) error {
	bw := bufio.NewWriter(w)
	icon := "✅"
	if c.Summary.Regressions > 0 {
		icon = "❌"
	}
	fmt.Fprintf(bw, "## %s Baseline comparison %s\n\n", icon, codeSpan(c.New.Design))
	s := c.Summary
	fmt.Fprintf(bw, "**%d regressed, %d improved, %d unchanged, %d added, %d removed** — verdicts changed: %d; charges %s.\n\n",
		s.Regressions, s.Improvements, s.Unchanged, s.Added, s.Removed, s.VerdictChanges, c.New.ChargeSource)
	for _, f := range c.Forced {
		fmt.Fprintf(bw, "> forced comparison: %s\n\n", mdEscape(f))
	}
	if len(c.DesignChanges) > 0 {
		fmt.Fprintln(bw, "### Design changes")
		fmt.Fprintln(bw)
		for _, d := range c.DesignChanges {
			fmt.Fprintf(bw, "- %s\n", mdEscape(d))
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprintln(bw, "| ID | Pattern | Change | Modeled (RU) | Measured (RU) | Verdict |")
	fmt.Fprintln(bw, "|---|---|---|--:|--:|---|")
	for _, p := range c.Patterns {
		fmt.Fprintf(bw, "| %s | %s | %s %s | %s | %s | %s |\n", mdEscape(p.ID), mdEscape(p.Name), changeIcon[p.Change], p.Change,
			driftCell(p.Modeled), driftCell(p.Measured), verdictChange(p))
	}
	var notable []string
	for _, p := range c.Patterns {
		if p.Change == Regression || p.Change == Improvement {
			notable = append(notable, fmt.Sprintf("- **%s %s** (%s): %s", mdEscape(p.ID), mdEscape(p.Name), p.Change,
				mdEscape(strings.Join(p.Reasons, "; "))))
		}
	}
	if len(notable) > 0 {
		fmt.Fprintln(bw, "\n### Details")
		fmt.Fprintln(bw)
		fmt.Fprintln(bw, strings.Join(notable, "\n"))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render comparison: %w", err)
	}
	return nil
}
