package report

import (
	"fmt"
	"math"
	"strings"
)

// Traffic is plan's hour-by-hour forecast of one container when the design states its traffic's
// shape (design traffic): plain data the driver fills from the static plan (pipeline.TrafficOf), so
// that every figure is the cost package's and the report only shows it. Modeled, never measured: a
// run executes each pattern as it always does and the shape is applied to the figures.
type Traffic struct {
	Container string `json:"container"`
	// Shape says what shaped the hours (the named shape or hourly factors, and the events).
	Shape string `json:"shape"`
	// Designed is the designed throughput in words; ProvisionedRU its RU/s (manual) or max
	// (autoscale), 0 for serverless: the line the chart draws.
	Designed      string  `json:"designed"`
	ProvisionedRU float64 `json:"provisionedRU"`
	// ThrottledHours is how many of the month's 730 hours throttle at the designed throughput.
	ThrottledHours int     `json:"throttledHours"`
	DesignedUSD    float64 `json:"designedUSD"`
	// Recommended is the cheapest mode that serves every hour, and its month; FlatUSD what the
	// flat-rate figures (average and peak, no shape) say.
	Recommended    string  `json:"recommended,omitempty"`
	RecommendedUSD float64 `json:"recommendedUSD,omitempty"`
	FlatUSD        float64 `json:"flatUSD"`
	// Hours are a day without events and every event hour, at the designed throughput.
	Hours []TrafficHour `json:"hours"`
}

// TrafficHour is one hour of a Traffic forecast.
type TrafficHour struct {
	// Label is "19:00" for an hour of the day without events, "day 28 19:00" for an event's.
	Label  string  `json:"label"`
	AvgRU  float64 `json:"avgRU"`
	PeakRU float64 `json:"peakRU"`
	// HottestRU is the busiest physical partition's RU/s at the hour's highest second; ShareRU what
	// it gets at the designed throughput. ThrottledRPS requests a second would get 429s.
	HottestRU    float64 `json:"hottestPartitionRU"`
	ShareRU      float64 `json:"partitionShareRU"`
	ThrottledRPS float64 `json:"throttledRPS,omitempty"`
	Throttled    bool    `json:"throttled,omitempty"`
	Event        string  `json:"event,omitempty"`
}

// trafficLines is the compact text of every forecast: one line per container, the throttled hours
// named.
func trafficLines(r *Report) []string {
	var out []string
	for _, t := range r.Traffic {
		var hot []string
		for _, h := range t.Hours {
			if h.Throttled {
				hot = append(hot, fmt.Sprintf("%s (%s of %s RU/s on the busiest partition, %s requests/s 429)", h.Label, fmtRate(h.HottestRU), fmtRate(h.ShareRU), fmtRate(h.ThrottledRPS)))
			}
		}
		line := fmt.Sprintf("%s (%s): designed %s throttles in %d of 730 hours, $%.2f/month", t.Container, t.Shape, t.Designed, t.ThrottledHours, t.DesignedUSD)
		if t.Recommended != "" {
			line += fmt.Sprintf("; %s serves every hour for $%.2f/month", t.Recommended, t.RecommendedUSD)
		}
		line += fmt.Sprintf(" (flat-rate figures: $%.2f)", t.FlatUSD)
		if len(hot) > 0 {
			line += "; throttled: " + strings.Join(hot, "; ")
		}
		out = append(out, line)
	}
	return out
}

// trafficChart draws each forecast: RU/s by hour (solid: the hour's average, light: its highest
// second) against the designed throughput (dashed), throttled hours in red and marked 429 — a day
// without events in one chart and the event hours in a second, each on its own scale (an event's
// spike would flatten the day).
func trafficChart(r *Report) string {
	var sb strings.Builder
	for _, t := range r.Traffic {
		var day, events []TrafficHour
		for _, h := range t.Hours {
			if h.Event == "" {
				day = append(day, h)
			} else {
				events = append(events, h)
			}
		}
		drawTraffic(&sb, t, day, fmt.Sprintf("%s: RU/s by hour of a day without events at %s (solid: hour's average, light: its highest second; dashed: provisioned; red: throttled)", t.Container, t.Designed))
		if len(events) > 0 {
			drawTraffic(&sb, t, events, fmt.Sprintf("%s: RU/s in the event hours at %s", t.Container, t.Designed))
		}
	}
	return sb.String()
}

