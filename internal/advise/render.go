package advise

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cosmosdv/validate/internal/outfile"

	"github.com/cosmosdv/validate/internal/design"
)

// Render writes the advice as text, md or json.
func Render(w io.Writer, a *Advice, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(a)
	case "text", "md":
		return renderText(w, a, format == "md")
	}
	return fmt.Errorf("unknown format %q (text, md or json)", format)
}

func renderText(w io.Writer, a *Advice, md bool) error {
	var b strings.Builder
	h := func(level int, s string) {
		if md {
			if level > 1 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "%s %s\n\n", strings.Repeat("#", level), s)
		} else if level == 1 {
			fmt.Fprintf(&b, "%s\n", s)
		} else {
			fmt.Fprintf(&b, "\n%s\n", s)
		}
	}
	table := func(header []string, rows [][]string) {
		if md {
			if !strings.HasSuffix(b.String(), "\n\n") {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
			for _, r := range rows {
				for i := range r {
					r[i] = strings.ReplaceAll(r[i], "|", `\|`)
				}
				fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
			}
			b.WriteString("\n")
			return
		}
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  %s\n", strings.Join(header, "\t"))
		for _, r := range rows {
			fmt.Fprintf(tw, "  %s\n", strings.Join(r, "\t"))
		}
		tw.Flush()
	}
	sub := func(title string) {
		if md {
			fmt.Fprintf(&b, "### %s\n\n", title)
			return
		}
		fmt.Fprintf(&b, "%s\n", title)
	}
	line := func(format string, args ...any) {
		prefix := "  "
		if md {
			prefix = "- "
		}
		fmt.Fprintf(&b, prefix+format+"\n", args...)
	}
	h(1, fmt.Sprintf("Advice for %s (static: no database was used)", a.Design))
	fmt.Fprintf(&b, "Design: %.1f RU/s on average (writes %.1f, queries %.1f, reads %.1f), %.1f RU/s at peak, $%.2f/month.\n",
		a.Baseline.RUs, a.Baseline.WriteRUs, a.Baseline.QueryRUs, a.Baseline.ReadRUs, a.Baseline.PeakRUs, a.Baseline.MonthlyUSD)
	fmt.Fprintf(&b, "Figures: %s.\n", a.Basis)
	if a.Billing != "" {
		fmt.Fprintf(&b, "Monthly figures with autoscale are lower bounds: %s.\n", a.Billing)
	}

	h(2, "Recommended")
	if a.Nothing {
		b.WriteString("Nothing to improve: no candidate lowers the design's RU/s or its monthly cost.\n")
	}
	for _, v := range a.Recommended {
		line("%s: %s — %s RU/s (writes %s, queries %s, reads %s), %s $/month", v.Name, v.What,
			signed(v.Change.RUs), signed(v.Change.WriteRUs), signed(v.Change.QueryRUs), signed(v.Change.ReadRUs), signedUSD(v.Change.MonthlyUSD))
	}
	if len(a.Recommended) > 1 {
		b.WriteString(strings.ToUpper(Alternatives[:1]) + Alternatives[1:] + ".\n")
		seen := map[string]bool{}
		for _, v := range a.Recommended {
			seen[v.Name] = true
			for _, m := range v.MootWith {
				if other, _, _ := strings.Cut(m, ":"); !seen[other] {
					line("%s and %s are moot together (%s): apply one, then run advise on the result for the other", v.Name, other, strings.TrimSpace(m[len(other)+1:]))
				}
			}
		}
	}

	h(2, "Indexing what-if (each change alone, RU/s at production × average rates)")
	for _, ia := range a.Indexing {
		sub(ia.Container)
		if len(ia.Changes) == 0 {
			line("no candidate: every indexed path is queried and every queried path is indexed")
			continue
		}
		var rows [][]string
		for _, c := range ia.Changes {
			if len(c.Breaks) > 0 {
				rows = append(rows, []string{c.Kind, c.Path, "-", "-", "-", "-", c.Verdict, c.Why})
				continue
			}
			rows = append(rows, []string{c.Kind, c.Path, signed(c.Change.WriteRUs), signed(c.Change.QueryRUs), signed(c.Change.RUs),
				signedUSD(c.Change.MonthlyUSD), c.Verdict, c.Why})
		}
		table([]string{"CHANGE", "PATH", "WRITES RU/s", "QUERIES RU/s", "TOTAL RU/s", "$/MONTH", "VERDICT", "WHY"}, rows)
		if ia.Policy != nil {
			fmt.Fprintf(&b, "Recommended policy for %s: %s RU/s, %s $/month. Paste under the container:\n", ia.Container, signed(ia.Change.RUs), signedUSD(ia.Change.MonthlyUSD))
			if md {
				b.WriteString("\n")
			}
			if md {
				b.WriteString(fenced("yaml", strings.TrimRight(ia.PolicyYAML, "\n")))
			} else {
				for _, l := range strings.Split(strings.TrimRight(ia.PolicyYAML, "\n"), "\n") {
					b.WriteString("    " + l + "\n")
				}
			}
			for _, q := range ia.Queries {
				if md {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "With it, write %s's query as (the same results in the same order, served by the index):\n", q.Pattern)
				if md {
					b.WriteString("\n" + fenced("sql", q.Query))
				} else {
					b.WriteString("    " + q.Query + "\n")
				}
			}
		}
	}

	h(2, "Partition key alternatives (ranked)")
	for _, ka := range a.Keys {
		sub(fmt.Sprintf("%s (designed %s)", ka.Container, strings.Join(ka.Design, ", ")))
		var rows [][]string
		for _, c := range ka.Candidates {
			key := strings.Join(c.Key, ", ")
			if c.Build != "" {
				key += " (" + c.Build + ")"
			}
			fits := "yes"
			switch {
			case !c.Fits:
				fits = "NO"
			case !c.Headroom:
				fits = fmt.Sprintf("tight (over %.0f%%)", 100*c.HeadroomShare)
			}
			note := c.Note
			if c.Why != "" && !c.Headroom {
				note = strings.TrimPrefix(note+"; "+c.Why, "; ")
			}
			rows = append(rows, []string{fmt.Sprint(c.Rank), key, c.Kind, fmt.Sprintf("%.0f%%", 100*c.SingleShare), fmt.Sprintf("%.1f", c.FanOutRUs),
				fmt.Sprintf("%.3g / %.0f", c.BusiestRUs, c.LimitRUs), fmt.Sprintf("%.3g / %.0f", c.BusiestGB, c.LimitGB), fits,
				fmt.Sprintf("%.1f", c.RUs), fmt.Sprintf("%.2f", c.MonthlyUSD), note})
		}
		table([]string{"#", "KEY", "KIND", "ONE PARTITION", "FAN-OUT RU/s", "BUSIEST RU/s", "BUSIEST GB", "FITS", "RU/s", "$/MONTH", "NOTE"}, rows)
	}

	h(2, "Embed or reference")
	if len(a.Relations) == 0 {
		b.WriteString("No relationship: no type has a parent and no document holds an array of objects.\n")
	}
	for _, r := range a.Relations {
		sub(fmt.Sprintf("%s: %s → %s (%s)", r.Container, r.Parent, r.Child, r.Kind))
		line("answer: %s", r.Answer)
		line("%.3g a parent at production (at most %.0f); embedded %.1f KB on average, %.1f KB at the most, item limit %.0f KB",
			r.PerParent, r.PerParentMax, r.EmbeddedBytes/1024, r.EmbeddedMaxBytes/1024, r.ItemLimitBytes/1024)
		for _, rule := range r.Rules {
			line("rule: %s", rule)
		}
		var rows [][]string
		for _, o := range r.Options {
			if !o.Priced {
				rows = append(rows, []string{o.Name, "-", "-", "-", "-", notPriced(o.Note)})
				continue
			}
			rows = append(rows, []string{o.Name, fmt.Sprintf("%.2f", o.WriteRU), fmt.Sprintf("%.1f", o.ReadRUs), fmt.Sprintf("%.1f (%s)", o.RUs, signed(o.Change.RUs)),
				fmt.Sprintf("%.2f (%s)", o.Monthly, signedUSD(o.Change.MonthlyUSD)), o.Note})
		}
		table([]string{"OPTION", "CHILD WRITE RU", "READS RU/s", "DESIGN RU/s", "$/MONTH", "NOTE"}, rows)
	}

	h(2, "Secondary container or global secondary index, per cross-partition query")
	if len(a.Secondary) == 0 {
		b.WriteString("No cross-partition query pins a field another key could serve.\n")
	}
	for _, sc := range a.Secondary {
		sub(fmt.Sprintf("%s on %s: %.1f RU/s across partitions; a copy keyed by %s", sc.Pattern, sc.Container, sc.FanOutRUs, sc.Key))
		line("answer: %s", sc.Answer)
		var rows [][]string
		for _, o := range sc.Options {
			name := o.Name
			if o.Preview {
				name += " (preview)"
			}
			if !o.Priced {
				rows = append(rows, []string{name, "-", "-", "-", "-", notPriced(o.Note)})
				continue
			}
			rows = append(rows, []string{name, fmt.Sprintf("%.1f", o.QueryRUs), fmt.Sprintf("%.1f", o.UpkeepRUs), fmt.Sprintf("%.1f (%s)", o.RUs, signed(o.Change.RUs)),
				fmt.Sprintf("%.2f (%s)", o.Monthly, signedUSD(o.Change.MonthlyUSD)), o.Note})
		}
		table([]string{"OPTION", "QUERY RU/s", "UPKEEP RU/s", "DESIGN RU/s", "$/MONTH", "NOTE"}, rows)
		for _, o := range sc.Options {
			if o.Docs != "" {
				line("%s: in preview on the service, %s; %s", o.Name, o.Docs, o.Assumed)
			} else if o.Assumed != "" {
				line("%s: %s", o.Name, o.Assumed)
			}
		}
	}

	h(2, "Search")
	fmt.Fprintf(&b, "%d variant design(s) priced", a.Candidates)
	if a.Capped {
		fmt.Fprintf(&b, "; capped: %d not priced (%s)", len(a.Skipped), strings.Join(a.Skipped, "; "))
	}
	b.WriteString(".\n")
	for _, n := range a.Notes {
		line("%s", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// signed is an RU/s change to one decimal with its sign; signedUSD a monthly change to the cent. A
// change that rounds to zero prints as 0.0 (0.00), with no sign: "-0.0" reads as a saving.
func signed(x float64) string    { return signedN(x, 1) }
func signedUSD(x float64) string { return signedN(x, 2) }

func signedN(x float64, prec int) string {
	s := strconv.FormatFloat(x, 'f', prec, 64)
	switch {
	case strings.Trim(s, "-0.") == "":
		return strings.TrimPrefix(s, "-")
	case x > 0:
		return "+" + s
	}
	return s
}

// WriteVariants writes each recommended variant of a as a design file in dir
// (<design>.<variant>.yaml), headed by what it changes and what advise claims, and returns the
// paths written.
func WriteVariants(dir string, a *Advice, force bool) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []string
	for _, v := range a.Recommended {
		if v.Design == nil {
			continue
		}
		name, data, err := VariantFile(dir, a, v)
		if err != nil {
			return out, err
		}
		write := outfile.Create
		if force {
			write = outfile.Replace
		}
		if err := write(name, data, 0o644); err != nil {
			if errors.Is(err, outfile.ErrExists) {
				return out, fmt.Errorf("%w; give --force to overwrite it", err)
			}
			return out, err
		}
		out = append(out, name)
	}
	return out, nil
}

// VariantFile is the design file WriteVariants writes for v in dir: its path and its text, headed
// by what it changes and what advise claims. validate studio puts the same text in its editor.
func VariantFile(dir string, a *Advice, v Variant) (string, []byte, error) {
	if v.Design == nil {
		return "", nil, fmt.Errorf("variant %s: no design", v.Name)
	}
	d := *v.Design
	d.Name = a.Design + "-" + v.Name
	// variantOf lets compare take a run of the design against a run of this variant.
	d.VariantOf = a.Design
	name := filepath.Join(dir, slug(a.Design)+"."+v.Name+".yaml")
	origin := cmp.Or(a.File, "the design's file or report")
	header := fmt.Sprintf("Variant of %s written by `validate advise`: %s.\nClaim (plan's production figures): %s RU/s on average (writes %s, queries %s, reads %s), %s $/month.\nCheck it: validate run this file, or validate compare %s %s",
		a.Design, v.What, signed(v.Change.RUs), signed(v.Change.WriteRUs), signed(v.Change.QueryRUs), signed(v.Change.ReadRUs), signedUSD(v.Change.MonthlyUSD), origin, name)
	data, err := design.Marshal(&d, header)
	if err != nil {
		return "", nil, fmt.Errorf("variant %s: %w", v.Name, err)
	}
	return name, data, nil
}

// fenced is body in a Markdown code block whose fence is longer than any run of backticks in it,
// so a query or path holding backticks cannot close the block early.
func fenced(info, body string) string {
	longest, run := 0, 0
	for _, r := range body {
		if r != '`' {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + info + "\n" + body + "\n" + fence + "\n"
}

// notPriced is the note of an option without figures: one "not priced:", and never an empty reason.
func notPriced(note string) string {
	note = strings.TrimSpace(strings.TrimPrefix(note, "not priced: "))
	if note == "" {
		note = "no reason was recorded"
	}
	return "not priced: " + note
}
