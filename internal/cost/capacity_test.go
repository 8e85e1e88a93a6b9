package cost

import (
	"math"
	"strings"
	"testing"
)

func TestPhysicalPartitions(t *testing.T) {
	tests := []struct {
		name string
		gb   float64
		ru   int
		want int
	}{
		{"minimum", 0, 400, 1},
		{"6,000 RU/s fits one at creation", 1, 6000, 1},
		{"6,001 RU/s needs two at creation", 1, 6001, 2},
		{"30,000 RU/s", 10, 30000, 5},
		{"storage drives: 120 GB", 120, 400, 3},
		{"exactly 50 GB", 50, 400, 1},
		{"negative input", -3, -100, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PhysicalPartitions(tt.gb, tt.ru); got != tt.want {
				t.Errorf("PhysicalPartitions(%v, %v) = %d, want %d", tt.gb, tt.ru, got, tt.want)
			}
		})
	}
	if got := Current.PartitionsFor(Autoscale, 10, 40000); got != 4 {
		t.Errorf("autoscale 40,000 max = %d partitions, want 4", got)
	}
	if got := Current.PartitionsFor(Serverless, 120, 0); got != 3 {
		t.Errorf("serverless 120 GB = %d partitions, want 3", got)
	}
}

func TestRUPerSecond(t *testing.T) {
	if got := RUPerSecond(7, 200); got != 1400 {
		t.Errorf("RUPerSecond = %v", got)
	}
	if got := RUPerSecond(-1, 200); got != 0 {
		t.Errorf("negative charge = %v", got)
	}
}

func TestThroughputSizing(t *testing.T) {
	c := Current
	tests := []struct {
		name       string
		peak, gb   float64
		manual, as int
	}{
		{"tiny", 50, 1, 400, 1000},
		{"round up", 1234, 1, 1300, 2000},
		{"storage floor", 100, 800, 800, 8000},
	}
	for _, tt := range tests {
		if got := c.ManualFor(tt.peak, tt.gb); got != tt.manual {
			t.Errorf("%s: ManualFor = %d, want %d", tt.name, got, tt.manual)
		}
		if got := c.AutoscaleFor(tt.peak, tt.gb); got != tt.as {
			t.Errorf("%s: AutoscaleFor = %d, want %d", tt.name, got, tt.as)
		}
	}
}

func TestMonthlyCost(t *testing.T) {
	c := Current
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.005 }
	tests := []struct {
		name           string
		u              Usage
		a              Account
		wantThroughput float64
		wantStorage    float64
		feasible       bool
	}{
		// 1,000 RU/s manual: 10 × $0.008 × 730 h = $58.40; 10 GB × $0.25 = $2.50.
		{"manual 1 region", Usage{Mode: Manual, Provisioned: 1000, StorageGB: 10}, Account{Regions: 1}, 58.40, 2.50, true},
		{"manual 3 regions", Usage{Mode: Manual, Provisioned: 1000, StorageGB: 10}, Account{Regions: 3}, 175.20, 7.50, true},
		{"manual multi-region writes", Usage{Mode: Manual, Provisioned: 1000}, Account{Regions: 2, MultiRegionWrites: true}, 233.60, 0, true},
		// Autoscale 10,000 max at 300 RU/s average bills the 1,000 RU/s floor: 10 × $0.012 × 730.
		{"autoscale floor", Usage{Mode: Autoscale, Provisioned: 10000, AvgRU: 300}, Account{}, 87.60, 0, true},
		{"autoscale average", Usage{Mode: Autoscale, Provisioned: 10000, AvgRU: 4000}, Account{}, 350.40, 0, true},
		{"autoscale multi-region writes", Usage{Mode: Autoscale, Provisioned: 1000, AvgRU: 0}, Account{Regions: 2, MultiRegionWrites: true}, 23.36, 0, true},
		// Serverless: 100 RU/s × 2,628,000 s = 262.8 M RU × $0.25.
		{"serverless", Usage{Mode: Serverless, AvgRU: 100, PeakRU: 500, StorageGB: 4}, Account{}, 65.70, 1.00, true},
		{"serverless two regions", Usage{Mode: Serverless, AvgRU: 100, PeakRU: 500}, Account{Regions: 2}, 65.70, 0, false},
		{"serverless over limit", Usage{Mode: Serverless, AvgRU: 100, PeakRU: 30000}, Account{}, 65.70, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := c.MonthlyCost(tt.u, tt.a)
			if !near(m.Throughput, tt.wantThroughput) || !near(m.Storage, tt.wantStorage) || m.Feasible != tt.feasible {
				t.Errorf("got throughput %.3f storage %.3f feasible %v, want %.3f %.3f %v (%s)",
					m.Throughput, m.Storage, m.Feasible, tt.wantThroughput, tt.wantStorage, tt.feasible, m.Formula)
			}
			if !near(m.Total, m.Throughput+m.Storage) {
				t.Errorf("total %v != throughput + storage", m.Total)
			}
		})
	}
}

