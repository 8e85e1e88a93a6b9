package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/cosmosdv/validate/internal/record"
)

// Bar colours per series. Placeholder charges are drawn hollow so they never read as a measurement.
var seriesColor = map[string]string{
	"estimate":                               "#8a8f98",
	"baseline":                               "#c9ced6",
	string(record.ChargeModel):               "#2f6fde",
	string(record.ChargeService):             "#1a9e5c",
	string(record.ChargeEmulatorIndicative):  "#d98b1a",
	string(record.ChargeEmulatorPlaceholder): "#ffffff",
	seriesProduction:                         "#6a3fb5",
}

// seriesProduction is the pattern chart's series of the estimator's production figures.
const seriesProduction = "production"

// patternBars is the most bars a pattern's group has: estimate, modeled, measured, production.
const patternBars = 4

// renderHTML writes one self-contained page: inline CSS, inline SVG charts drawn here, no script and
// no network access.
func renderHTML(w io.Writer, r *Report) error {
	data := struct {
		R            *Report
		Summary      string
		Target       string
		PatternChart template.HTML
		LoadChart    template.HTML
		TrafficChart template.HTML
		TrafficLines []string
		Legend       []string
		Series       []legendItem
		Notable      []PatternResult
		Head         Verdict
		Regressions  []PatternChange
		CostLine     string
	}{
		Head:         headVerdict(r),
		R:            r,
		Summary:      summaryLine(r),
		Target:       targetLine(r),
		PatternChart: template.HTML(patternChart(r)),
		LoadChart:    template.HTML(loadChart(r)),
		TrafficChart: template.HTML(trafficChart(r)),
		TrafficLines: trafficLines(r),
		Legend:       legendLines(r),
		Series:       seriesLegend(r),
	}
	for _, p := range r.Patterns {
		if notable(p) {
			data.Notable = append(data.Notable, p)
		}
	}
	if c := r.Baseline; c != nil {
		for _, p := range c.Ordered() {
			if p.Change == Regression {
				data.Regressions = append(data.Regressions, p)
			}
		}
		data.CostLine = upperFirst(c.CostLine())
	}
	if err := pageTemplate.Execute(w, data); err != nil {
		return fmt.Errorf("render html: %w", err)
	}
	return nil
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"ru":              fmtRU,
	"charge":          chargeCell,
	"measured":        func(r *Report, c *Charge) string { return measuredCell(r, c) },
	"projected":       projectedCell,
	"projectionLines": projectionLines,
	"estimatorLines":  estimatorLines,
	"indexLines":      func(r *Report) []string { ix, _ := accountLines(r); return ix },
	"estimatorHead":   func() string { return estimatorHead },
	"load":            loadCell,
	"mark":            verdictMark,
	"drift":           driftCell,
	"vchange":         verdictChange,
	"changeOf":        func(r *Report, id string) *PatternChange { return r.Baseline.Of(id) },
	"baselineName":    baselineName,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.R.Design.Name}} — Cosmos DB design report</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1d2330;background:#fff}
