package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
)

var verdictIcon = map[Verdict]string{Pass: "✅", Warn: "⚠️", Fail: "❌", Error: "💥"}

// renderMarkdown writes GitHub-flavoured Markdown for $GITHUB_STEP_SUMMARY and PR comments.
func renderMarkdown(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	s := r.Summary
	fmt.Fprintf(bw, "## %s Cosmos DB design %s\n\n", verdictIcon[headVerdict(r)], codeSpan(r.Design.Name))
	fmt.Fprintf(bw, "**%s: %d pass, %d warn, %d fail, %d error** — verdicts on %s.",
		design.Count(s.Patterns, "pattern"), s.Pass, s.Warn, s.Fail, s.Error, s.Basis)
	if b := baselineSummary(r); b != "" {
		fmt.Fprintf(bw, " **%s.**", mdEscape(upperFirst(b)))
	}
	fmt.Fprintf(bw, "\n\n%s\n\n", mdEscape(targetLine(r)))
	if r.Incomplete != "" {
		fmt.Fprintf(bw, "> ⚠️ **Incomplete**: %s\n\n", mdEscape(r.Incomplete))
	}
	if r.Baseline != nil {
		// First, because a nightly job that fails on a regression must say which, with the numbers.
		fmt.Fprintln(bw, "### Changes since baseline")
		fmt.Fprintln(bw)
		compareMarkdownBody(bw, r.Baseline, "####")
		fmt.Fprintln(bw)
		fmt.Fprintln(bw, "### Patterns")
		fmt.Fprintln(bw)
	}

	fmt.Fprintln(bw, "| ID | Pattern | Op | Estimate (RU) | Modeled (RU) | Measured (RU) | Production (RU) | Verdict |")
	fmt.Fprintln(bw, "|---|---|---|--:|--:|--:|--:|---|")
	for _, p := range r.Patterns {
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %s | %s %s |\n", mdEscape(p.ID), mdEscape(p.Name), mdEscape(p.Op),
			fmtRU(p.Estimate), chargeCell(p.Modeled), measuredCell(r, p.Measured), projectedCell(p), verdictIcon[p.Verdict], p.Verdict)
	}
	if lines := projectionLines(r); len(lines) > 0 {
		fmt.Fprintln(bw, "\n### Production scale")
		fmt.Fprintln(bw)
		codeBlock(bw, "", lines...)
	}
	if lines := estimatorLines(r); len(lines) > 0 {
		fmt.Fprintf(bw, "\n### Estimator check at the seeded scale\n\n%s\n\n", mdEscape(estimatorHead))
		codeBlock(bw, "", lines...) // a fence longer than any run of backticks in the lines
	}

	var details []PatternResult
	for _, p := range r.Patterns {
		if notable(p) {
			details = append(details, p)
		}
	}
	if len(details) > 0 {
		fmt.Fprintln(bw, "\n### Details")
		for _, p := range details {
			fmt.Fprintf(bw, "\n#### %s %s %s (%s)\n\n", verdictIcon[p.Verdict], mdEscape(p.ID), mdEscape(p.Name), p.Verdict)
			if p.Query != "" {
				codeBlock(bw, "sql", p.Query)
				fmt.Fprintln(bw)
			}
			for _, reason := range p.Reasons {
				fmt.Fprintf(bw, "- %s\n", mdEscape(reason))
			}
			for _, a := range p.Advice {
				fmt.Fprintf(bw, "- advice: %s\n", mdEscape(a))
			}
		}
	}

	if len(r.Containers) > 0 {
		fmt.Fprintln(bw, "\n### Request rate per container (RU/s, avg / peak; \"production\": queries at their projected charge)")
		fmt.Fprintln(bw)
		fmt.Fprintln(bw, "| Container | Throughput | Estimate | Modeled | Measured |")
		fmt.Fprintln(bw, "|---|---|--:|--:|--:|")
		for _, c := range r.Containers {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s |\n", mdEscape(c.Name), mdEscape(c.Throughput), loadCell(&c.Estimate), loadCell(c.Modeled), loadCell(c.Measured))
		}
	}

	if lines := trafficLines(r); len(lines) > 0 {
		fmt.Fprintln(bw, "\n### Traffic by the hour (plan's modeled forecast at the designed throughput)")
		fmt.Fprintln(bw)
		for _, l := range lines {
			fmt.Fprintln(bw, "- "+mdEscape(l))
		}
	}

	if len(r.StageFindings) > 0 {
		fmt.Fprintln(bw, "\n### Findings")
		fmt.Fprintln(bw)
		for _, f := range r.StageFindings {
			fmt.Fprintf(bw, "- **%s** %s · %s: %s\n", mdEscape(f.Level), mdEscape(f.Stage), mdEscape(f.Subject), mdEscape(f.Message))
		}
	}

	if lines := throttleLines(r); len(lines) > 0 {
		fmt.Fprintln(bw, "\n### Throttling (429 responses, the SDK's retries included)")
		fmt.Fprintln(bw)
		for _, l := range lines {
			fmt.Fprintf(bw, "- %s\n", mdEscape(l))
		}
	}

	indexes, drift := accountLines(r)
	for _, sec := range []struct {
		title string
		lines []string
	}{
		{"Indexes (the target's index metrics beside our index plan and advise's changes; a potential index is a hint to test, not proof)", indexes},
		{"Model drift (measured beyond tolerance of the model; facts for the next validate calibrate)", drift},
	} {
		if len(sec.lines) == 0 {
			continue
		}
		fmt.Fprintf(bw, "\n### %s\n\n", sec.title)
		for _, l := range sec.lines {
			fmt.Fprintf(bw, "- %s\n", mdEscape(l))
		}
	}

	fmt.Fprintln(bw, "\n<sub>Legend: "+mdEscape(strings.Join(legendLines(r), "; "))+".</sub>")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render md: %w", err)
	}
	return nil
}

