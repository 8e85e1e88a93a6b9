package plan

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
)

func warningOf(p *Plan, code string) (Warning, bool) {
	for _, w := range p.Warnings {
		if w.Code == code {
			return w, true
		}
	}
	return Warning{}, false
}

// TestTraffic_EveningAndSeasonEndVersusFlatTwin (#40): a game backend whose evening peak is four times
// its average (19:00–21:59) and whose season ends with ×8 for 2 hours on day 28 from 18:00, at 1.5×
// within the hour, against its flat twin (the same design without traffic). By hand, from the plan's
// own average load A RU/s (1,055):
//   - 19:00 averages 4A and peaks at 6A (4,220 and 6,330 RU/s): over the designed manual 4,000 on its one
//     partition every day at 19, 20 and 21 (30 whole days; day 31 ends at 10:00) and on day 28 at
//     18:00 (2.2 × 8 × 1.5A = 27,852): 91 hours throttle; the flat twin names no throttled hour.
//   - the cheapest mode serving every hour is autoscale at the event's peak 8 × 4 × 1.5A = 50,640,
//     max 51,000 (6 partitions at creation), billed 5,100 (10%) in every hour below it, the daily
//     19–21 peaks (6A), and the event's two hours: 30 × (21 × 5,100 + 3 × 6A) + 10 × 5,100 +
//     (27,852 − 5,100) + (50,640 − 6A) RU/s-hours ÷ 100 × $0.012, about $468.09 + storage.
//   - without the event the month costs less, and the flat twin's bill is another figure.
func TestTraffic_EveningAndSeasonEndVersusFlatTwin(t *testing.T) {
	d, err := design.Load(filepath.Join("..", "..", "testdata", "designs", "traffic-evening.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	twin := *d
	twin.Traffic = nil
	flat, err := Build(&twin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, fc := p.Containers[0], flat.Containers[0]
	tr := c.Traffic
	if tr == nil || fc.Traffic != nil {
		t.Fatal("traffic figures missing, or present on the flat twin")
	}
	A := fc.AvgRUs
	h19 := tr.Day[19]
	if math.Abs(h19.AvgRU-4*A) > 0.2 || math.Abs(h19.PeakRU-6*A) > 0.2 || h19.ThrottledRU <= 0 {
		t.Errorf("19:00 = %+v, want average %.1f, peak %.1f, throttled", h19.HourVerdict, 4*A, 6*A)
	}
	if tr.Designed.ThrottledHrs != 91 {
		t.Errorf("designed manual 4,000 throttles %d hours, want 91", tr.Designed.ThrottledHrs)
	}
	w, ok := warningOf(p, "throttling")
	if !ok || !strings.Contains(w.Message, "every day at 19:00–21:59") || !strings.Contains(w.Message, "season end") {
		t.Errorf("throttling warning = %q", w.Message)
	}
	if _, ok := warningOf(flat, "throttling"); ok {
		t.Error("the flat twin forecasts throttled hours")
	}
	if tr.Recommended < 0 {
		t.Fatal("no mode serves every hour")
	}
	best := tr.Options[tr.Recommended]
	if best.Mode != cost.Autoscale || best.RU != 51_000 || best.Partitions != 6 {
		t.Errorf("recommended %+v, want autoscale max 51,000 over 6 partitions", best)
	}
	ruh := 30*(21*5100+3*6*A) + 10*5100 + (2.2*8*1.5*A - 5100) + (4*8*1.5*A - 6*A)
	want := ruh/100*0.012 + c.StorageGB*0.25
	if math.Abs(best.Total-want) > 0.05 {
		t.Errorf("autoscale month = $%.2f, want by hand $%.2f", best.Total, want)
	}
	if c.MonthlyUSD != best.Total || math.Abs(c.MonthlyUSD-fc.MonthlyUSD) < 1 {
		t.Errorf("monthly %.2f (flat twin %.2f): the shape must decide it and move it", c.MonthlyUSD, fc.MonthlyUSD)
	}
	if tr.WithoutEventsUSD <= 0 || tr.WithoutEventsUSD >= best.Total {
		t.Errorf("without the event $%.2f, with it $%.2f", tr.WithoutEventsUSD, best.Total)
	}
	var buf bytes.Buffer
	if err := Render(&buf, p, "text"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"traffic: evening with season end: day 28 18:00, 2 h, ×8", "THROTTLED", "d28 19", "91 of 730 hours throttle", "serving them costs"} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("text lacks %q", s)
		}
	}
}

// TestTraffic_DynamicBillsLessUnderSkew: with a hot key, dynamic autoscale (each partition on its own)
// bills no more than the default scaling (every partition with the hottest), hour by hour.
func TestTraffic_DynamicBillsLessUnderSkew(t *testing.T) {
	d, err := design.Load(filepath.Join("..", "..", "testdata", "designs", "traffic-evening.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	d.AccessPatterns[0].RPS.HotKeyShare = 0.2
	d.Containers[0].Throughput = design.Throughput{AutoscaleMax: 60_000}
	def, _ := Build(d, Options{})
	d.Traffic.Autoscale = "dynamic"
	dyn, _ := Build(d, Options{})
	a, b := def.Containers[0].Traffic.Designed, dyn.Containers[0].Traffic.Designed
	if b.Scaling != cost.ScaleDynamic || a.Scaling != cost.ScaleContainer {
		t.Fatalf("scalings %q %q", a.Scaling, b.Scaling)
	}
	if !(b.Throughput < a.Throughput) {
		t.Errorf("dynamic $%.2f not below default $%.2f under a hot key", b.Throughput, a.Throughput)
	}
}

// TestCheapestServesBusiestPartition (#38 point 7): in every example design, the recommended mode's
// share of a physical partition (partitions at creation) serves what the busiest one asks at peak,
// unless plan says no mode can (hot-key-no-mode).
func TestCheapestServesBusiestPartition(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "designs", "*.yaml"))
	for _, f := range files {
		d, err := design.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Build(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := warningOf(p, "hot-key-no-mode"); ok {
			continue
		}
		for _, c := range p.Containers {
			s := cost.Setting{Mode: c.Recommended.Mode, RU: c.Recommended.RU}
			n := cost.Current.PartitionsAt(s, c.StorageGB)
			if need, share := c.PeakLoad.Hottest(n), cost.Current.ShareAt(s, n); need > share+1e-6 {
				t.Errorf("%s %s: recommended %s gives %d partitions %.0f RU/s each; the busiest asks %.0f",
					filepath.Base(f), c.Name, throughput(c.Recommended), n, share, need)
			}
		}
	}
}

// TestNoRobustMode: a key whose busiest value needs most of the 10,000 RU/s a logical partition can
// have gets hot-key-no-mode, which says to change the key.
func TestNoRobustMode(t *testing.T) {
	d := smallDesign()
	d.AccessPatterns[0].RPS = design.RPS{Avg: 1000, Peak: 8000, HotKeyShare: 1}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, ok := warningOf(p, "hot-key-no-mode")
	if !ok || !strings.Contains(w.Message, "change the partition key") {
		t.Errorf("hot-key-no-mode = %v %q (busiest %v RU/s)", ok, w.Message, p.Containers[0].BusiestRUs)
	}
	d.AccessPatterns[0].RPS = design.RPS{Avg: 10, Peak: 20, HotKeyShare: 1}
	p, _ = Build(d, Options{})
	if _, ok := warningOf(p, "hot-key-no-mode"); ok {
		t.Error("a cold key gets hot-key-no-mode")
	}
}

// TestMonthHoursIsTheRateCards: the design's billed month is the rate card's.
func TestMonthHoursIsTheRateCards(t *testing.T) {
	if float64(design.MonthHours) != cost.Current.HoursPerMonth.Value {
		t.Errorf("design.MonthHours %d, rate card %v", design.MonthHours, cost.Current.HoursPerMonth.Value)
	}
}

// TestTraffic_PriorityAndBucket: a low-priority pattern takes the throttling first, and a bucketed
// pattern over its cap gets a bucket-cap note; the hours are judged as cost.JudgeHour judges them.
func TestTraffic_PriorityAndBucket(t *testing.T) {
	d, err := design.Load(filepath.Join("..", "..", "testdata", "designs", "traffic-evening.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Build(d, Options{})
	before := p.Containers[0].Traffic.Day[19]
	d.AccessPatterns[1].RPS.Priority = "low"
	d.AccessPatterns[1].RPS.Bucket = 1
	d.Containers[0].ThroughputBuckets = []design.ThroughputBucket{{ID: 1, MaxPercent: 90}}
	p, _ = Build(d, Options{})
	h := p.Containers[0].Traffic.Day[19]
	if !(h.ThrottledHighRU < h.ThrottledRU) || h.ThrottledBucketRU <= 0 || h.ThrottledRU >= before.ThrottledRU {
		t.Errorf("19:00 with AP2 low priority in a 90%% bucket (3,600 RU/s of the 3,930 it asks at 19:00): %+v (before %+v)", h.HourVerdict, before.HourVerdict)
	}
	if w, ok := warningOf(p, "bucket-cap"); !ok || !strings.Contains(w.Message, "3212") {
		t.Errorf("bucket-cap = %v %q", ok, w.Message)
	}
	if w, ok := warningOf(p, "throttling"); !ok || !strings.Contains(w.Message, "low-priority requests are throttled first") {
		t.Errorf("throttling = %q", w.Message)
	}
}

// TestTraffic_NoModeServes: a key whose season-end spike needs more than any partition can get has no
// mode that serves every hour; plan says so, keeps the flat recommendation and names the key problem.
func TestTraffic_NoModeServes(t *testing.T) {
	d, err := design.Load(filepath.Join("..", "..", "testdata", "designs", "traffic-evening.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	d.AccessPatterns[1].RPS.HotKeyShare = 1 // every save on one player: 8 × 4 × 1.5 × 655 RU/s at the season end
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Containers[0]
	if c.Traffic.Recommended != -1 || !strings.Contains(c.RecommendedNote, "no throughput mode serves every hour") {
		t.Errorf("recommended %d, note %q", c.Traffic.Recommended, c.RecommendedNote)
	}
	if _, ok := warningOf(p, "throttling"); !ok {
		t.Error("no throttling warning")
	}
}

// TestTraffic_ReadSharesDynamic: two regions, reads 90/10 and the writes in both: dynamic autoscale
// bills the quiet region less than default scaling (which scales it with the busy one), and less
// than with no shares (every region carrying the whole load).
func TestTraffic_ReadSharesDynamic(t *testing.T) {
	load := func(shares []float64, scaling string) float64 {
		d, err := design.Load(filepath.Join("..", "..", "testdata", "designs", "traffic-evening.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		d.Regions = 2
		d.Containers[0].Throughput = design.Throughput{AutoscaleMax: 60_000}
		d.Traffic.ReadShares, d.Traffic.Autoscale = shares, scaling
		p, err := Build(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p.Containers[0].Traffic.Designed.Throughput
	}
	def, dyn, none := load([]float64{0.9, 0.1}, "container"), load([]float64{0.9, 0.1}, "dynamic"), load(nil, "dynamic")
	if !(dyn < def && dyn < none) {
		t.Errorf("dynamic with shares $%.2f, default $%.2f, dynamic without shares $%.2f", dyn, def, none)
	}
}
