package cost

import (
	"fmt"
	"math"
)

// Mode is a throughput mode.
type Mode string

// Throughput modes.
const (
	Manual     Mode = "manual"
	Autoscale  Mode = "autoscale"
	Serverless Mode = "serverless"
)

// RUPerSecond is the throughput a pattern needs: its charge per execution times its rate.
func RUPerSecond(ruPerOp, rps float64) float64 {
	if ruPerOp <= 0 || rps <= 0 {
		return 0
	}
	return ruPerOp * rps
}

func ceilDiv(x, y float64) int {
	if x <= 0 || y <= 0 {
		return 0
	}
	return CeilInt(x/y - 1e-9)
}

// CeilInt is x rounded up to a whole number, saturating: 0 for NaN and what is not positive, and
// math.MaxInt past it, where a plain conversion wraps to a negative count (a projected load of
// 10^20 RU/s must read as more than any throughput, never as a negative one).
func CeilInt(x float64) int {
	switch {
	case math.IsNaN(x) || x <= 0:
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt
	}
	return int(math.Ceil(x))
}

// PhysicalPartitions is the number of physical partitions of a container created with ru RU/s of
// manual throughput holding storageGB: ceil(RU/s ÷ 6,000) at creation, and at least one partition per
// 50 GB and per 10,000 RU/s.
func PhysicalPartitions(storageGB float64, ru int) int {
	return Current.PhysicalPartitions(storageGB, ru)
}

// PhysicalPartitions is the rate card's version of the package-level PhysicalPartitions.
func (c *RateCard) PhysicalPartitions(storageGB float64, ru int) int {
	n := max(1,
		ceilDiv(float64(ru), c.PartitionCreateRU.Value),
		ceilDiv(float64(ru), c.PartitionMaxRU.Value),
		ceilDiv(storageGB, c.PartitionMaxGB.Value))
	return n
}

// PartitionsFor is the number of physical partitions for a container in the given mode: manual as
// PhysicalPartitions; autoscale from its max RU/s ÷ 10,000 (autoscale-faq.yml) and storage; serverless
// from storage and 5,000 RU/s per partition.
func (c *RateCard) PartitionsFor(mode Mode, storageGB float64, ru int) int {
	switch mode {
	case Autoscale:
		return max(1, ceilDiv(float64(ru), c.PartitionMaxRU.Value), ceilDiv(storageGB, c.PartitionMaxGB.Value))
	case Serverless:
		return max(1, ceilDiv(float64(ru), c.ServerlessPartRU.Value), ceilDiv(storageGB, c.PartitionMaxGB.Value))
	default:
		return c.PhysicalPartitions(storageGB, ru)
	}
}

func roundUp(x, step float64) int {
	if step <= 0 {
		return CeilInt(x)
	}
	n := CeilInt(x/step - 1e-9)
	if n > math.MaxInt/int(math.Max(step, 1)) {
		return math.MaxInt
	}
	return CeilInt(float64(n) * step)
}

// ManualFor is the least manual throughput (RU/s) that holds peak RU/s and storageGB.
func (c *RateCard) ManualFor(peak, storageGB float64) int {
	need := math.Max(math.Max(peak, c.ManualMinRU.Value), storageGB*c.ManualMinRUPerGB.Value)
	return roundUp(need, c.ManualStep.Value)
}

// AutoscaleFor is the least autoscale max RU/s that holds peak RU/s and storageGB.
func (c *RateCard) AutoscaleFor(peak, storageGB float64) int {
	need := math.Max(math.Max(peak, c.AutoscaleMinMax.Value), storageGB*c.AutoscaleMaxPerGB.Value)
	return roundUp(need, c.AutoscaleStep.Value)
}

// Account is what monthly cost depends on beyond the container itself.
type Account struct {
	// Regions the account is replicated to (1 if 0).
	Regions int
	// MultiRegionWrites is true when every region accepts writes.
	MultiRegionWrites bool
	// ReadShares, one per region summing to 1, is each region's share of the reads (every region
	// replicates every write); nil = every region carries the whole load (assumed). Hour-by-hour
	// billing and throttling only (BillMonth).
	ReadShares []float64
	// Capacity is the account's capacity mode, which every recommended mode must belong to:
	// serverless is an account-level mode, so an account holds either serverless containers or
	// provisioned (manual and autoscale) ones, never both (learn.microsoft.com
	// cosmos-db/throughput-serverless, how-to-change-capacity-mode). "" allows every mode.
	Capacity Capacity
}

// Capacity is an account's capacity mode.
type Capacity string

