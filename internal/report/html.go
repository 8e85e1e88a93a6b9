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
	string(record.ChargeModel):               "#2f6fde",
	string(record.ChargeService):             "#1a9e5c",
	string(record.ChargeEmulatorIndicative):  "#d98b1a",
	string(record.ChargeEmulatorPlaceholder): "#ffffff",
}

// renderHTML writes one self-contained page: inline CSS, inline SVG charts drawn here, no script and
// no network access.
func renderHTML(w io.Writer, r *Report) error {
	data := struct {
		R            *Report
		Summary      string
		Target       string
		PatternChart template.HTML
		LoadChart    template.HTML
		Legend       []string
		Notable      []PatternResult
	}{
		R:            r,
		Summary:      summaryLine(r),
		Target:       targetLine(r),
		PatternChart: template.HTML(patternChart(r)),
		LoadChart:    template.HTML(loadChart(r)),
		Legend:       legendLines(r),
	}
	for _, p := range r.Patterns {
		if notable(p) {
			data.Notable = append(data.Notable, p)
		}
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
	"load":            loadCell,
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
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;background:#f5f6f8;border-radius:4px}pre{padding:.5rem;overflow-x:auto}
svg{max-width:100%;height:auto;display:block}
.badge{display:inline-block;border-radius:3px;padding:0 .4em;color:#fff;font-weight:600}.b-pass{background:#1a7f4b}.b-warn{background:#a86400}.b-fail{background:#c62828}.b-error{background:#7b1fa2}
h1 code{font-size:inherit;background:none}
svg text{font:11px system-ui,sans-serif;fill:#1d2330}
footer{margin-top:2rem;color:#5b6372;font-size:.85rem}
</style>
</head>
<body>
<header>
<h1><span class="badge b-{{.R.Summary.Verdict}}">{{.R.Summary.Verdict}}</span> Cosmos DB design <code>{{.R.Design.Name}}</code></h1>
{{if .R.Design.File}}<p class="meta">{{.R.Design.File}} · {{.R.Design.Fingerprint}}</p>{{end}}
<p class="meta">{{.Target}}</p>
<p class="summary">{{.Summary}}</p>
</header>
<h2>Charge per execution: estimate, modeled, measured</h2>
{{.PatternChart}}
<h2>Patterns</h2>
<table>
<thead><tr><th>ID</th><th>Pattern</th><th>Op</th><th>Estimate (RU)</th><th>Modeled (RU)</th><th>Measured (RU)</th><th>Production (RU)</th><th>Verdict</th></tr></thead>
<tbody>
{{range .R.Patterns}}<tr><td>{{.ID}}</td><td>{{.Name}}</td><td>{{.Op}}</td><td class="num">{{ru .Estimate}}</td><td class="num">{{charge .Modeled}}</td><td class="num">{{measured $.R .Measured}}</td><td class="num">{{projected .}}</td><td class="v v-{{.Verdict}}">{{.Verdict}}</td></tr>
{{end}}</tbody>
</table>
{{if .Notable}}<h2>Details</h2>
{{range .Notable}}<div class="card"><h3 class="v-{{.Verdict}}">{{.ID}} {{.Name}} ({{.Verdict}})</h3>
{{if .Query}}<pre>{{.Query}}</pre>{{end}}
<ul>{{range .Reasons}}<li>{{.}}</li>{{end}}{{range .Advice}}<li>advice: {{.}}</li>{{end}}</ul></div>
{{end}}{{end}}
{{with projectionLines .R}}<h2>Production scale</h2>
<pre>{{range .}}{{.}}
{{end}}</pre>{{end}}
{{if .R.Containers}}<h2>Request rate per container (RU/s)</h2>
{{.LoadChart}}
<table>
<thead><tr><th>Container</th><th>Throughput</th><th>Estimate avg / peak</th><th>Modeled avg / peak</th><th>Measured avg / peak</th></tr></thead>
<tbody>
{{range .R.Containers}}<tr><td>{{.Name}}</td><td>{{.Throughput}}</td><td class="num">{{load .Estimate}}</td><td class="num">{{load .Modeled}}</td><td class="num">{{load .Measured}}</td></tr>
{{end}}</tbody>
</table>{{end}}
{{if .R.StageFindings}}<h2>Findings</h2>
<ul>{{range .R.StageFindings}}<li><strong>{{.Level}}</strong> {{.Stage}} · {{.Subject}}: {{.Message}}</li>{{end}}</ul>{{end}}
<footer>
<p>Charge sources:</p>
<ul>{{range .Legend}}<li>{{.}}</li>{{end}}</ul>
<p>{{.R.Tool.Name}} {{.R.Tool.Version}} · report schema {{.R.SchemaVersion}}</p>
</footer>
</body>
</html>
`))

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
)

// patternChart draws grouped bars, one group per pattern: estimate, modeled and measured, with the
// tolerance band around the estimate shaded behind them.
func patternChart(r *Report) string {
	groups := make([][]bar, len(r.Patterns))
	maxV := 0.0
	for i, p := range r.Patterns {
		g := []bar{{series: "estimate", label: "estimate", value: p.Estimate}}
		if p.Modeled != nil {
			g = append(g, bar{series: string(record.ChargeModel), label: "modeled", value: p.Modeled.Median})
		}
		if p.Measured != nil {
			g = append(g, bar{series: string(p.Measured.Source), label: "measured (" + SourceLabel(p.Measured.Source) + ")", value: p.Measured.Median})
		}
		groups[i] = g
		for _, b := range g {
			maxV = math.Max(maxV, b.value)
		}
		band := bandRU(p.Tolerance, p.Estimate)
		maxV = math.Max(maxV, p.Estimate+band)
	}
	var sb strings.Builder
	scale := chartFrame(&sb, "Charge per execution of each pattern, RU", len(groups), 3, maxV, "RU")
	for i, p := range r.Patterns {
		x0 := chartLeft + groupGap/2 + float64(i)*(3*barWidth+groupGap)
		fmt.Fprintf(&sb, `<g class="bar-group" data-pattern="%s">`, esc(p.ID))
		band := bandRU(p.Tolerance, p.Estimate)
		lo, hi := math.Max(p.Estimate-band, 0), p.Estimate+band
		fmt.Fprintf(&sb, `<rect class="band" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#1a9e5c" fill-opacity="0.10"><title>%s tolerance: %s–%s RU</title></rect>`,
			x0-3, scale(hi), 3*barWidth+6, math.Max(scale(lo)-scale(hi), 0.5), esc(p.ID), fmtRU(lo), fmtRU(hi))
		for j, b := range groups[i] {
			drawBar(&sb, x0+float64(j)*barWidth, b, scale, p.ID)
		}
		if p.Modeled == nil && p.Measured == nil {
			fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="9" fill="#7b1fa2">no charge</text>`,
				x0+2*barWidth, chartTop+chartHeight-4)
		}
		fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" text-anchor="middle" class="v-%s">%s</text>`,
			x0+1.5*barWidth, chartTop+chartHeight+16, p.Verdict, esc(p.ID))
		fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10">%s</text>`,
			x0+1.5*barWidth, chartTop+chartHeight+30, esc(string(p.Verdict)))
		sb.WriteString(`</g>`)
	}
	chartLegend(&sb, r, true)
	sb.WriteString(`</svg>`)
	return sb.String()
}

// loadChart draws per container the RU/s at peak (light) with the average (solid) in front.
func loadChart(r *Report) string {
	maxV := 0.0
	for _, c := range r.Containers {
		maxV = math.Max(maxV, math.Max(c.Estimate.Peak, c.Provisioned))
		for _, l := range []*Load{c.Modeled, c.Measured} {
			if l != nil {
				maxV = math.Max(maxV, l.Peak)
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
			bars = append(bars, bar{series: string(record.ChargeModel), label: "modeled", value: c.Modeled.Avg, peak: c.Modeled.Peak})
		}
		if c.Measured != nil {
			bars = append(bars, bar{series: c.Measured.Source, label: "measured (" + SourceLabel(record.ChargeSource(c.Measured.Source)) + ")", value: c.Measured.Avg, peak: c.Measured.Peak})
		}
		for j, b := range bars {
			drawBar(&sb, x0+float64(j)*barWidth, b, scale, c.Name)
		}
		if c.Provisioned > 0 {
			y := scale(c.Provisioned)
			fmt.Fprintf(&sb, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#c62828" stroke-dasharray="4 3"><title>%s provisioned %s RU/s</title></line>`,
				x0-4, x0+3*barWidth+4, y, y, esc(c.Name), fmtRate(c.Provisioned))
		}
		fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x0+1.5*barWidth, chartTop+chartHeight+16, esc(c.Name))
		sb.WriteString(`</g>`)
	}
	chartLegend(&sb, r, false)
	sb.WriteString(`</svg>`)
	return sb.String()
}

// chartFrame opens the SVG, draws the axis and grid and returns the value → y mapping.
func chartFrame(sb *strings.Builder, title string, groups, perGroup int, maxV float64, unit string) func(float64) float64 {
	top := niceCeil(maxV)
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
	fmt.Fprintf(sb, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="9">%s</text>`, x+barWidth/2, y-3, fmtRate(b.value))
}

// chartLegend names every series drawn, with its charge source.
func chartLegend(sb *strings.Builder, r *Report, band bool) {
	items := []bar{{series: "estimate", label: "estimate (designer)"}}
	for _, s := range sourcesUsed(r) {
		label := "modeled (model)"
		if s != record.ChargeModel {
			label = "measured (" + string(s) + ")"
		}
		items = append(items, bar{series: string(s), label: label})
	}
	y := chartTop + chartHeight + 44
	x := chartLeft
	for _, it := range items {
		stroke := ""
		if it.series == string(record.ChargeEmulatorPlaceholder) {
			stroke = ` stroke="#8a8f98" stroke-dasharray="3 2"`
		}
		fmt.Fprintf(sb, `<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s"%s/>`, x, y-9, seriesColor[it.series], stroke)
		fmt.Fprintf(sb, `<text x="%.1f" y="%.1f">%s</text>`, x+14, y, esc(it.label))
		x += 24 + 6.2*float64(len(it.label))
	}
	if band {
		fmt.Fprintf(sb, `<rect x="%.1f" y="%.1f" width="10" height="10" fill="#1a9e5c" fill-opacity="0.10" stroke="#1a9e5c" stroke-opacity="0.3"/>`, x, y-9)
		fmt.Fprintf(sb, `<text x="%.1f" y="%.1f">tolerance band</text>`, x+14, y)
	}
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
