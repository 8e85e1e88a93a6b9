package importer

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Request rates as teams write them: "70/s, 400 at peak", "peak 400 rps, ~70 avg", "~70 avg (400
// peak)", "900 per minute on average, 3,000 per minute at peak", "2M a day", a table cell "500 avg,
// 1500 peak" or a column per figure. readRates finds each figure with its unit (per second, minute,
// hour, day or month) and whether the words next to it call it the average or the peak; one place
// reads them all, for table cells and prose alike.

// rateFig is one request rate found in a text.
type rateFig struct {
	v     float64 // per second
	raw   float64 // as written
	per   string  // second, minute, hour, day, month
	label string  // avg, peak or ""
	unit  bool    // written with its unit; otherwise it takes the unit of the text's other rates
	start int
	end   int
}

// secondsPer converts a rate's unit to seconds. A month is the modeling prompt's 2,592,000 seconds
// (shared/seeds/001, "每月秒：2,592,000").
var secondsPer = map[string]float64{"second": 1, "minute": 60, "hour": 3600, "day": 86400, "month": 2_592_000}

// rateUnitRe reads the unit right after a number: "rps", "/s", "per minute", "requests a second",
// "messages per day", "times a second", "/min", "daily".
var rateUnitRe = regexp.MustCompile(`^\s*(?:(rps|qps|tps|ops/s|req/s|reqs?/sec|requests?/s(?:ec)?\b|/\s?s(?:ec)?\b|per second|次/秒|每秒)|(rpm|/\s?min(?:ute)?\b|每分钟)|(/\s?h(?:ou)?r?\b|rph\b|每小时)|(/\s?day\b|daily\b|per day\b|每天|每日)|(/\s?month\b|monthly\b|per month\b|每月)|((?:[a-z][a-z'-]*\s+){0,3}?)(?:(?:a|per|each|an|every)\s+|/\s?)(second|sec|minute|min|hour|day|month)\b)`)

// notRateWords are words that make "N <words> per second" something other than a request rate.
var notRateWords = []string{"ru", "rus", "ru/s", "request", "units", "gb", "kb", "mb", "tb", "ms", "per", "bytes", "%"}

var peakWords = []string{"peak", "峰值", "busiest", "burst", "maximum", "最高", "spikes", "spike", "max"}
var avgWords = []string{"avg", "average", "平均", "typical", "typically", "usually", "normally", "steady", "mean", "sustained", "baseline"}

func labelOf(s string, last bool) string {
	ws := strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '(' || r == ')' || r == '~' || r == '≈' || r == '/' || r == ':' || r == '—' || r == '–' || r == '-'
	})
	if last {
		for i, j := 0, len(ws)-1; i < j; i, j = i+1, j-1 {
			ws[i], ws[j] = ws[j], ws[i]
		}
	}
	for _, w := range ws {
		for _, p := range peakWords {
			if strings.HasPrefix(w, p) {
				return "peak"
			}
		}
		for _, a := range avgWords {
			if strings.HasPrefix(w, a) {
				return "avg"
			}
		}
		if strings.Contains(w, "峰值") {
			return "peak"
		}
		if strings.Contains(w, "平均") {
			return "avg"
		}
	}
	return ""
}