// legendLines is the report's legend: how its three figures relate, then each charge source used.
func legendLines(r *Report) []string {
	out := []string{FiguresLegend}
	for _, s := range sourcesUsed(r) {
		out = append(out, legendOf(r, s))
	}
	return out
}

// mdEscape makes a design string (a name, an id, a message) plain text wherever the Markdown
// report puts it: a table cell, a list item, a heading. Line breaks become spaces, so nothing starts
// a line of its own (no heading, no fence, no list); every character that opens markup (emphasis,
// code, links, tables, strikethrough, headings' closing #) is backslash-escaped, and <, > and & are
// entities, so neither raw HTML nor an entity can appear. Control characters are dropped.
func mdEscape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case strings.ContainsRune("\\`*_[]|#~", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// codeSpan is s as inline code whatever it holds: on one line, between backtick runs longer than
// any run inside it (CommonMark closes a code span only with a run of the same length). Inside a
// code span nothing is markup, so a table's | is the only character still escaped.
func codeSpan(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f:
			return -1
		}
		return r
	}, s)
	s = strings.ReplaceAll(s, "|", `\|`)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.TrimSpace(s) == "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

// codeBlock writes lines as a fenced code block that no line can close: the fence is longer than
// any backtick run in the text (CommonMark closes a fence only with a run at least as long), so a
// design string holding a line of three backticks and a heading stays inside the block as text.
func codeBlock(w io.Writer, info string, lines ...string) {
	text := strings.Join(lines, "\n")
	text = strings.Map(func(r rune) rune {
		if r == '\r' || (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
			return -1 // a lone CR would end a line the fence does not see
		}
		return r
	}, text)
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	fmt.Fprintf(w, "%s%s\n%s\n%s\n", fence, info, text, fence)
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c rune) int {
	best, run := 0, 0
	for _, r := range s {
		if r == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// notable reports whether a pattern gets a details entry: a verdict other than pass, or advice.
func notable(p PatternResult) bool { return p.Verdict != Pass || len(p.Advice) > 0 }
