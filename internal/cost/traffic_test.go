package cost

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAutoscaleFAQBillingExample: autoscale-faq.yml, "How is autoscale shown on my bill?": "if the
// highest RU/s the system scaled to within the hour was 6000 RU/s, you'd be billed 60 × 1.5 = 90
// units of the meter for that hour" (single write region).
func TestAutoscaleFAQBillingExample(t *testing.T) {
	c := Current
	got := c.AutoscaleHourRU(10_000, [][]float64{{6000}}, ScaleContainer)
	if got != 6000 {
		t.Fatalf("an hour that scaled to 6,000 RU/s bills %v RU/s, want 6000", got)
	}
	if u := c.AutoscaleMeterUnits(got); math.Abs(u-90) > 1e-9 {
		t.Errorf("6,000 RU/s shows %v meter units, want 60 × 1.5 = 90", u)
	}
}

// TestChooseOfferAutoscaleExample: how-to-choose-offer.md, billing model: with autoscale max 4,000
// RU/s (scales 400 – 4,000), an hour that scaled to 3,500 RU/s bills 3,500 RU/s and an hour with no
// usage bills 400 RU/s (10% of Tmax).
func TestChooseOfferAutoscaleExample(t *testing.T) {
	c := Current
	if got := c.AutoscaleHourRU(4000, [][]float64{{3500}}, ScaleContainer); got != 3500 {
		t.Errorf("hour 1 bills %v, want 3500", got)
	}
	if got := c.AutoscaleHourRU(4000, [][]float64{{0}}, ScaleContainer); got != 400 {
		t.Errorf("an idle hour bills %v, want 400", got)
	}
	// Over a month: 10 such busy hours and 720 idle ones, priced by hand at $0.012 per 100 RU/s-hour:
	// (10 × 3,500 + 720 × 400) ÷ 100 × 0.012 = $38.76.
	hours := make([]MonthHour, 730)
	for i := range 10 {
		hours[i] = MonthHour{Peak: PartLoad{KeyScoped: 3500}, Avg: PartLoad{KeyScoped: 3500}, RPS: 350}
	}
	b, _ := c.BillMonth(hours, Setting{Mode: Autoscale, RU: 4000}, 0, Account{Regions: 1})
	if math.Abs(b.Throughput-38.76) > 1e-6 {
		t.Errorf("month throughput = $%.4f, want $38.76 (%s)", b.Throughput, b.Formula)
	}
	if !b.Serves || b.ThrottledHrs != 0 {
		t.Errorf("a month under max throttles: %+v", b)
	}
}

// TestDynamicAutoscaleExample: autoscale-per-partition-region.md's example: a collection of 1,000
// RU/s with 2 partitions (500 RU/s each) in a write and a read region, used in one hour P1 500, P2 200
// (write region), P1 150, P2 50 (read region). Default autoscale scales both regions to 1,000 RU/s:
// 2,000 RU/s; dynamic scaling bills 900 RU/s.
func TestDynamicAutoscaleExample(t *testing.T) {
	c := Current
	uses := [][]float64{{500, 200}, {150, 50}}
	if got := c.AutoscaleHourRU(1000, uses, ScaleContainer); got != 2000 {
		t.Errorf("default autoscale bills %v RU/s, want 2000", got)
	}
	if got := c.AutoscaleHourRU(1000, uses, ScaleDynamic); got != 900 {
		t.Errorf("dynamic autoscale bills %v RU/s, want 900", got)
	}
}

// TestBurstCapacityExample: burst-capacity.md: a physical partition of 100 RU/s idle for 5 minutes
// accumulates 100 × 300 = 30,000 RU and can burst at 3,000 RU/s for 30,000 ÷ 3,000 = 10 s; a partition
// of 3,000 RU/s or more gets no burst capacity.
func TestBurstCapacityExample(t *testing.T) {
	c := Current
	if got := c.BurstSeconds(100, 3000); got != 10 {
		t.Errorf("burst at 3,000 RU/s lasts %v s, want 10", got)
	}
	if got := c.BurstSeconds(100, 9000); got != 10 {
		t.Errorf("burst is spent at most at 3,000 RU/s: %v s, want 10", got)
	}
	if got := c.BurstSeconds(3000, 5000); got != 0 {
		t.Errorf("a 3,000 RU/s partition bursts %v s, want 0", got)
	}
	// Burst never makes an hour serve: the hour still counts as throttled, the cushion beside it.
	h := MonthHour{Peak: PartLoad{KeyScoped: 150}, Avg: PartLoad{KeyScoped: 150}, RPS: 15}
	v := c.JudgeHour(h, Setting{Mode: Manual, RU: 100}, 1, 1)
	if v.ThrottledRU != 50 || v.ThrottledRPS != 5 || v.BurstSeconds <= 0 {
		t.Errorf("150 RU/s on a 100 RU/s partition: %+v, want 50 RU/s and 5 requests/s throttled with a burst cushion", v)
	}
	v = c.JudgeHour(h, Setting{Mode: Serverless}, 1, 1)
	if v.BurstSeconds != 0 {
		t.Errorf("serverless has no burst capacity: %+v", v)
	}
}