// readRates finds the request rates of t (lower case, see norm). A number without a unit counts only
// when a word next to it says average or peak and either the text has a rate with a unit, or the text
// pairs an average with a peak ("~70 avg (400 peak)"), or rateCell says the text is a rate column.
func readRates(t string, rateCell bool) []rateFig {
	type cand struct {
		rateFig
		bareOK bool
	}
	var cs []cand
	prevEnd := 0
	for _, m := range numRe.FindAllStringSubmatchIndex(t, -1) {
		s, e := m[0], m[3]
		if s > 0 && (isWordByte(t[s-1]) || t[s-1] == '#' || t[s-1] == '-' && s > 1 && isWordByte(t[s-2]) || t[s-1] == '.' || t[s-1] == '$' || t[s-1] == '@') {
			continue // "s3", "AP3", "#3", "p_10023", "3.x", "$25"
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(t[m[2]:m[3]], ",", ""), 64)
		if err != nil || v <= 0 {
			continue
		}
		if m[4] >= 0 && !(m[5] < len(t) && isWordByte(t[m[5]])) {
			switch t[m[4]:m[5]] {
			case "k", "千":
				v *= 1e3
			case "m":
				v *= 1e6
			case "万":
				v *= 1e4
			}
			e = m[5]
		}
		rest := t[e:]
		f := cand{rateFig: rateFig{raw: v, start: s}}
		if u := rateUnitRe.FindStringSubmatchIndex(rest); u != nil {
			ok := true
			switch {
			case u[2] >= 0:
				f.per = "second"
			case u[4] >= 0:
				f.per = "minute"
			case u[6] >= 0:
				f.per = "hour"
			case u[8] >= 0:
				f.per = "day"
			case u[10] >= 0:
				f.per = "month"
			default:
				for _, w := range strings.Fields(rest[u[12]:u[13]]) {
					for _, x := range notRateWords {
						if w == x {
							ok = false
						}
					}
				}
				f.per = map[string]string{"second": "second", "sec": "second", "minute": "minute", "min": "minute", "hour": "hour", "day": "day", "month": "month"}[rest[u[14]:u[15]]]
			}
			if ok {
				f.unit = true
				e += u[1]
			}
		}
		if !f.unit {
			if rangeRURe.MatchString(t[s:min(len(t), s+40)]) && rangeRURe.FindStringIndex(t[s:min(len(t), s+40)])[0] == 0 {
				prevEnd = e
				continue // a charge
			}
			r := strings.TrimLeft(rest, " ")
			if strings.HasPrefix(r, "ms") || strings.HasPrefix(r, "%") || strings.HasPrefix(r, "kb") || strings.HasPrefix(r, "gb") || strings.HasPrefix(r, "mb") ||
				strings.HasPrefix(r, "ru") || strings.HasPrefix(r, "x") || strings.HasPrefix(r, "×") {
				prevEnd = e
				continue
			}
		}
		f.end = e
		// The words after the figure up to the next figure or comma, else those before it back to the
		// previous figure or comma.
		after := t[e:]
		if k := strings.IndexAny(after, "0123456789,;./|(\n"); k >= 0 {
			after = after[:k]
		}
		before := t[prevEnd:s]
		if k := strings.LastIndexAny(before, ",;./|()\n"); k >= 0 {
			before = before[k+1:]
		}
		f.label = labelOf(after, false)
		if f.label == "" {
			f.label = labelOf(before, true)
			// "avg 5 orders per user": a word before the figure labels it only when nothing but the
			// unit or punctuation follows it.
			if f.label != "" && !f.unit {
				if w := strings.Fields(after); len(w) > 0 && strings.Trim(w[0], ")]}") != "" && labelOf(w[0], false) == "" && !strings.HasPrefix(w[0], "at") && !strings.HasPrefix(w[0], "on") {
					f.label = ""
				}
			}
		} else if !f.unit {
			// "400 at peak", "70 avg": the label must be the first word after the figure.
			if w := strings.Fields(after); len(w) > 0 && labelOf(w[0], false) == "" && w[0] != "at" && w[0] != "on" && w[0] != "in" {
				f.label = ""
			}
		}
		f.bareOK = f.label != "" || rateCell
		cs = append(cs, f)
		prevEnd = e
	}
	units, avgs, peaks := 0, 0, 0
	for _, c := range cs {
		if c.unit {
			units++
		}
		switch c.label {
		case "avg":
			avgs++
		case "peak":
			peaks++
		}
	}
	var out []rateFig
	for i, c := range cs {
		if !c.unit {
			if !c.bareOK || units == 0 && !rateCell && (avgs == 0 || peaks == 0) {
				continue
			}
			// It takes the unit of the nearest rate written with one.
			c.per = "second"
			for d := 1; d < len(cs); d++ {
				if j := i - d; j >= 0 && cs[j].unit {
					c.per = cs[j].per
					break
				}
				if j := i + d; j < len(cs) && cs[j].unit {
					c.per = cs[j].per
					break
				}
			}
		}
		c.v = c.raw / secondsPer[c.per]
		out = append(out, c.rateFig)
	}
	return out
}

