package importer

import (
	"strings"
	"testing"
)

// TestRates: every form of average and peak the issue lists (#39 point 1) and the template's table
// cells read to the same two figures, per-minute rates converted, a per-day rate an average only with
// a TODO (point 6), and what is not a rate (charges, counts per parent, names) ignored.
func TestRates(t *testing.T) {
	for _, tc := range []struct {
		text      string
		cell      bool
		avg, peak float64
		todo      string
	}{
		{"500 avg, 1500 peak", true, 500, 1500, ""},
		{"avg 200 / peak 600", true, 200, 600, ""},
		{"300 avg / 900 peak", true, 300, 900, ""},
		{"平均 400，峰值 1200", true, 400, 1200, ""},
		{"Peak 2.5K, average 800 RPS", true, 800, 2500, ""},
		{"500 RPS", true, 500, 0, "taken as both"},
		{"1,200/min (3,000/min at peak)", true, 20, 50, ""},
		// The prose forms.
		{"Loading a profile is a point read on Players, 70/s, 400 at peak, 1 RU.", false, 70, 400, ""},
		{"Level-ups patch `/level` on the player: peak 400 rps, ~70 avg.", false, 70, 400, ""},
		{"The roster screen runs one query, ~70 avg (400 peak):", false, 70, 400, ""},
		{"It runs about 120 times a second, 600 at peak, 4 RU.", false, 120, 600, ""},
		{"— ~40 rps avg, 150 peak:", false, 40, 150, ""},
		{"900 per minute on average, 3,000 per minute at peak, ~6 RU", false, 15, 50, ""},
		{"about 150 requests a second at peak, 6–9 RU each", false, 0, 150, ""},
		{"roughly 300 requests per second, about 4 RU", false, 300, 0, "taken as both"},
		// A per-day rate: an average, never a peak without an hourly shape.
		{"the nightly job reads 2M player documents per day", false, 23.15, 0, "no peak without an hourly shape"},
		{"about 86,400 writes a day on average", false, 1, 0, "no peak without an hourly shape"},
		{"busiest day 172,800 writes a day", false, 2, 0, "not a peak"},
		// Not rates.
		{"avg 5 orders per user, max 1000", false, 0, 0, ""},
		{"about 30 members a guild (max 100)", false, 0, 0, ""},
		{"Pattern #3 costs ~3 RU; AP4 uses s3-ranked", false, 0, 0, ""},
		{"autoscale max 4,000 RU/s, 400 RU per second minimum", false, 0, 0, ""},
	} {
		rs := pickRates(norm(tc.text), tc.cell, "x.md line 1")
		avg := rs.avg
		if avg == 0 {
			avg = rs.one
		}
		if round4(avg) != tc.avg || rs.peak != tc.peak {
			t.Errorf("%q: avg %g peak %g, want %g %g (notes %q todos %q)", tc.text, avg, rs.peak, tc.avg, tc.peak, rs.notes, rs.todos)
		}
		todos := strings.Join(rs.todos, " | ")
		if tc.todo == "" && todos != "" || tc.todo != "" && !strings.Contains(todos, tc.todo) {
			t.Errorf("%q: TODOs %q, want one containing %q", tc.text, todos, tc.todo)
		}
	}
}
