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
		{"short at the figure, not at the low end", load(16404, record.NewRange(139, 52025, rules, fmtRate)), LevelFail, "this rests on rule aggregate-without-filter unvalidated: at the low end of its band (139 RU/s peak) it does not hold"},
		{"fits at the figure, not at the high end", load(300, record.NewRange(139, 900, rules, fmtRate)), LevelWarn, "but not the high end of its band: throughput-short rests on rule aggregate-without-filter unvalidated"},
		{"no band", load(16404, nil), LevelFail, "below the model peak of 16404 RU/s"},
	} {
		fs := capacityFindings(d, tc.loads, nil)
		if len(fs) != 1 || fs[0].Level != tc.level || !strings.Contains(fs[0].Message, tc.want) {
			t.Errorf("%s: %+v, want one %s finding saying %q", tc.name, fs, tc.level, tc.want)
		}
		if tc.loads[0].Modeled.PeakBand == nil && strings.Contains(fs[0].Message, "unvalidated") {
			t.Errorf("%s: a load without a band speaks of one: %s", tc.name, fs[0].Message)
		}
	}
}