// perSecond formats a rate in requests a second, rounded to four significant figures.
func perSecond(v float64) string {
	if v <= 0 {
		return "0"
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(v)))
	return strconv.FormatFloat(math.Round(v*p)/p, 'f', -1, 64)
}

// rateSet is the average and the peak a text gives, with what a person should check.
type rateSet struct {
	avg, peak, one float64 // one: a single figure, called neither average nor peak
	notes, todos   []string
}

// pickRates reads the average and the peak of a text: the figures called so, a figure called neither
// beside a peak being the average; a per-day or per-month figure is an average only (no peak without
// an hourly shape).
func pickRates(t string, rateCell bool, where string) rateSet {
	var rs rateSet
	var plain []rateFig
	for _, f := range readRates(t, rateCell) {
		long := f.per == "day" || f.per == "month"
		quote := fmt.Sprintf("%q (%s)", excerpt(window(t, f.start-16, f.end+16), 60), where)
		conv := ""
		if f.per != "second" {
			conv = fmt.Sprintf(": %s a %s = %s a second", human(f.raw), f.per, perSecond(f.v))
		}
		switch {
		case f.label == "peak" && long:
			if rs.peak == 0 && rs.one == 0 && rs.avg == 0 {
				rs.avg = f.v
				rs.todos = append(rs.todos, fmt.Sprintf("the busiest %s from %s%s is its average, not a peak: a per-%s figure gives no peak without an hourly shape; set rps.peak, or give the pattern its daily shape (rps.shape or rps.hourly)", f.per, quote, conv, f.per))
			}
		case f.label == "peak":
			if rs.peak == 0 {
				rs.peak = f.v
				rs.notes = append(rs.notes, "peak rate from "+quote+conv)
			}
		case f.label == "avg":
			if rs.avg == 0 {
				rs.avg = f.v
				rs.notes = append(rs.notes, "average rate from "+quote+conv)
				if long {
					rs.todos = append(rs.todos, fmt.Sprintf("a per-%s rate gives no peak without an hourly shape: the peak is left at the average; set rps.peak, or give the pattern its daily shape (rps.shape or rps.hourly)", f.per))
				}
			}
		default:
			plain = append(plain, f)
		}
	}
	if rateCell && len(plain) >= 2 && rs.avg == 0 && rs.peak == 0 {
		lo, hi := math.Min(plain[0].v, plain[1].v), math.Max(plain[0].v, plain[1].v)
		rs.avg, rs.peak = lo, hi
		rs.todos = append(rs.todos, fmt.Sprintf("two figures in %q (%s), called neither average nor peak: the lower taken as the average, the higher as the peak", excerpt(t, 60), where))
		return rs
	}
	if rateCell && rs.avg > 0 && rs.peak > 0 && len(rs.notes) == 2 && !strings.Contains(strings.Join(rs.notes, ""), " a second") {
		rs.notes = []string{fmt.Sprintf("average and peak from %q (%s)", excerpt(t, 60), where)}
	}
	if len(plain) > 0 && rs.avg == 0 {
		f := plain[0]
		quote := fmt.Sprintf("%q (%s)", excerpt(window(t, f.start-16, f.end+16), 60), where)
		conv := ""
		if f.per != "second" {
			conv = fmt.Sprintf(": %s a %s = %s a second", human(f.raw), f.per, perSecond(f.v))
		}
		switch {
		case f.per == "day" || f.per == "month":
			rs.avg = f.v
			rs.todos = append(rs.todos, fmt.Sprintf("rate from %s%s: a per-%s rate gives no peak without an hourly shape; the peak is left at the average; set rps.peak, or give the pattern its daily shape (rps.shape or rps.hourly)", quote, conv, f.per))
		case rs.peak > 0 && f.v <= rs.peak:
			rs.avg = f.v
			rs.notes = append(rs.notes, "average rate from "+quote+conv+" (the figure beside the peak)")
		case rs.peak > 0:
			rs.todos = append(rs.todos, fmt.Sprintf("%s is above the stated peak: not taken as the average; check", quote))
		default:
			rs.one = f.v
			rs.todos = append(rs.todos, fmt.Sprintf("one figure %s%s, called neither average nor peak: taken as both", quote, conv))
		}
	}
	return rs
}
