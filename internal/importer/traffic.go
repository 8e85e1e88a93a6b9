package importer

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
)

// A rate table by hour ("| Hour | Requests/s |" with 24 rows, one per hour of the day) is the day's
// shape: the draft's traffic.hourly holds each hour's rate ÷ the day's mean, so the factors average 1
// and multiply each pattern's rps.avg (docs/design-format.md, "Traffic over the day and the month").

var (
	hourHeader = regexp.MustCompile(`(?i)^(hour|hour of day|time|时段|小时|时间)`)
	rateHeader = regexp.MustCompile(`(?i)(rps|req|rate|traffic|load|ru/s|请求|流量)`)
	firstNum   = regexp.MustCompile(`\d+(?:[.,]\d+)?`)
)

// readHourlyTraffic finds the first rate table by hour in the data model or the requirements.
func (b *builder) readHourlyTraffic() {
	for _, doc := range []*mdDoc{b.md, b.req} {
		if doc == nil {
			continue
		}
		for _, s := range doc.sections {
			for _, bl := range s.blocks {
				if bl.kind != blockTable || len(bl.rows) != 25 {
					continue
				}
				if f, mean, ok := hourlyFactors(bl.rows); ok {
					b.d.Traffic = &design.Traffic{Hourly: f}
					b.todo("traffic", "hourly factors from the rate table by hour under %q (line %d): each hour's rate ÷ the day's mean of %s; check that each pattern's rps.avg is its share of that mean, and add intraHourPeak and dated events (season ends, batches) the table does not show",
						orWord(s.title, "(before the first heading)"), bl.line, strconv.FormatFloat(mean, 'g', 4, 64))
					b.todos++
					if doc == b.md {
						b.used[s] = true
					}
					return
				}
			}
		}
	}
}

// hourlyFactors reads a header and 24 rows of hour and rate; the factors are rounded to 3 decimals,
// the last adjusted so that they sum to 24.
func hourlyFactors(rows [][]cell) ([]float64, float64, bool) {
	hourCol, rateCol := -1, -1
	for i, c := range rows[0] {
		t := strings.TrimSpace(c.text)
		switch {
		case hourCol < 0 && hourHeader.MatchString(t):
			hourCol = i
		case rateCol < 0 && rateHeader.MatchString(t):
			rateCol = i
		}
	}
	if hourCol < 0 || rateCol < 0 {
		return nil, 0, false
	}
	rates := make([]float64, 24)
	seen := make([]bool, 24)
	sum := 0.0
	for _, r := range rows[1:] {
		if len(r) <= max(hourCol, rateCol) {
			return nil, 0, false
		}
		h, err := strconv.Atoi(firstNum.FindString(r[hourCol].text))
		if err != nil || h < 0 || h > 23 || seen[h] {
			return nil, 0, false
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(firstNum.FindString(strings.ReplaceAll(r[rateCol].text, ",", "")), ",", "."), 64)
		if err != nil || v < 0 {
			return nil, 0, false
		}
		seen[h], rates[h] = true, v
		sum += v
	}
	if sum <= 0 {
		return nil, 0, false
	}
	mean := sum / 24
	f := make([]float64, 24)
	total := 0.0
	for i, v := range rates {
		f[i] = math.Round(v/mean*1000) / 1000
		total += f[i]
	}
	f[23] = math.Round((f[23]+24-total)*1000) / 1000
	return f, mean, true
}