func TestCheapest(t *testing.T) {
	c := Current
	// A light, spiky workload: serverless is cheapest.
	opts, best := c.Cheapest(5, 300, 1, Account{Regions: 1})
	if best < 0 || opts[best].Mode != Serverless {
		t.Errorf("light workload: best %d %+v", best, opts)
	}
	// Steady heavy workload: manual beats autoscale (1.5× price) when average is near peak.
	opts, best = c.Cheapest(9000, 10000, 50, Account{Regions: 1})
	if best < 0 || opts[best].Mode != Manual {
		t.Errorf("steady workload: best %d %+v", best, opts)
	}
	// Low average, high peak: autoscale.
	opts, best = c.Cheapest(1000, 40000, 50, Account{Regions: 2})
	if best < 0 || opts[best].Mode != Autoscale {
		t.Errorf("spiky multi-region workload: best %d %+v", best, opts)
	}
}

func TestHotPartition(t *testing.T) {
	c := Current
	tests := []struct {
		name string
		in   HotInput
		want Risk
	}{
		{"cool", HotInput{ProvisionedRU: 10000, Partitions: 2, BusiestRU: 100, BusiestGB: 1}, RiskNone},
		{"over its share", HotInput{ProvisionedRU: 20000, Partitions: 4, BusiestRU: 4000, PartitionRU: 6000}, RiskHigh},
		{"one partition: under-provisioning, not a hot partition", HotInput{ProvisionedRU: 400, Partitions: 1, BusiestRU: 300, PartitionRU: 900}, RiskNone},
		{"over 10,000", HotInput{ProvisionedRU: 200000, Partitions: 10, BusiestRU: 12000}, RiskHigh},
		{"warm storage", HotInput{ProvisionedRU: 4000, Partitions: 1, BusiestGB: 12}, RiskLow},
		{"logical partition over 20 GB", HotInput{ProvisionedRU: 4000, Partitions: 1, BusiestGB: 25}, RiskHigh},
		{"hierarchical prefix over 20 GB is fine", HotInput{ProvisionedRU: 4000, Partitions: 1, BusiestGB: 2, PrefixGB: 60, Hierarchical: true}, RiskNone},
		{"serverless partition limit", HotInput{Partitions: 1, BusiestRU: 6000, Serverless: true}, RiskHigh},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := c.HotPartition(tt.in)
			if h.Risk != tt.want {
				t.Errorf("risk %s, want %s (%v)", h.Risk, tt.want, h.Findings)
			}
		})
	}
	h := c.HotPartition(HotInput{ProvisionedRU: 20000, Partitions: 4, BusiestRU: 6000})
	if h.CapacityRU != 5000 || math.Abs(h.Utilization-1.2) > 1e-9 {
		t.Errorf("capacity %v utilization %v, want 5000 and 1.2", h.CapacityRU, h.Utilization)
	}
	h = c.HotPartition(HotInput{ProvisionedRU: 4000, Partitions: 1, BusiestGB: 2, PrefixGB: 60, Hierarchical: true})
	if len(h.Notes) != 1 || len(h.Findings) != 0 {
		t.Errorf("hierarchical prefix: findings %v notes %v, want one note", h.Findings, h.Notes)
	}
}

// A projected load past the int range reads as the most throughput and partitions there are, never
// as a negative count (a plain conversion wraps).
func TestCapacity_SaturatesHugeLoads(t *testing.T) {
	rc := Current
	for _, peak := range []float64{1e19, 1e25, math.Inf(1)} {
		if got := rc.ManualFor(peak, 0); got <= 0 {
			t.Errorf("ManualFor(%g) = %d", peak, got)
		}
		if got := rc.AutoscaleFor(peak, 0); got <= 0 {
			t.Errorf("AutoscaleFor(%g) = %d", peak, got)
		}
		if got := rc.PartitionsFor(Autoscale, 1e30, CeilInt(peak)); got <= 0 {
			t.Errorf("PartitionsFor(%g) = %d", peak, got)
		}
	}
	if CeilInt(math.NaN()) != 0 || CeilInt(-3) != 0 || CeilInt(2.1) != 3 {
		t.Errorf("CeilInt: NaN %d, -3 %d, 2.1 %d", CeilInt(math.NaN()), CeilInt(-3), CeilInt(2.1))
	}
}