// TestThrottlingPerPartition: a hot key throttles its partition while the container's total is under
// its throughput. 10,000 RU/s manual, created as 2 partitions of 5,000; the busiest key asks 4,000 RU/s
// and the rest 4,000 RU/s spread: the hot partition gets 4,000 + 2,000 = 6,000 > 5,000, so 1,000 RU/s
// throttle there, the other partition (2,000) none.
func TestThrottlingPerPartition(t *testing.T) {
	c := Current
	l := PartLoad{Busiest: 4000, KeyScoped: 8000}
	h := MonthHour{Peak: l, Avg: l, RPS: 1600} // 5 RU a request
	n := c.PartitionsAt(Setting{Mode: Manual, RU: 10_000}, 1)
	if n != 2 {
		t.Fatalf("10,000 RU/s manual creates %d partitions, want ceil(10,000 ÷ 6,000) = 2", n)
	}
	v := c.JudgeHour(h, Setting{Mode: Manual, RU: 10_000}, n, 1)
	if v.HottestRU != 6000 || v.ShareRU != 5000 || v.ThrottledRU != 1000 || v.ThrottledRPS != 200 {
		t.Errorf("got %+v, want hottest 6,000 of 5,000: 1,000 RU/s, 200 requests/s throttled", v)
	}
}

// TestServingSettingRespectsHotPartition (#38 point 7): the cheapest setting that carries the peak is
// not enough when the busiest partition's share is short. A peak of 9,000 RU/s with 5,000 on one key
// (the rest 4,000, spread): manual 9,000 creates ceil(9,000 ÷ 6,000) = 2 partitions of 4,500, the hot
// one asked 5,000 + 2,000. By hand, n partitions need n × 5,000 + 4,000 RU/s: n = 2 → 14,000, which
// creates 3; n = 3 → 19,000, which creates 4; n = 4 → 24,000, which creates 4 partitions of 6,000,
// the hot one asked 5,000 + 1,000 = 6,000. Serves at 24,000. A busiest key beyond what a partition
// can get has no setting.
func TestServingSettingRespectsHotPartition(t *testing.T) {
	c := Current
	l := PartLoad{Busiest: 5000, KeyScoped: 9000}
	hours := []MonthHour{{Peak: l, Avg: l, RPS: 900}}
	s, ok, why := c.ServingSetting(Manual, hours, 1, "")
	if !ok {
		t.Fatalf("no manual setting: %s", why)
	}
	n := c.PartitionsAt(s, 1)
	if s.RU != 24_000 || n != 4 {
		t.Errorf("manual setting = %d RU/s over %d partitions, want 24,000 over 4", s.RU, n)
	}
	if v := c.JudgeHour(hours[0], s, n, 1); v.ThrottledRU != 0 {
		t.Errorf("the serving setting throttles: %+v", v)
	}
	// Autoscale: max 9,000 → 1 partition (÷ 10,000) of 9,000 ≥ 9,000: the peak's own setting serves.
	if s, ok, _ := c.ServingSetting(Autoscale, hours, 1, ""); !ok || s.RU != 9_000 {
		t.Errorf("autoscale = %+v %v, want max 9,000", s, ok)
	}
	// A key needing 7,000 RU/s: no manual container created at any RU/s gives a partition more than
	// 6,000; autoscale (10,000 per partition) can.
	hot := []MonthHour{{Peak: PartLoad{Busiest: 7000, KeyScoped: 7000}}}
	if _, ok, why := c.ServingSetting(Manual, hot, 1, ""); ok || why == "" {
		t.Errorf("manual serves a 7,000 RU/s key: %v %q", ok, why)
	}
	if _, ok, _ := c.ServingSetting(Autoscale, hot, 1, ""); !ok {
		t.Error("autoscale cannot serve a 7,000 RU/s key")
	}
	if _, ok, _ := c.ServingSetting(Autoscale, []MonthHour{{Peak: PartLoad{Busiest: 12000, KeyScoped: 12000}}}, 1, ""); ok {
		t.Error("a 12,000 RU/s key is served, over the 10,000 RU/s a logical partition can have")
	}
}

