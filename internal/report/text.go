package report

import (
	"bufio"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/cosmosdv/validate/internal/record"
)

// renderText writes the terminal report: a table of patterns, the reasons, a summary line, the
// request rate per container and the charge-source legend.
func renderText(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Design %s", r.Design.Name)
	if r.Design.File != "" {
		fmt.Fprintf(bw, " (%s)", r.Design.File)
	}
	fmt.Fprintf(bw, "\n%s\n\n", targetLine(r))
	if r.Incomplete != "" {
		fmt.Fprintf(bw, "INCOMPLETE: %s\n\n", r.Incomplete)
	}
	if r.Baseline != nil {
		fmt.Fprintln(bw, "Changes since baseline:")
		compareTextBody(bw, r.Baseline, "  ")
		fmt.Fprintln(bw)
	}

	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tOP\tESTIMATE\tMODELED\tMEASURED\tPRODUCTION\tVERDICT")
	for _, p := range r.Patterns {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.ID, p.Name, p.Op, fmtRU(p.Estimate),
			chargeCell(p.Modeled), measuredCell(r, p.Measured), projectedCell(p), p.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("render text: %w", err)
	}

	first := true
	for _, p := range r.Patterns {
		if len(p.Reasons) == 0 && len(p.Advice) == 0 {
			continue
		}
		if first {
			fmt.Fprintln(bw)
			first = false
		}
		fmt.Fprintf(bw, "%s %s (%s):\n", p.ID, p.Name, p.Verdict)
		for _, reason := range p.Reasons {
			fmt.Fprintf(bw, "  - %s\n", reason)
		}
		for _, a := range p.Advice {
			fmt.Fprintf(bw, "  - advice: %s\n", a)
		}
	}

	var measured []string
	for _, p := range r.Patterns {
		if p.DesignerMeasured > 0 {
			model := "not run"
			if p.Modeled != nil {
				model = fmtRU(p.Modeled.Median) + " RU (median)"
			}
			measured = append(measured, fmt.Sprintf("%s %s: the designer measured %s RU; the model %s; the estimate %s RU", p.ID, p.Name,
				fmtRU(p.DesignerMeasured), model, fmtRU(p.Estimate)))
		}
	}
	if len(measured) > 0 {
		fmt.Fprintln(bw, "\nCharges the designer measured (estimate.measured; the verdict judges the estimate):")
		for _, l := range measured {
			fmt.Fprintf(bw, "  %s\n", l)
		}
	}

	fmt.Fprintf(bw, "\n%s\n", summaryLine(r))

	if lines := projectionLines(r); len(lines) > 0 {
		fmt.Fprintln(bw, "\nProduction scale (queries; point operations do not change with scale):")
		for _, l := range lines {
			fmt.Fprintf(bw, "  %s\n", l)
		}
	}
	if lines := estimatorLines(r); len(lines) > 0 {
		fmt.Fprintf(bw, "\nEstimator check at the seeded scale — %s.\n", estimatorHead)
		for _, l := range lines {
			fmt.Fprintf(bw, "  %s\n", l)
		}
	}

	if len(r.Containers) > 0 {
		fmt.Fprintln(bw, "\nRequest rate per container (RU/s = RU per execution × requests per second; \"production\": queries at their production figure):")
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "CONTAINER\tTHROUGHPUT\tESTIMATE AVG/PEAK\tMODELED AVG/PEAK\tMEASURED AVG/PEAK")
		for _, c := range r.Containers {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Name, c.Throughput, loadCell(&c.Estimate), loadCell(c.Modeled), loadCell(c.Measured))
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("render text: %w", err)
		}
	}

	if lines := trafficLines(r); len(lines) > 0 {
		fmt.Fprintln(bw, "\nTraffic by the hour (plan's modeled forecast at the designed throughput):")
		for _, l := range lines {
			fmt.Fprintln(bw, "  "+l)
		}
	}

	if len(r.StageFindings) > 0 {
		fmt.Fprintln(bw, "\nFindings:")
		for _, f := range r.StageFindings {
			fmt.Fprintf(bw, "  %s %s: %s: %s\n", f.Level, f.Stage, f.Subject, f.Message)
		}
	}

	if lines := throttleLines(r); len(lines) > 0 {
		fmt.Fprintln(bw, "\nThrottling (429 responses, the SDK's retries included):")
		for _, l := range lines {
			fmt.Fprintf(bw, "  %s\n", l)
		}
	}

	if indexes, drift := accountLines(r); len(indexes)+len(drift) > 0 {
		if len(indexes) > 0 {
			fmt.Fprintln(bw, "\nIndexes (the target's index metrics beside our index plan and advise's changes; a potential index is a hint to test, not proof):")
			for _, l := range indexes {
				fmt.Fprintf(bw, "  %s\n", l)
			}
		}
		if len(drift) > 0 {
			fmt.Fprintln(bw, "\nModel drift (measured beyond tolerance of the model; facts for the next validate calibrate):")
			for _, l := range drift {
				fmt.Fprintf(bw, "  %s\n", l)
			}
		}
	}
	fmt.Fprintln(bw, "\nLegend:")
	for _, l := range legendLines(r) {
		fmt.Fprintf(bw, "  %s\n", l)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render text: %w", err)
	}
	return nil
}

// loadCell is the load capacity is judged on: a run's at production scale when the design states
// one (its queries' projected medians), marked so.
func loadCell(l *Load) string {
	if l == nil {
		return "—"
	}
	avg, peak := l.judged()
	s := l.AvgBand.Spanned(fmtRate(avg), fmtRate) + " / " + l.PeakBand.Spanned(fmtRate(peak), fmtRate)
	if l.Source != "estimate" {
		s += " " + SourceLabel(record.ChargeSource(l.Source)) + scaleLabel(l)
	}
	return record.NameRules(s, l.AvgBand, l.PeakBand)
}

// scaleLabel marks a load carried to production scale.
func scaleLabel(l *Load) string {
	if l.Scale == VerdictOnProjected {
		return ", production"
	}
	return ""
}