// Capacity modes.
const (
	ProvisionedAccount Capacity = "provisioned"
	ServerlessAccount  Capacity = "serverless"
)

// CapacityOf is the capacity mode of an account whose containers are set to these modes: serverless
// when every one is, else provisioned (a serverless container cannot join a provisioned account).
func CapacityOf(modes []Mode) Capacity {
	for _, m := range modes {
		if m != Serverless {
			return ProvisionedAccount
		}
	}
	return ServerlessAccount
}

// Excludes says why mode cannot be recommended for a container of account a ("" when it can):
// serverless in a provisioned account, manual or autoscale in a serverless one. It is the one home
// of that rule; every choice of the cheapest mode (Cheapest, CheapestServing, plan's hour-by-hour
// options) applies it.
func (a Account) Excludes(mode Mode) string {
	switch {
	case a.Capacity == ProvisionedAccount && mode == Serverless:
		return "the account is provisioned: serverless is an account-level capacity mode, never mixed with provisioned containers in one account"
	case a.Capacity == ServerlessAccount && mode != Serverless:
		return "the account is serverless: a provisioned container needs the whole account changed to provisioned throughput"
	}
	return ""
}

// exclude marks the options a's capacity mode rules out as infeasible, and returns the cheapest
// feasible one's index (-1 when none is).
func (a Account) exclude(opts []Monthly) int {
	best := -1
	for i := range opts {
		if why := a.Excludes(opts[i].Mode); why != "" && opts[i].Feasible {
			opts[i].Feasible, opts[i].Reason = false, why
		}
		if opts[i].Feasible && (best < 0 || opts[i].Total < opts[best].Total) {
			best = i
		}
	}
	return best
}

func (a Account) regions() int { return max(a.Regions, 1) }

// Usage is a container's throughput setting and load.
type Usage struct {
	Mode Mode
	// Provisioned is manual RU/s or autoscale max RU/s (ignored for serverless).
	Provisioned int
	// AvgRU and PeakRU are the RU/s the workload consumes on average and at peak.
	AvgRU, PeakRU float64
	// StorageGB is the data stored (one region's copy).
	StorageGB float64
}

// Monthly is one container's monthly bill in a mode, with the arithmetic spelled out.
type Monthly struct {
	Mode Mode `json:"mode"`
	// Provisioned is the manual RU/s or autoscale max priced (0 for serverless).
	Provisioned int     `json:"provisionedRU,omitempty"`
	Throughput  float64 `json:"throughputUSD"`
	Storage     float64 `json:"storageUSD"`
	Total       float64 `json:"totalUSD"`
	// BilledRU is the RU/s billed each hour (manual: provisioned; autoscale: the assumed hourly
	// highest, at least 10% of max), or for serverless the RU consumed in the month.
	BilledRU float64 `json:"billedRU"`
	// Formula shows the arithmetic so a reader can check it by hand.
	Formula string `json:"formula"`
	// Feasible is false when the mode cannot serve the usage (serverless over its limits or with
	// more than one region); Reason says why.
	Feasible bool   `json:"feasible"`
	Reason   string `json:"reason,omitempty"`
	// Sizing says why the setting is above what the container's peak alone needs: the busiest
	// physical partition's share (CheapestServing).
	Sizing string `json:"sizing,omitempty"`
}