// TestAutoscaleBillingProperties: for random loads, an hour bills at least 10% of max and at most max
// (per region), dynamic never more than default, and the bill never falls when a partition's use
// rises.
func TestAutoscaleBillingProperties(t *testing.T) {
	c := Current
	r := rand.New(rand.NewPCG(40, 7))
	for range 2000 {
		maxRU := float64(1000 * (1 + r.IntN(50)))
		regions, n := 1+r.IntN(3), 1+r.IntN(8)
		uses := make([][]float64, regions)
		for i := range uses {
			uses[i] = make([]float64, n)
			for j := range uses[i] {
				uses[i][j] = r.Float64() * maxRU / float64(n) * 1.5
			}
		}
		def := c.AutoscaleHourRU(maxRU, uses, ScaleContainer)
		dyn := c.AutoscaleHourRU(maxRU, uses, ScaleDynamic)
		lo, hi := 0.1*maxRU*float64(regions), maxRU*float64(regions)
		for _, x := range []float64{def, dyn} {
			if x < lo-1e-6 || x > hi+1e-6 {
				t.Fatalf("billed %v outside [%v, %v] (max %v, %d regions)", x, lo, hi, maxRU, regions)
			}
		}
		if dyn > def+1e-6 {
			t.Fatalf("dynamic %v bills more than default %v for %v", dyn, def, uses)
		}
		uses[r.IntN(regions)][r.IntN(n)] += maxRU / 10
		if c.AutoscaleHourRU(maxRU, uses, ScaleContainer) < def-1e-9 || c.AutoscaleHourRU(maxRU, uses, ScaleDynamic) < dyn-1e-9 {
			t.Fatal("more use billed less")
		}
	}
}

// TestManualVersusAutoscaleBreakEven: how-to-choose-offer.md: autoscale (1.5 × the manual rate) saves
// when the full Tmax is used in at most about 66% of the hours. By hand, with the other hours at the
// 10% floor: autoscale costs 1.5 × (f + 0.1 × (1 − f)) × T against manual's T, equal at f = 0.63.
// At 70% of the hours at Tmax manual is cheaper; at 55% autoscale is.
func TestManualVersusAutoscaleBreakEven(t *testing.T) {
	c := Current
	for _, tc := range []struct {
		full       int
		manualWins bool
	}{{511, true}, {402, false}} { // 70% and 55% of 730 h
		hours := make([]MonthHour, 730)
		for i := range tc.full {
			hours[i] = MonthHour{Peak: PartLoad{KeyScoped: 4000}, Avg: PartLoad{KeyScoped: 4000}}
		}
		m, _ := c.BillMonth(hours, Setting{Mode: Manual, RU: 4000}, 0, Account{})
		a, _ := c.BillMonth(hours, Setting{Mode: Autoscale, RU: 4000}, 0, Account{})
		if (m.Total < a.Total) != tc.manualWins {
			t.Errorf("%d of 730 h at Tmax: manual $%.2f, autoscale $%.2f", tc.full, m.Total, a.Total)
		}
	}
}

// TestPriorityAndBuckets: priority-based execution throttles low-priority requests first
// (priority-based-execution.md; best effort), and a throughput bucket refuses what its requests ask
// beyond its cap, a percentage of the container's throughput (429 substatus 3212; throughput-
// buckets.md). By hand, manual 1,000 RU/s on one partition asked 1,500: 500 over. With 400 of it low
// priority, 100 RU/s of high-priority requests are throttled; with 800 low, none. A bucket capped at
// 20% (200 RU/s) asked 500 refuses 300 RU/s, which no longer reach the partition: 1,200 asked, 200
// over.
func TestPriorityAndBuckets(t *testing.T) {
	c := Current
	s := Setting{Mode: Manual, RU: 1000}
	h := MonthHour{Peak: PartLoad{KeyScoped: 1500}, Low: PartLoad{KeyScoped: 400}, RPS: 150}
	v := c.JudgeHour(h, s, 1, 1)
	if v.ThrottledRU != 500 || v.ThrottledHighRU != 100 || v.ThrottledRPS != 50 {
		t.Errorf("400 low of 1,500: %+v, want 500 throttled, 100 of it high priority, 50 requests/s", v)
	}
	h.Low = PartLoad{KeyScoped: 800}
	if v := c.JudgeHour(h, s, 1, 1); v.ThrottledRU != 500 || v.ThrottledHighRU != 0 {
		t.Errorf("800 low of 1,500: %+v, want 500 throttled, none high priority", v)
	}
	h = MonthHour{Peak: PartLoad{KeyScoped: 1500}, RPS: 150, Buckets: []BucketLoad{{ID: 1, MaxPercent: 20, RU: 500}}}
	v = c.JudgeHour(h, s, 1, 1)
	if math.Abs(v.ThrottledBucketRU-300) > 1e-9 || math.Abs(v.ThrottledRU-200) > 1e-9 || math.Abs(v.HottestRU-1200) > 1e-9 {
		t.Errorf("bucket capped at 20%%: %+v, want 300 refused by the bucket, 1,200 asked, 200 throttled", v)
	}
	if v := c.JudgeHour(h, Setting{Mode: Serverless}, 1, 1); v.ThrottledBucketRU != 0 {
		t.Errorf("serverless has no buckets: %+v", v)
	}
}