// drawTraffic draws one chart of hours.
func drawTraffic(sb *strings.Builder, t Traffic, hours []TrafficHour, title string) {
	{
		maxV := t.ProvisionedRU
		for _, h := range hours {
			maxV = math.Max(maxV, h.PeakRU)
		}
		const w = 22.0
		width := math.Max(chartLeft+float64(len(hours))*w+20, 640)
		height := chartTop + chartHeight + chartBottom + 22
		top := niceCeil(maxV * chartHeight / (chartHeight - labelRoom))
		y := func(v float64) float64 { return chartTop + chartHeight - v/top*chartHeight }
		fmt.Fprintf(sb, `<svg xmlns="http://www.w3.org/2000/svg" class="traffic" data-container="%s" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s"><title>%s</title>`,
			esc(t.Container), width, height, width, height, esc(title), esc(title))
		for i := 0; i <= 4; i++ {
			v := top * float64(i) / 4
			fmt.Fprintf(sb, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#e3e6eb"/><text x="%.1f" y="%.1f" text-anchor="end">%s</text>`,
				chartLeft, width-10, y(v), y(v), chartLeft-6, y(v)+4, fmtRU(v))
		}
		fmt.Fprintf(sb, `<text x="12" y="%.1f" transform="rotate(-90 12 %.1f)" text-anchor="middle">RU/s</text>`, chartTop+chartHeight/2, chartTop+chartHeight/2)
		base := y(0)
		for i, h := range hours {
			x := chartLeft + float64(i)*w
			color := "#3b6fb6"
			if h.Throttled {
				color = "#c62828"
			}
			tip := fmt.Sprintf("%s %s: average %s RU/s, highest second %s RU/s; busiest partition %s of %s RU/s", t.Container, h.Label, fmtRate(h.AvgRU), fmtRate(h.PeakRU), fmtRate(h.HottestRU), fmtRate(h.ShareRU))
			if h.Throttled {
				tip += fmt.Sprintf("; throttled: about %s requests/s get 429", fmtRate(h.ThrottledRPS))
			}
			if h.Event != "" {
				tip += " (" + h.Event + ")"
			}
			fmt.Fprintf(sb, `<rect class="bar peak" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.3"><title>%s</title></rect>`, x+1, y(h.PeakRU), w-2, math.Max(base-y(h.PeakRU), 0), color, esc(tip))
			fmt.Fprintf(sb, `<rect class="bar%s" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>`, map[bool]string{true: " throttled", false: ""}[h.Throttled], x+1, y(h.AvgRU), w-2, math.Max(base-y(h.AvgRU), 0.5), color, esc(tip))
			if h.Throttled {
				fmt.Fprintf(sb, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="9" fill="#c62828">429</text>`, x+w/2, y(h.PeakRU)-3)
			}
			label := h.Label
			if h.Event != "" {
				label = strings.TrimPrefix(label, "day ")
			}
			fmt.Fprintf(sb, `<text x="%.1f" y="%.1f" transform="rotate(-60 %.1f %.1f)" text-anchor="end" font-size="9">%s</text>`, x+w/2, base+12, x+w/2, base+12, esc(label))
		}
		if t.ProvisionedRU > 0 {
			fmt.Fprintf(sb, `<line class="provisioned" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#c62828" stroke-dasharray="4 3"><title>%s provisioned %s RU/s</title></line>`,
				chartLeft, chartLeft+float64(len(hours))*w, y(t.ProvisionedRU), y(t.ProvisionedRU), esc(t.Container), fmtRate(t.ProvisionedRU))
		}
		sb.WriteString(`</svg>`)
	}
}