// MonthlyCost prices a container's usage for a month on account a. Autoscale has no hourly profile
// to go by: each hour is billed at the larger of the average RU/s and 10% of max (an assumption the
// plan prints). Serverless bills every RU consumed at the average rate for the month.
func (c *RateCard) MonthlyCost(u Usage, a Account) Monthly {
	h := c.HoursPerMonth.Value
	regions := float64(a.regions())
	m := Monthly{Mode: u.Mode, Feasible: true}
	if u.Mode != Serverless {
		m.Provisioned = u.Provisioned
	}
	storage := math.Max(u.StorageGB, 0)
	switch u.Mode {
	case Serverless:
		if a.regions() > int(c.ServerlessMaxRegions.Value) {
			m.Feasible, m.Reason = false, fmt.Sprintf("serverless runs in one region (design has %d)", a.regions())
		} else if u.PeakRU > c.ServerlessMaxRU.Value {
			m.Feasible, m.Reason = false, fmt.Sprintf("peak %.0f RU/s over serverless %.0f RU/s", u.PeakRU, c.ServerlessMaxRU.Value)
		}
		consumed := math.Max(u.AvgRU, 0) * h * 3600
		m.BilledRU = consumed
		m.Throughput = consumed / 1e6 * c.ServerlessPrice.Value
		m.Formula = fmt.Sprintf("%.0f RU/s × %.0f h × 3600 s = %.4g RU × $%g per million", u.AvgRU, h, consumed, c.ServerlessPrice.Value)
	case Autoscale:
		price := c.AutoscalePrice.Value
		if a.MultiRegionWrites {
			price = c.AutoscaleMRWPrice.Value
		}
		billed := math.Max(math.Max(u.AvgRU, 0), c.AutoscaleFloor.Value*float64(u.Provisioned))
		m.BilledRU = billed
		m.Throughput = billed / 100 * price * h * regions
		m.Formula = fmt.Sprintf("max(avg %.0f, 10%% of %d) = %.0f RU/s ÷ 100 × $%g × %.0f h × %d region(s)",
			u.AvgRU, u.Provisioned, billed, price, h, a.regions())
	default:
		price := c.ManualPrice.Value
		if a.MultiRegionWrites {
			price = c.ManualMRWPrice.Value
		}
		m.BilledRU = float64(u.Provisioned)
		m.Throughput = float64(u.Provisioned) / 100 * price * h * regions
		m.Formula = fmt.Sprintf("%d RU/s ÷ 100 × $%g × %.0f h × %d region(s)", u.Provisioned, price, h, a.regions())
	}
	storageRegions := regions
	if u.Mode == Serverless {
		storageRegions = 1
	}
	m.Storage = storage * c.StoragePrice.Value * storageRegions
	m.Total = m.Throughput + m.Storage
	m.Formula += fmt.Sprintf(" + %.3g GB × $%g × %.0f region(s)", storage, c.StoragePrice.Value, storageRegions)
	return m
}

// Cheapest sizes a container in every mode for its peak and storage, prices each, and returns them
// with the index of the cheapest feasible one (-1 when none is).
func (c *RateCard) Cheapest(avgRU, peakRU, storageGB float64, a Account) ([]Monthly, int) {
	opts := []Monthly{
		c.MonthlyCost(Usage{Mode: Manual, Provisioned: c.ManualFor(peakRU, storageGB), AvgRU: avgRU, PeakRU: peakRU, StorageGB: storageGB}, a),
		c.MonthlyCost(Usage{Mode: Autoscale, Provisioned: c.AutoscaleFor(peakRU, storageGB), AvgRU: avgRU, PeakRU: peakRU, StorageGB: storageGB}, a),
		c.MonthlyCost(Usage{Mode: Serverless, AvgRU: avgRU, PeakRU: peakRU, StorageGB: storageGB}, a),
	}
	return opts, a.exclude(opts)
}

// sharedOnly reports whether a container short of throughput has its busiest physical partition over
// its share only because every partition is: at the throughput its peak needs (more partitions,
// which spread the shared load thinner) that partition would be within its share, give or take
// HotMargin.
func sharedOnly(in HotInput, limit, load float64, p int) bool {
	if in.Serverless || in.PeakRU <= 0 || in.ProvisionedRU >= in.PeakRU {
		return false
	}
	npPeak := float64(max(p, in.PeakPartitions))
	atPeak := in.PeakPartitionRU
	if atPeak <= 0 {
		atPeak = in.BusiestRU + (load-in.BusiestRU)*float64(p)/npPeak
	}
	return atPeak <= math.Min(limit, in.PeakRU/npPeak)*(1+HotMargin)
}

// CheapestServing is Cheapest with every mode sized so that the busiest physical partition is served
// at peak, not only the container's total (ServingSetting: partitions at creation, the throughput
// split evenly): a mode that cannot serve the busiest logical partition at any setting is not
// feasible, and Reason says why. peak is the load at its peak, split the way partitions see it.
func (c *RateCard) CheapestServing(avgRU float64, peak PartLoad, storageGB float64, a Account) ([]Monthly, int) {
	hours := []MonthHour{{Peak: peak}}
	total := peak.Total()
	opts := make([]Monthly, 0, 3)
	for _, mode := range []Mode{Manual, Autoscale, Serverless} {
		s, ok, why := c.ServingSetting(mode, hours, storageGB, ScaleContainer)
		m := c.MonthlyCost(Usage{Mode: mode, Provisioned: s.RU, AvgRU: avgRU, PeakRU: total, StorageGB: storageGB}, a)
		if !ok {
			if m.Feasible {
				m.Feasible, m.Reason = false, why
			}
		} else if mode != Serverless {
			plain := c.ManualFor(total, storageGB)
			if mode == Autoscale {
				plain = c.AutoscaleFor(total, storageGB)
			}
			if s.RU > plain {
				n := c.PartitionsAt(s, storageGB)
				m.Sizing = fmt.Sprintf("%d RU/s, not the %d the peak of %.0f RU/s needs: at %d the busiest physical partition asks %.0f RU/s of the %.0f it gets; %d creates %d partitions of %.0f RU/s and the busiest asks %.0f",
					s.RU, plain, total, plain, peak.Hottest(c.PartitionsAt(Setting{Mode: mode, RU: plain}, storageGB)),
					c.ShareAt(Setting{Mode: mode, RU: plain}, c.PartitionsAt(Setting{Mode: mode, RU: plain}, storageGB)),
					s.RU, n, c.ShareAt(s, n), peak.Hottest(n))
			}
		}
		opts = append(opts, m)
	}
	return opts, a.exclude(opts)
}