h1{font-size:1.5rem;margin:0 0 .3rem}h2{font-size:1.15rem;margin:2rem 0 .6rem;border-bottom:1px solid #e3e6eb;padding-bottom:.2rem}
.meta{color:#5b6372;margin:.2rem 0}
.summary{font-weight:600;margin:.6rem 0}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{padding:.35rem .6rem;border-bottom:1px solid #e3e6eb;text-align:left;vertical-align:top}
th{background:#f5f6f8;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.v{font-weight:600;white-space:nowrap}.v-pass{color:#1a7f4b}.v-warn{color:#a86400}.v-fail{color:#c62828}.v-error{color:#7b1fa2}
.card{border:1px solid #e3e6eb;border-radius:6px;padding:.6rem 1rem;margin:.6rem 0}
.card h3{margin:.1rem 0 .4rem;font-size:1rem}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;background:#f5f6f8;border-radius:4px}pre{padding:.5rem;white-space:pre-wrap;overflow-wrap:anywhere}
svg{max-width:100%;height:auto;display:block}
.scroll{overflow-x:auto;max-width:100%}
tr.row-fail td{background:#fdecea}tr.row-error td{background:#f5e9f8}tr.row-warn td{background:#fff6e5}
tr.row-fail td:first-child{box-shadow:inset 4px 0 0 #c62828}tr.row-error td:first-child{box-shadow:inset 4px 0 0 #7b1fa2}tr.row-warn td:first-child{box-shadow:inset 4px 0 0 #a86400}
.mark{display:inline-block;width:1.2em;text-align:center;font-weight:700}
.legend{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;margin:.4rem 0 .8rem;padding:.5rem .8rem;border:1px solid #e3e6eb;border-radius:6px;font-size:.9rem}
.legend span{white-space:nowrap}.sw{display:inline-block;width:.8em;height:.8em;margin-right:.35em;vertical-align:-.05em;border:1px solid #c9ced6}
.badge{display:inline-block;border-radius:3px;padding:0 .4em;color:#fff;font-weight:600}.b-pass{background:#1a7f4b}.b-warn{background:#a86400}.b-fail{background:#c62828}.b-error{background:#7b1fa2}
h1 code{font-size:inherit;background:none}
svg text{font:11px system-ui,sans-serif;fill:#1d2330}
footer{margin-top:2rem;color:#5b6372;font-size:.85rem}
</style>
</head>
<body>
<header>
<h1><span class="badge b-{{.Head}}">{{.Head}}</span> Cosmos DB design <code>{{.R.Design.Name}}</code></h1>
{{if .R.Design.File}}<p class="meta">{{.R.Design.File}} · {{.R.Design.Fingerprint}}</p>{{end}}
<p class="meta">{{.Target}}</p>
{{with .R.Incomplete}}<p><strong>Incomplete:</strong> {{.}}</p>
{{end}}<p class="summary">{{.Summary}}</p>
</header>
<div class="legend" aria-label="legend">
<span><span class="mark v-pass">✓</span>pass: within tolerance</span>
<span><span class="mark v-warn">!</span>warn: close to the edge, or figures disagree</span>
<span><span class="mark v-fail">✗</span>fail: outside tolerance or an expectation not met</span>
<span><span class="mark v-error">‼</span>error: an execution failed</span>
{{range .Series}}<span><span class="sw" style="background:{{.Color}}{{if .Hollow}};border-style:dashed{{end}}"></span>{{.Label}}</span>
{{end}}<span><span class="sw" style="background:#e8f5ee"></span>tolerance band around the estimate</span>
</div>
{{with .R.Baseline}}<section id="baseline">
<h2>Changes since baseline</h2>
<p class="meta">baseline {{baselineName .}} · {{.Summary.Regressions}} regressed, {{.Summary.Improvements}} improved, {{.Summary.Unchanged}} unchanged, {{.Summary.Added}} added, {{.Summary.Removed}} removed; verdicts changed: {{.Summary.VerdictChanges}}</p>
{{with .Variant}}<p class="meta">{{.}}</p>{{end}}{{with .Model}}<h3>Model changed</h3><p>{{.Note}}</p>{{end}}{{range .Forced}}<p class="meta">forced comparison: {{.}}</p>{{end}}
{{if $.Regressions}}<ul class="regressions">{{range $.Regressions}}<li class="v-fail"><strong>✗ {{.ID}} {{.Name}}</strong>: {{range $i, $r := .Reasons}}{{if $i}}; {{end}}{{$r}}{{end}}</li>{{end}}</ul>{{end}}
{{with $.CostLine}}<p>{{.}}</p>{{end}}
{{if .DesignChanges}}<h3>Design changes</h3><ul>{{range .DesignChanges}}<li>{{.}}</li>{{end}}</ul>{{end}}
<div class="scroll"><table>
<thead><tr><th>ID</th><th>Pattern</th><th>Change</th><th>Modeled (RU)</th><th>Measured (RU)</th><th>Production (RU)</th><th>Verdict</th></tr></thead>
<tbody>
{{range .Ordered}}<tr class="change-{{.Change}}{{if eq .Change "regression"}} row-fail{{end}}"><td>{{.ID}}</td><td>{{.Name}}</td><td>{{.Change}}</td><td class="num">{{drift .Modeled}}</td><td class="num">{{drift .Measured}}</td><td class="num">{{drift .Production}}</td><td>{{vchange .}}</td></tr>
{{end}}</tbody>
</table></div>
</section>
{{end}}<h2>Charge per execution: estimate, modeled, measured{{if .R.Baseline}}, baseline{{end}}</h2>
<div class="scroll">{{.PatternChart}}</div>
<h2>Patterns</h2>
<div class="scroll"><table>
<thead><tr><th>ID</th><th>Pattern</th><th>Op</th><th>Estimate (RU)</th><th>Modeled (RU)</th><th>Measured (RU)</th><th>Production (RU)</th>{{if .R.Baseline}}<th>Since baseline</th>{{end}}<th>Verdict</th></tr></thead>
<tbody>
{{range .R.Patterns}}<tr class="row-{{.Verdict}}"><td>{{.ID}}</td><td>{{.Name}}</td><td>{{.Op}}</td><td class="num">{{ru .Estimate}}</td><td class="num">{{charge .Modeled}}</td><td class="num">{{measured $.R .Measured}}</td><td class="num">{{projected .}}</td>{{if $.R.Baseline}}<td>{{with changeOf $.R .ID}}{{.Change}}{{end}}</td>{{end}}<td class="v v-{{.Verdict}}"><span class="mark">{{mark .Verdict}}</span>{{.Verdict}}</td></tr>
{{end}}</tbody>
</table></div>
{{if .Notable}}<h2>Details</h2>
{{range .Notable}}<div class="card"><h3 class="v-{{.Verdict}}"><span class="mark">{{mark .Verdict}}</span>{{.ID}} {{.Name}} ({{.Verdict}})</h3>
{{if .Query}}<pre>{{.Query}}</pre>{{end}}
<ul>{{range .Reasons}}<li>{{.}}</li>{{end}}{{range .Advice}}<li>advice: {{.}}</li>{{end}}</ul></div>
{{end}}{{end}}
{{with projectionLines .R}}<h2>Production scale</h2>
<pre>{{range .}}{{.}}
{{end}}</pre>{{end}}
{{with estimatorLines .R}}<h2>Estimator check at the seeded scale</h2>
<p>{{estimatorHead}}</p>
<pre>{{range .}}{{.}}
{{end}}</pre>{{end}}
{{with indexLines .R}}<h2>Indexes</h2>
<p>The target's index metrics beside our index plan and advise's changes; a potential index is a hint to test, not proof.</p>
<ul>{{range .}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{if .R.Containers}}<h2>Request rate per container (RU/s)</h2>
<div class="scroll">{{.LoadChart}}</div>
<div class="scroll"><table>
<thead><tr><th>Container</th><th>Throughput</th><th>Estimate avg / peak</th><th>Modeled avg / peak</th><th>Measured avg / peak</th></tr></thead>
<tbody>
{{range .R.Containers}}<tr><td>{{.Name}}</td><td>{{.Throughput}}</td><td class="num">{{load .Estimate}}</td><td class="num">{{load .Modeled}}</td><td class="num">{{load .Measured}}</td></tr>
{{end}}</tbody>
</table></div>{{end}}
{{if .R.Traffic}}<h2>Traffic by the hour (plan's modeled forecast)</h2>
<p>A day without events and every event hour, at the designed throughput: the design's traffic shape applied to the modeled load; the run's executions are not 24-hour runs.</p>
<div class="scroll">{{.TrafficChart}}</div>
<ul>{{range .TrafficLines}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{if .R.StageFindings}}<h2>Findings</h2>
<ul>{{range .R.StageFindings}}<li{{if eq .Level "fail" "error"}} class="v-fail"{{end}}><strong>{{if eq .Level "fail" "error"}}✗ {{end}}{{.Level}}</strong> {{.Stage}} · {{.Subject}}: {{.Message}}</li>{{end}}</ul>{{end}}
<footer>
<p>Charge sources:</p>
<ul>{{range .Legend}}<li>{{.}}</li>{{end}}</ul>
<p>{{.R.Tool.Name}} {{.R.Tool.Version}} · report schema {{.R.SchemaVersion}}</p>
</footer>
</body>
</html>
`))

// verdictMark is the symbol that tells a verdict apart without colour.
func verdictMark(v Verdict) string {
	switch v {
	case Pass:
		return "✓"
	case Warn:
		return "!"
	case Fail:
		return "✗"
	case Error:
		return "‼"
	}
	return "·"
}

// legendItem is one series of the charts, as the page's legend names it.
type legendItem struct {
	Label, Color string
	Hollow       bool
}

func seriesLegend(r *Report) []legendItem {
	items := []legendItem{{Label: "estimate (designer)", Color: seriesColor["estimate"]}}
	for _, s := range sourcesUsed(r) {
		label := "modeled (model)"
		if r.ModelCard != "" {
			label = "modeled (" + r.ModelCard + ")"
		}
		if s != record.ChargeModel {
			label = "measured (" + string(s) + ")"
		}
		items = append(items, legendItem{Label: label + " at the seeded scale", Color: seriesColor[string(s)], Hollow: s == record.ChargeEmulatorPlaceholder})
	}
	for _, p := range r.Patterns {
		if c := judgedCharge(p); c != nil && c.VerdictOn == VerdictOnProjected {
			items = append(items, legendItem{Label: "production (the estimator's, at the design's production scale)", Color: seriesColor[seriesProduction]})
			break
		}
	}
	if r.Baseline != nil {
		items = append(items, legendItem{Label: "baseline (the judged figure in the baseline run)", Color: seriesColor["baseline"]})
	}
	return items
}

// bar is one bar of a chart.
type bar struct {
	series string // "estimate" or a charge source
	label  string // legend text, e.g. "measured (service)"
	value  float64
	peak   float64 // for load charts: the peak drawn behind the average
}

const (
	chartTop    = 24.0
	chartHeight = 260.0
	chartLeft   = 56.0
	chartBottom = 52.0
	barWidth    = 20.0
	groupGap    = 28.0
	labelRoom   = 60.0 // px above the tallest bar for its value label
)

// shortLabel keeps an axis label within its group's width; the full text is in the title.
func shortLabel(s string) string {
	if r := []rune(s); len(r) > 11 {
		return string(r[:10]) + "…"
	}
	return s
}

// patternChart draws grouped bars, one group per pattern: estimate, modeled and measured at the
// seeded scale (the executions' medians), and the estimator's production figure where the design
// states a production scale, with the tolerance band around the estimate shaded behind them.
func patternChart(r *Report) string {
	groups := make([][]bar, len(r.Patterns))
	maxV, minV := 0.0, 0.0
	for i, p := range r.Patterns {
		// Each bar is labelled with the figure it is: a seeded median is never drawn as a
		// production figure, nor the production figure over a column labelled modeled.
		g := []bar{{series: "estimate", label: "estimate", value: p.Estimate}}
		if p.Modeled != nil {
			g = append(g, bar{series: string(record.ChargeModel), label: "modeled at the seeded scale", value: p.Modeled.Median})
		}
		if p.Measured != nil {
			g = append(g, bar{series: string(p.Measured.Source), label: "measured (" + SourceLabel(p.Measured.Source) + ") at the seeded scale", value: p.Measured.Median})
		}
		if c := judgedCharge(p); c != nil && c.VerdictOn == VerdictOnProjected {
			g = append(g, bar{series: seriesProduction, label: "production (estimated)", value: c.Projected})
		}
		if b, ok := baselineBar(r, p); ok {
			g = append(g, b)
		}
		groups[i] = g
		for _, b := range g {
			maxV = math.Max(maxV, b.value)
			if b.value > 0 && (minV == 0 || b.value < minV) {
				minV = b.value
			}
		}
		band := bandRU(p.Tolerance, p.Estimate)
		maxV = math.Max(maxV, p.Estimate+band)
	}
	var sb strings.Builder
	title := "Charge per execution of each pattern, RU"
	logScale := minV > 0 && maxV/minV > logScaleSpan
	if logScale {
		title += " (logarithmic scale: the charges span more than three orders of magnitude)"
	}
	per := patternBars
	if r.Baseline != nil {
		per++ // the baseline's bar beside the run's
	}
	scale := chartFrameScaled(&sb, title, len(groups), per, minV, maxV, "RU", logScale)
	for i, p := range r.Patterns {
		x0 := chartLeft + groupGap/2 + float64(i)*(float64(per)*barWidth+groupGap)
		fmt.Fprintf(&sb, `<g class="bar-group" data-pattern="%s">`, esc(p.ID))
		band := bandRU(p.Tolerance, p.Estimate)
		lo, hi := math.Max(p.Estimate-band, 0), p.Estimate+band
		fmt.Fprintf(&sb, `<rect class="band" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#1a9e5c" fill-opacity="0.10"><title>%s tolerance: %s–%s RU</title></rect>`,
			x0-3, scale(hi), float64(per)*barWidth+6, math.Max(scale(lo)-scale(hi), 0.5), esc(p.ID), fmtRU(lo), fmtRU(hi))
		for j, b := range groups[i] {
			drawBar(&sb, x0+float64(j)*barWidth, b, scale, p.ID)
		}
		if p.Modeled == nil && p.Measured == nil {
			fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="9" fill="#7b1fa2">no charge</text>`,
				x0+float64(per)/2*barWidth, chartTop+chartHeight-4)
		}
		fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" text-anchor="middle" class="v-%s">%s</text>`,
			x0+float64(per)/2*barWidth, chartTop+chartHeight+16, p.Verdict, esc(shortLabel(p.ID)))
		fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10" class="v-%s">%s %s</text>`,
			x0+float64(per)/2*barWidth, chartTop+chartHeight+30, p.Verdict, verdictMark(p.Verdict), esc(string(p.Verdict)))
		sb.WriteString(`</g>`)
	}
	sb.WriteString(`</svg>`)
	return sb.String()
}

// baselineBar is the baseline's figure for the charge a pattern's verdict rests on, at the scale its
// bar is drawn (projected to production when the verdict judges that): the bar beside the run's.
func baselineBar(r *Report, p PatternResult) (bar, bool) {
	pc := r.Baseline.Of(p.ID)
	c := judgedCharge(p)
	if pc == nil || c == nil {
		return bar{}, false
	}
	d, label := pc.Modeled, "baseline (modeled"
	if c == p.Measured && pc.Measured != nil {
		d, label = pc.Measured, "baseline (measured, "+SourceLabel(c.Source)
	}
	if c.VerdictOn == VerdictOnProjected {
		d, label = pc.Production, label+", projected to production"
	}
	if d == nil {
		return bar{}, false
	}
	return bar{series: "baseline", label: fmt.Sprintf("%s; now %s, %+.0f%%, %s)", label, fmtRU(d.New), d.Pct, pc.Change), value: d.Old}, true
}

// loadChart draws per container the RU/s at peak (light) with the average (solid) in front.
func loadChart(r *Report) string {
	maxV := 0.0
	for _, c := range r.Containers {
		maxV = math.Max(maxV, math.Max(c.Estimate.Peak, c.Provisioned))
		for _, l := range []*Load{c.Modeled, c.Measured} {
			if l != nil {
				_, peak := l.judged()
				maxV = math.Max(maxV, peak)
			}
		}
	}
	var sb strings.Builder
	scale := chartFrame(&sb, "Request rate per container, RU/s (solid: average, light: peak; dashed: provisioned)", len(r.Containers), 3, maxV, "RU/s")
	for i, c := range r.Containers {
		x0 := chartLeft + groupGap/2 + float64(i)*(3*barWidth+groupGap)
		fmt.Fprintf(&sb, `<g class="load-group" data-container="%s">`, esc(c.Name))
		bars := []bar{{series: "estimate", label: "estimate", value: c.Estimate.Avg, peak: c.Estimate.Peak}}
		if c.Modeled != nil {
			avg, peak := c.Modeled.judged()
			bars = append(bars, bar{series: string(record.ChargeModel), label: "modeled" + scaleLabel(c.Modeled), value: avg, peak: peak})
		}
		if c.Measured != nil {
			avg, peak := c.Measured.judged()
			bars = append(bars, bar{series: c.Measured.Source, label: "measured (" + SourceLabel(record.ChargeSource(c.Measured.Source)) + ")" + scaleLabel(c.Measured), value: avg, peak: peak})
		}
		for j, b := range bars {
			drawBar(&sb, x0+float64(j)*barWidth, b, scale, c.Name)
		}
		if c.Provisioned > 0 {
			y := scale(c.Provisioned)
			fmt.Fprintf(&sb, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#c62828" stroke-dasharray="4 3"><title>%s provisioned %s RU/s</title></line>`,
				x0-4, x0+3*barWidth+4, y, y, esc(c.Name), fmtRate(c.Provisioned))
		}
		fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" text-anchor="middle">%s<title>%s</title></text>`, x0+1.5*barWidth, chartTop+chartHeight+16, esc(shortLabel(c.Name)), esc(c.Name))
		sb.WriteString(`</g>`)
	}
	sb.WriteString(`</svg>`)
	return sb.String()
}

// logScaleSpan is the ratio of the largest to the smallest charge past which the pattern chart
// switches to a logarithmic axis: on a linear one a 300,000 RU estimate flattens every 3 RU bar.
const logScaleSpan = 1000

// atScale says in a bar's label when it shows a projection to production scale.
func atScale(c *Charge) string {
	if c.VerdictOn == VerdictOnProjected {
		return ", projected to production"
	}
	return ""
}

// chartFrameScaled is chartFrame on a linear axis, or on a logarithmic one from the power of ten
// below minV to the one above maxV, with a grid line at each power of ten.
func chartFrameScaled(sb *strings.Builder, title string, groups, perGroup int, minV, maxV float64, unit string, logScale bool) func(float64) float64 {
	if !logScale {
		return chartFrame(sb, title, groups, perGroup, maxV, unit)
	}
	lo := math.Floor(math.Log10(minV))
	// Headroom above the tallest bar for its vertical value label, as on the linear axis.
	hi := math.Log10(maxV) + (math.Log10(maxV)-lo)*labelRoom/(chartHeight-labelRoom)
	width := math.Max(chartLeft+float64(groups)*(float64(perGroup)*barWidth+groupGap)+20, 640)
	height := chartTop + chartHeight + chartBottom + 22
	scale := func(v float64) float64 {
		if v <= 0 {
			return chartTop + chartHeight
		}
		f := (math.Log10(v) - lo) / (hi - lo)
		return chartTop + chartHeight - math.Max(f, 0)*chartHeight
	}
	fmt.Fprintf(sb, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`,
		width, height, width, height, esc(title))
	fmt.Fprintf(sb, `<title>%s</title>`, esc(title))
	for e := lo; e <= hi; e++ {
		v := math.Pow(10, e)
		y := scale(v)
		fmt.Fprintf(sb, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#e3e6eb"/>`, chartLeft, width-10, y, y)
		fmt.Fprintf(sb, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`, chartLeft-6, y+4, powerLabel(e))
	}
	fmt.Fprintf(sb, `<text x="12" y="%.1f" transform="rotate(-90 12 %.1f)" text-anchor="middle">%s (log)</text>`,
		chartTop+chartHeight/2, chartTop+chartHeight/2, esc(unit))
	return scale
}

// powerLabel is a short tick label for 10^e: 0.01, 1, 100, 10k, 1M, 100M.
func powerLabel(e float64) string {
	switch {
	case e >= 9:
		return fmt.Sprintf("%.0fG", math.Pow(10, e-9))
	case e >= 6:
		return fmt.Sprintf("%.0fM", math.Pow(10, e-6))
	case e >= 4:
		return fmt.Sprintf("%.0fk", math.Pow(10, e-3))
	}
	return fmtRU(math.Pow(10, e))
}

// chartFrame opens the SVG, draws the axis and grid and returns the value → y mapping.
func chartFrame(sb *strings.Builder, title string, groups, perGroup int, maxV float64, unit string) func(float64) float64 {
	// Headroom above the tallest bar for its vertical value label (up to about 9 characters).
	top := niceCeil(maxV * chartHeight / (chartHeight - labelRoom))
	width := math.Max(chartLeft+float64(groups)*(float64(perGroup)*barWidth+groupGap)+20, 640)
	height := chartTop + chartHeight + chartBottom + 22
	scale := func(v float64) float64 { return chartTop + chartHeight - v/top*chartHeight }
	fmt.Fprintf(sb, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`,
		width, height, width, height, esc(title))
	fmt.Fprintf(sb, `<title>%s</title>`, esc(title))
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		y := scale(v)
		fmt.Fprintf(sb, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#e3e6eb"/>`, chartLeft, width-10, y, y)
		fmt.Fprintf(sb, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`, chartLeft-6, y+4, fmtRU(v))
	}
	fmt.Fprintf(sb, `<text x="12" y="%.1f" transform="rotate(-90 12 %.1f)" text-anchor="middle">%s</text>`,
		chartTop+chartHeight/2, chartTop+chartHeight/2, esc(unit))
	return scale
}

func drawBar(sb *strings.Builder, x float64, b bar, scale func(float64) float64, subject string) {
	color := seriesColor[b.series]
	if color == "" {
		color = "#999999"
	}
	stroke := ""
	if b.series == string(record.ChargeEmulatorPlaceholder) {
		stroke = ` stroke="#8a8f98" stroke-dasharray="3 2"`
	}
	base := scale(0)
	if b.peak > b.value {
		y := scale(b.peak)
		fmt.Fprintf(sb, `<rect class="bar peak" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.3"%s><title>%s %s peak: %s</title></rect>`,
			x+1, y, barWidth-2, math.Max(base-y, 0), color, stroke, esc(subject), esc(b.label), fmtRate(b.peak))
	}
	y := scale(b.value)
	fmt.Fprintf(sb, `<rect class="bar" data-series="%s" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"%s><title>%s %s: %s</title></rect>`,
		esc(b.series), x+1, y, barWidth-2, math.Max(base-y, 0.5), color, stroke, esc(subject), esc(b.label), fmtRate(b.value))
	// Vertical, so that the labels of neighbouring bars never overlap; chartFrame leaves headroom above
	// the tallest bar for them.
	fmt.Fprintf(sb, `<text x="%.1f" y="%.1f" transform="rotate(-90 %.1f %.1f)" font-size="10">%s</text>`, x+barWidth/2+3.5, y-4, x+barWidth/2+3.5, y-4, fmtRate(b.value))
}

// niceCeil rounds up to 1, 2, 2.5 or 5 times a power of ten, so axis ticks are round numbers.
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p+1e-9 {
			return m * p
		}
	}
	return 10 * p
}

func esc(s string) string { return template.HTMLEscapeString(s) }
