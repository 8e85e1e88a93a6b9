package report

import (
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// TestCapacity_ThroughputShortRestsOnTheBand: the run's throughput-short says it rests on the
// unpinned rules when the low end of its peak's band fits the designed throughput, and a peak that
// fits while the band's high end does not is a warning that says so; a load without a band says
// neither.
func TestCapacity_ThroughputShortRestsOnTheBand(t *testing.T) {
	d := &design.Design{Containers: []design.Container{{Name: "Events", Throughput: design.Throughput{Manual: 400}}}}
	rules := []string{"aggregate-without-filter"}
	load := func(peak float64, band *record.Range) []ContainerLoad {
		return []ContainerLoad{{Name: "Events", Provisioned: 400, Modeled: &Load{Source: "model", Scale: VerdictOnProjected,
			ProductionAvg: peak, ProductionPeak: peak, PeakBand: band}}}
	}
	for _, tc := range []struct {
		name  string
		loads []ContainerLoad
		level string
		want  string
	}{
		{"short at the figure, not at the low end", load(16404, record.NewRange(139, 52025, rules, fmtRate)), LevelFail,
			"below the model peak of 16404 (139–52025) RU/s (this run's median charges, queries projected to production scale, × peak request rates); this rests on rule aggregate-without-filter unvalidated: at the low end of its band (139 RU/s peak) it does not hold (run: throughput-short)"},
		{"short at both ends", load(16404, record.NewRange(9000, 52025, rules, fmtRate)), LevelFail,
			"below the model peak of 16404 (9000–52025) RU/s (this run's median charges, queries projected to production scale, × peak request rates) — rule aggregate-without-filter unvalidated (run: throughput-short)"},
		{"fits at the figure, not at the high end", load(300, record.NewRange(139, 900, rules, fmtRate)), LevelWarn,
			"designed 400 RU/s serves the model peak of 300 (139–900) RU/s but not the 900 RU/s at the high end of its band: whether the container is short rests on rule aggregate-without-filter unvalidated, which validate calibrate --scale decides (run: throughput-short)"},
		{"no band", load(16404, nil), LevelFail, "below the model peak of 16404 RU/s"},
	} {
		fs := capacityFindings(d, tc.loads, nil)
		if len(fs) != 1 || fs[0].Level != tc.level || !strings.Contains(fs[0].Message, tc.want) {
			t.Errorf("%s: %+v, want one %s finding saying %q", tc.name, fs, tc.level, tc.want)
		}
		if n := strings.Count(fs[0].Message, "unvalidated"); tc.loads[0].Modeled.PeakBand != nil && n != 1 {
			t.Errorf("%s: the rules are named %d times, want once: %s", tc.name, n, fs[0].Message)
		}
		if tc.loads[0].Modeled.PeakBand == nil && strings.Contains(fs[0].Message, "unvalidated") {
			t.Errorf("%s: a load without a band speaks of one: %s", tc.name, fs[0].Message)
		}
	}
}

// TestLoadCell_NamesTheRulesOnce: the request-rate table's cell (text, Markdown, HTML) writes the
// average and the peak each with its range and names the rules once, in cost.Rules' order.
func TestLoadCell_NamesTheRulesOnce(t *testing.T) {
	rules := record.AddRules(nil, "pk-equality-order-composite", "order-top-unserved-filter", "aggregate-without-filter")
	l := &Load{Source: "model", Scale: VerdictOnProjected, ProductionAvg: 16404, ProductionPeak: 16404,
		AvgBand: record.NewLoadRange(139, 52025, rules), PeakBand: record.NewLoadRange(139, 52025, rules)}
	want := "16404 (139–52025) / 16404 (139–52025) modeled, production — rules aggregate-without-filter, order-top-unserved-filter, pk-equality-order-composite unvalidated"
	if got := loadCell(l); got != want {
		t.Errorf("load cell\n %q, want\n %q", got, want)
	}
	l.AvgBand, l.PeakBand = nil, record.NewLoadRange(15420, 15423, rules)
	if got := loadCell(l); strings.Contains(got, "unvalidated") || strings.Contains(got, "(") {
		t.Errorf("ends that agree to three significant figures show a range: %q", got)
	}
}