// Risk grades a hot-partition finding.
type Risk string

// Risk levels.
const (
	RiskNone Risk = "none"
	RiskLow  Risk = "low"
	RiskHigh Risk = "high"
)

// HotInput describes a container's busiest logical partition.
type HotInput struct {
	// ProvisionedRU is the container's RU/s (manual, or autoscale max); for serverless, 0.
	ProvisionedRU float64
	// Partitions is the number of physical partitions.
	Partitions int
	// BusiestRU is the peak RU/s of the busiest logical partition.
	BusiestRU float64
	// PartitionRU is the peak RU/s of the physical partition that holds it: its own load plus that
	// partition's even share of the rest (0 = BusiestRU).
	PartitionRU float64
	// BusiestGB is the storage of the largest logical partition (full key).
	BusiestGB float64
	// PrefixGB is, for hierarchical keys, the storage of the largest first-level key prefix.
	PrefixGB float64
	// Hierarchical is true for MultiHash keys.
	Hierarchical bool
	// Serverless uses the serverless per-partition limit.
	Serverless bool
	// Headroom is the share of a logical partition's limits the busiest one may use and still leave
	// room (0 = DefaultKeyHeadroom).
	Headroom float64
	// PeakRU is the container's modeled peak RU/s and PeakPartitions the physical partitions the
	// throughput that carries it needs (0 = not known). When ProvisionedRU is below PeakRU the
	// container is short of throughput (throughput-short): its busiest physical partition is over
	// its share mostly because every partition is, and that is not the key's doing unless the
	// busiest logical partition keeps its physical partition over the share it would get at the
	// throughput the peak needs, by more than HotMargin.
	PeakRU         float64
	PeakPartitions int
	// PeakPartitionRU is the busiest physical partition's peak RU/s at PeakPartitions (0 = the
	// busiest logical partition plus an even share of the rest of PartitionRU's load).
	PeakPartitionRU float64
}

// HotMargin is how far over its even share of the peak the busiest physical partition must be for
// a container short of throughput to have a hot partition as well (assumed: a designer sizing for
// the modeled peak keeps about this much headroom; no published figure).
const HotMargin = 0.1

// DefaultKeyHeadroom is the share of the throughput a logical partition can use (UsableRU) and of
// the 20 GB it can hold that its busiest one may reach at production and still be called a key with
// headroom (assumed: the modeling guidance asks for a key that spreads requests and storage evenly
// with room to grow, and publishes no share; half leaves a doubling of the busiest value before a
// limit binds). Configurable: plan and advise --headroom.
const DefaultKeyHeadroom = 0.5

// Hot is the hot-partition verdict of a container.
type Hot struct {
	// CapacityRU is what the busiest logical partition's physical partition can serve: the container's
	// throughput split evenly, at most 10,000 RU/s.
	CapacityRU float64 `json:"capacityRU"`
	// Utilization is BusiestRU ÷ CapacityRU.
	Utilization float64  `json:"utilization"`
	Risk        Risk     `json:"risk"`
	Findings    []string `json:"findings,omitempty"`
	// Notes are facts worth knowing that are not risks.
	Notes []string `json:"notes,omitempty"`
	// Fits is true when the busiest logical partition is within every limit: at most the 10,000 RU/s
	// (serverless: its own) a logical partition can have, its physical partition within its even
	// share of the throughput when there are several (CapacityRU: min(10,000 RU/s, the container's
	// RU/s ÷ its physical partitions), concepts-limits, set-throughput), at most 20 GB (the full
	// key, with hierarchical keys). Headroom is true when it fits and its peak RU/s and storage at
	// production are also within HeadroomShare of the 10,000 RU/s and the 20 GB: the limits no
	// throughput raises (a container that is merely short of throughput is throughput-short, not a
	// key without headroom).
	// This is the one rule for "fits" and "hot": plan's hot-partition findings and advise's key
	// ranking both read it.
	Fits          bool    `json:"fits"`
	Headroom      bool    `json:"headroom"`
	HeadroomShare float64 `json:"headroomShare"`
	// HeadroomRU is the finding (one of Findings) that the busiest logical partition's peak RU/s is
	// over the headroom share of the 10,000 RU/s, "" when it is not: plan words it as
	// hot-key-no-mode, advise ranks by it.
	HeadroomRU string `json:"-"`
	// RUShare and GBShare are the busiest logical partition's peak RU/s ÷ the 10,000 RU/s a logical
	// partition can ever have, and its storage ÷ 20 GB.
	RUShare float64 `json:"ruShare"`
	GBShare float64 `json:"gbShare"`
}

