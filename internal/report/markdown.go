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
	fmt.Fprintf(bw, "## %s Cosmos DB design `%s`\n\n", verdictIcon[s.Verdict], mdEscape(r.Design.Name))
	fmt.Fprintf(bw, "**%s: %d pass, %d warn, %d fail, %d error** — verdicts on %s.\n\n",
		design.Count(s.Patterns, "pattern"), s.Pass, s.Warn, s.Fail, s.Error, s.Basis)
	fmt.Fprintf(bw, "%s\n\n", mdEscape(targetLine(r)))

	fmt.Fprintln(bw, "| ID | Pattern | Op | Estimate (RU) | Modeled (RU) | Measured (RU) | Production (RU) | Verdict |")
	fmt.Fprintln(bw, "|---|---|---|--:|--:|--:|--:|---|")
	for _, p := range r.Patterns {
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %s | %s %s |\n", mdEscape(p.ID), mdEscape(p.Name), p.Op,
			fmtRU(p.Estimate), chargeCell(p.Modeled), measuredCell(r, p.Measured), projectedCell(p), verdictIcon[p.Verdict], p.Verdict)
	}
	if lines := projectionLines(r); len(lines) > 0 {
		fmt.Fprintln(bw, "\n### Production scale\n\n```")
		for _, l := range lines {
			fmt.Fprintln(bw, l)
		}
		fmt.Fprintln(bw, "```")
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
				fmt.Fprintf(bw, "```sql\n%s\n```\n\n", p.Query)
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
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s |\n", mdEscape(c.Name), c.Throughput, loadCell(&c.Estimate), loadCell(c.Modeled), loadCell(c.Measured))
		}
	}

	if len(r.StageFindings) > 0 {
		fmt.Fprintln(bw, "\n### Findings")
		fmt.Fprintln(bw)
		for _, f := range r.StageFindings {
			fmt.Fprintf(bw, "- **%s** %s · %s: %s\n", f.Level, f.Stage, mdEscape(f.Subject), mdEscape(f.Message))
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
		{"Indexes (the service's index metrics beside the engine's plan)", indexes},
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

	fmt.Fprintln(bw, "\n<sub>Charge sources: "+mdEscape(strings.Join(legendLines(r), "; "))+".</sub>")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render md: %w", err)
	}
	return nil
}

func legendLines(r *Report) []string {
	var out []string
	for _, s := range sourcesUsed(r) {
		out = append(out, legendOf(r, s))
	}
	return out
}

// mdEscape keeps table cells intact and stops text from turning into markup.
func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "`", "\\`")
	return r.Replace(s)
}

// notable reports whether a pattern gets a details entry: a verdict other than pass, or advice.
func notable(p PatternResult) bool { return p.Verdict != Pass || len(p.Advice) > 0 }
