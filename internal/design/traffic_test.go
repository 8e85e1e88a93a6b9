package design

import (
	"math"
	"strings"
	"testing"
)

// TestNamedShapesAverageOne: every named shape is 24 factors averaging 1 (they multiply rps.avg),
// and the evening shape's peak is four times the average, as documented.
func TestNamedShapesAverageOne(t *testing.T) {
	for name, f := range NamedShapes {
		sum := 0.0
		for _, x := range f {
			sum += x
		}
		if len(f) != 24 || math.Abs(sum-24) > 1e-9 {
			t.Errorf("%s: %d factors summing to %v, want 24 summing to 24", name, len(f), sum)
		}
	}
	if m := NamedShapes["evening"][20]; m != 4 {
		t.Errorf("evening 20:00 = %v, want 4", m)
	}
}

// TestHourlyFactors: the month's hour h takes the shape's factor for h mod 24, times every event that
// covers it and names the pattern (or names none). Day 28 18:00 for 2 hours is hours 666 and 667.
func TestHourlyFactors(t *testing.T) {
	src := strings.Replace(minimal, "accessPatterns:", `traffic:
  shape: evening
  intraHourPeak: 1.5
  events:
    - {name: season end, day: 28, hour: 18, hours: 2, factor: 8}
    - {name: other, day: 1, hour: 0, factor: 3, patterns: [AP2]}
accessPatterns:`, 1)
	src += "  - {id: AP2, name: flat one, container: C, op: read, sample: t, rps: {avg: 1, shape: flat}, estimate: {ru: 1}}\n"
	d, err := Parse([]byte(src), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, ev := d.HourlyFactors(&d.AccessPatterns[0])
	if len(f) != MonthHours {
		t.Fatalf("%d hours, want %d", len(f), MonthHours)
	}
	// 27 × 24 + 18 = 666: evening 18:00 is 2.2, × 8 = 17.6; 19:00 is 4 × 8 = 32; 20:00 back to 4.
	for h, want := range map[int]float64{0: 0.2, 666: 2.2 * 8, 667: 32, 668: 4, 729: 0.4} {
		if math.Abs(f[h]-want) > 1e-9 {
			t.Errorf("AP1 hour %d = %v, want %v", h, f[h], want)
		}
	}
	if ev[666] != "season end" || ev[668] != "" {
		t.Errorf("event names: %q %q", ev[666], ev[668])
	}
	g, _ := d.HourlyFactors(&d.AccessPatterns[1])
	if g[0] != 3 || g[1] != 1 || g[666] != 8 {
		t.Errorf("AP2 (flat, the second event its own): %v %v %v, want 3 1 8", g[0], g[1], g[666])
	}
	if d.Traffic.PeakFactor() != 1.5 || (*Traffic)(nil).PeakFactor() != 1 {
		t.Error("intraHourPeak")
	}
	if f, _ := (&Design{}).HourlyFactors(&d.AccessPatterns[0]); f != nil {
		t.Error("a design without traffic has hourly factors")
	}
}