// HotPartition judges a container's busiest logical partition against its physical partition's share
// of throughput (throughput is split evenly, at most 10,000 RU/s each) and against the 20 GB logical
// partition limit, which with hierarchical keys binds the full key, not a prefix.
func (c *RateCard) HotPartition(in HotInput) Hot {
	p := max(in.Partitions, 1)
	limit := c.PartitionMaxRU.Value
	if in.Serverless {
		limit = c.ServerlessPartRU.Value
	}
	capRU := limit
	if in.ProvisionedRU > 0 {
		capRU = math.Min(limit, in.ProvisionedRU/float64(p))
	}
	load := in.PartitionRU
	if load <= 0 {
		load = in.BusiestRU
	}
	share := in.Headroom
	if share <= 0 || share > 1 {
		share = DefaultKeyHeadroom
	}
	maxGB := c.LogicalMaxGB.Value
	h := Hot{CapacityRU: capRU, Risk: RiskNone, HeadroomShare: share}
	if capRU > 0 {
		h.Utilization = load / capRU
	}
	if c.PartitionMaxRU.Value > 0 {
		h.RUShare = in.BusiestRU / c.PartitionMaxRU.Value
	}
	if maxGB > 0 {
		h.GBShare = in.BusiestGB / maxGB
	}
	raise := func(r Risk) {
		if r == RiskHigh || h.Risk == RiskNone {
			h.Risk = r
		}
	}
	switch {
	case in.BusiestRU > limit:
		raise(RiskHigh)
		h.Findings = append(h.Findings, fmt.Sprintf("busiest logical partition needs %.0f RU/s, over the %.0f RU/s a physical partition serves", in.BusiestRU, limit))
	case p > 1 && h.Utilization > 1 && !sharedOnly(in, limit, load, p):
		// With one partition this is plain under-provisioning, reported as such elsewhere; so is a
		// partition over its share only because every partition is (sharedOnly).
		raise(RiskHigh)
		h.Findings = append(h.Findings, fmt.Sprintf("physical partition of the busiest logical partition needs %.0f RU/s at peak, gets %.0f RU/s (throughput split evenly over %d)", load, capRU, p))
	}
	if h.RUShare > share {
		// Over the headroom of what a logical partition can ever have: said once (plan words it as
		// hot-key-no-mode), and a finding of its own unless the key is over the limit already.
		h.HeadroomRU = fmt.Sprintf("busiest logical partition needs %.0f RU/s at peak, %.0f%% of the %.0f RU/s a logical partition can ever have: over the %.0f%% headroom",
			in.BusiestRU, 100*h.RUShare, c.PartitionMaxRU.Value, 100*share)
		if in.BusiestRU <= limit {
			raise(RiskLow)
			h.Findings = append(h.Findings, h.HeadroomRU)
		}
	}
	switch {
	case in.BusiestGB > maxGB:
		raise(RiskHigh)
		h.Findings = append(h.Findings, fmt.Sprintf("largest logical partition holds %.1f GB, over the %.0f GB limit", in.BusiestGB, maxGB))
	case h.GBShare > share:
		raise(RiskLow)
		h.Findings = append(h.Findings, fmt.Sprintf("largest logical partition holds %.1f GB of the %.0f GB limit: over the %.0f%% headroom", in.BusiestGB, maxGB, 100*share))
	}
	h.Fits = h.Risk != RiskHigh
	h.Headroom = h.Risk == RiskNone
	if in.Hierarchical && in.PrefixGB > maxGB && in.BusiestGB <= maxGB {
		h.Notes = append(h.Notes, fmt.Sprintf("largest key prefix holds %.1f GB: allowed with hierarchical keys (the limit binds the full key)", in.PrefixGB))
	}
	return h
}