// TestBillMonthProperties: over random months, manual bills its RU/s every hour, autoscale between 10%
// and 100% of max every hour, serverless the RU consumed (Σ hourly average × 3,600 s); a setting
// ServingSetting returns never throttles; dynamic scaling never bills more than the default.
func TestBillMonthProperties(t *testing.T) {
	c := Current
	r := rand.New(rand.NewPCG(40, 2))
	for range 40 {
		hours := make([]MonthHour, 730)
		base := 100 + r.Float64()*5000
		consumed := 0.0
		for i := range hours {
			f := r.Float64() * 3
			l := PartLoad{Busiest: base * f * r.Float64() * 0.2, KeyScoped: base * f * 0.7, Cross: base * f * 0.3}
			hours[i] = MonthHour{Avg: l, Peak: l.Scale(1.5), RPS: base * f / 5}
			consumed += l.Total() * 3600
		}
		gb := r.Float64() * 200
		a := Account{Regions: 1 + r.IntN(2)}
		for _, mode := range []Mode{Manual, Autoscale} {
			s, ok, why := c.ServingSetting(mode, hours, gb, ScaleContainer)
			if !ok {
				t.Fatalf("%s: %s", mode, why)
			}
			b, vs := c.BillMonth(hours, s, gb, a)
			if b.ThrottledHrs != 0 || !b.Serves {
				t.Fatalf("%s %d serves but throttles %d hours", mode, s.RU, b.ThrottledHrs)
			}
			for _, v := range vs {
				lo, hi := float64(s.RU)*float64(a.Regions), float64(s.RU)*float64(a.Regions)
				if mode == Autoscale {
					lo *= 0.1
				}
				if v.BilledRU < lo-1e-6 || v.BilledRU > hi+1e-6 {
					t.Fatalf("%s %d bills %v in an hour, outside [%v, %v]", mode, s.RU, v.BilledRU, lo, hi)
				}
			}
			if mode == Autoscale {
				s.Scaling = ScaleDynamic
				if d, _ := c.BillMonth(hours, s, gb, a); d.Throughput > b.Throughput+1e-6 {
					t.Fatalf("dynamic $%v above default $%v", d.Throughput, b.Throughput)
				}
			} else if want := float64(s.RU) * 730 * float64(a.Regions) / 100 * c.ManualPrice.Value; math.Abs(b.Throughput-want) > 1e-6 {
				t.Fatalf("manual $%v, want $%v", b.Throughput, want)
			}
		}
		sv, _ := c.BillMonth(hours, Setting{Mode: Serverless}, gb, Account{})
		if want := consumed / 1e6 * c.ServerlessPrice.Value; math.Abs(sv.Throughput-want) > 1e-6*want {
			t.Fatalf("serverless $%v, want $%v", sv.Throughput, want)
		}
	}
}

// TestReadSharesByRegion: every region replicates the writes and serves its share of the reads
// (autoscale-per-partition-region.md: a read region's load is the replicated writes plus its own
// reads). By hand, one partition, max 1,000 RU/s, 100 RU/s of writes and 900 of reads split 0.9 / 0.1
// over 2 regions: 910 and 190 RU/s. Default scaling bills the most active region's 910 in both
// regions, 1,820; dynamic 910 + 190 = 1,100. Without shares every region carries 1,000: 2,000 either way.
func TestReadSharesByRegion(t *testing.T) {
	c := Current
	l := PartLoad{KeyScoped: 1000}
	h := MonthHour{Peak: l, Avg: l, Writes: PartLoad{KeyScoped: 100}, RPS: 100}
	hours := []MonthHour{h}
	for _, tc := range []struct {
		shares  []float64
		scaling AutoscaleScaling
		want    float64
	}{
		{[]float64{0.9, 0.1}, ScaleContainer, 1820},
		{[]float64{0.9, 0.1}, ScaleDynamic, 1100},
		{nil, ScaleContainer, 2000},
		{nil, ScaleDynamic, 2000},
	} {
		_, vs := c.BillMonth(hours, Setting{Mode: Autoscale, RU: 1000, Scaling: tc.scaling}, 0, Account{Regions: 2, ReadShares: tc.shares})
		if math.Abs(vs[0].BilledRU-tc.want) > 1e-9 {
			t.Errorf("shares %v, %s: billed %v RU/s, want %v", tc.shares, tc.scaling, vs[0].BilledRU, tc.want)
		}
		if vs[0].ThrottledRU != 0 {
			t.Errorf("shares %v: throttled %+v", tc.shares, vs[0])
		}
	}
}