// TestHotPartition_Headroom (#37 point 1): the one rule for "fits" and "headroom", hand figures.
// A logical partition can have 10,000 RU/s and 20 GB (concepts-limits); the default headroom is
// half of each.
func TestHotPartition_Headroom(t *testing.T) {
	c := Current
	tests := []struct {
		name           string
		in             HotInput
		fits, headroom bool
	}{
		{"9 GB: room", HotInput{ProvisionedRU: 4000, Partitions: 1, BusiestGB: 9}, true, true},
		{"18 GB: fits, no room", HotInput{ProvisionedRU: 4000, Partitions: 1, BusiestGB: 18}, true, false},
		{"21 GB: over", HotInput{ProvisionedRU: 4000, Partitions: 1, BusiestGB: 21}, false, false},
		{"4,000 RU/s of 10,000: room", HotInput{ProvisionedRU: 40000, Partitions: 4, BusiestRU: 4000, PartitionRU: 7000}, true, true},
		{"6,000 RU/s of 10,000: fits, no room", HotInput{ProvisionedRU: 40000, Partitions: 4, BusiestRU: 6000, PartitionRU: 9000}, true, false},
		{"physical partition over its even share 40,000/4", HotInput{ProvisionedRU: 40000, Partitions: 4, BusiestRU: 4000, PartitionRU: 11000}, false, false},
		{"18 GB at a 95% headroom: room", HotInput{ProvisionedRU: 4000, Partitions: 1, BusiestGB: 18, Headroom: 0.95}, true, true},
		// Short of throughput: 4 partitions at 20,000 RU/s get 5,000 each; the peak (60,000) needs
		// 6 partitions of 10,000; at those the busiest partition carries 2,000 + (6,000-2,000)×4/6
		// = 4,667 RU/s, within 10,000: the shortfall is the container's, not the key's.
		{"short of throughput, not hot", HotInput{ProvisionedRU: 20000, Partitions: 4, BusiestRU: 2000, PartitionRU: 6000, PeakRU: 60000, PeakPartitions: 6}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := c.HotPartition(tt.in)
			if h.Fits != tt.fits || h.Headroom != tt.headroom {
				t.Errorf("fits %v headroom %v, want %v %v (%v)", h.Fits, h.Headroom, tt.fits, tt.headroom, h.Findings)
			}
			if !tt.headroom && len(h.Findings) == 0 {
				t.Error("no headroom and no finding saying why")
			}
		})
	}
}

// TestCheapest_AccountCapacity (#37 point 1): serverless is an account-level capacity mode
// (learn.microsoft.com cosmos-db/throughput-serverless, how-to-change-capacity-mode), so a
// provisioned account's cheapest mode is never serverless. A container at 1 RU/s on average, no
// storage: serverless bills 1 × 730 × 3600 = 2.628 million RU × $0.25 = $0.66 and wins with no
// account; in a provisioned account autoscale at its least max, 1,000 RU/s, billed at its 10% floor,
// 100 RU/s ÷ 100 × $0.012 × 730 h = $8.76, beats manual 400 RU/s (4 × $0.008 × 730 = $23.36); a
// serverless account never picks a provisioned mode.
func TestCheapest_AccountCapacity(t *testing.T) {
	c := Current
	opts, best := c.Cheapest(1, 1, 0, Account{})
	if best < 0 || opts[best].Mode != Serverless || math.Abs(opts[best].Total-0.657) > 0.001 {
		t.Fatalf("no account: %+v", opts)
	}
	for _, f := range []func() ([]Monthly, int){
		func() ([]Monthly, int) { return c.Cheapest(1, 1, 0, Account{Capacity: ProvisionedAccount}) },
		func() ([]Monthly, int) {
			return c.CheapestServing(1, PartLoad{Cross: 1}, 0, Account{Capacity: ProvisionedAccount})
		},
	} {
		opts, best := f()
		if best < 0 || opts[best].Mode != Autoscale || opts[best].Provisioned != 1000 || math.Abs(opts[best].Total-8.76) > 1e-9 {
			t.Errorf("provisioned account: best %d of %+v", best, opts)
		}
		if opts[2].Feasible || !strings.Contains(opts[2].Reason, "account-level") {
			t.Errorf("serverless option in a provisioned account: %+v", opts[2])
		}
	}
	opts, best = c.Cheapest(5000, 5000, 0, Account{Capacity: ServerlessAccount})
	if best != 2 || opts[0].Feasible || opts[1].Feasible {
		t.Errorf("serverless account: best %d of %+v", best, opts)
	}
	if CapacityOf([]Mode{Serverless, Autoscale}) != ProvisionedAccount || CapacityOf([]Mode{Serverless}) != ServerlessAccount {
		t.Error("CapacityOf")
	}
}
