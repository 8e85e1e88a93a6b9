package cost

import (
	"fmt"
	"math"
)

// This file prices throughput hour by hour and predicts throttling per physical partition: the
// service bills autoscale on each hour's highest RU/s and throttles a physical partition asked for
// more than its share, so the bill and the 429s follow the traffic's shape, not its average.
//
// Sources (articles/cosmos-db/ of MicrosoftDocs/azure-databases-docs):
//   - autoscale-faq.yml, "How does pricing work with autoscale?": each hour is billed for the highest
//     RU/s the system scaled to within the hour, at least 0.1 × Tmax; the example "if the highest RU/s
//     the system scaled to within the hour was 6000 RU/s, you'd be billed 60 × 1.5 = 90 units of the
//     meter for the hour".
//   - how-to-choose-offer.md: autoscale scales 0.1 × Tmax ≤ T ≤ Tmax; with Tmax 4,000 RU/s, an hour
//     that scaled to 3,500 RU/s bills 3,500 and an idle hour 400 (10% of Tmax); autoscale saves when
//     the full Tmax is used in 66% of the hours or fewer (the rate is 1.5 × manual).
//   - autoscale-per-partition-region.md (dynamic scaling): default autoscale scales every partition and
//     region with the most active one; dynamic scaling scales each on its own. Example: 1,000 RU/s over
//     2 partitions in 2 regions, used 500, 200 (write region) and 150, 50 (read region) RU/s in an
//     hour: default bills 2,000 RU/s, dynamic 900 RU/s.
//   - burst-capacity.md: a partition under 3,000 RU/s accumulates up to 300 s of idle capacity and
//     spends it at up to 3,000 RU/s (100 RU/s idle for 5 minutes: 30,000 RU, 10 s at 3,000 RU/s); not
//     guaranteed, not on serverless.

// PartLoad is a container's load at one moment, split the way physical partitions see it.
type PartLoad struct {
	// Busiest is the RU/s of the busiest logical partition (its key's share of the key-scoped load).
	Busiest float64 `json:"busiestRU"`
	// KeyScoped is the RU/s of every single-partition request, the busiest key's included.
	KeyScoped float64 `json:"keyScopedRU"`
	// Cross is the RU/s of requests that reach every physical partition (their load spreads evenly).
	Cross float64 `json:"crossRU"`
}

// Total is the container's RU/s.
func (l PartLoad) Total() float64 { return l.KeyScoped + l.Cross }

// Scale multiplies every part of l by f.
func (l PartLoad) Scale(f float64) PartLoad {
	return PartLoad{Busiest: l.Busiest * f, KeyScoped: l.KeyScoped * f, Cross: l.Cross * f}
}

// Add sums two loads.
func (l PartLoad) Add(o PartLoad) PartLoad {
	return PartLoad{Busiest: l.Busiest + o.Busiest, KeyScoped: l.KeyScoped + o.KeyScoped, Cross: l.Cross + o.Cross}
}

// Sub is l less o, part by part, never below 0.
func (l PartLoad) Sub(o PartLoad) PartLoad {
	return PartLoad{Busiest: math.Max(l.Busiest-o.Busiest, 0), KeyScoped: math.Max(l.KeyScoped-o.KeyScoped, 0), Cross: math.Max(l.Cross-o.Cross, 0)}
}

// Hottest is the RU/s of the physical partition that holds the busiest logical partition, over n
// physical partitions: the busiest key's own load plus an even share of the rest (the other keys
// spread by the key's hash, the cross-partition requests over every partition).
func (l PartLoad) Hottest(n int) float64 {
	return l.Busiest + l.Other(n)
}

// Other is the RU/s of each of the other physical partitions.
func (l PartLoad) Other(n int) float64 {
	p := float64(max(n, 1))
	return math.Max(l.KeyScoped-l.Busiest, 0)/p + l.Cross/p
}

// Uses is the RU/s of each physical partition (the hottest first) in each of regions regions, every
// region carrying the same load (assumed: the design states one load, not one per region).
func (l PartLoad) Uses(n, regions int) [][]float64 {
	n = max(n, 1)
	out := make([][]float64, max(regions, 1))
	for r := range out {
		row := make([]float64, n)
		row[0] = l.Hottest(n)
		for i := 1; i < n; i++ {
			row[i] = l.Other(n)
		}
		out[r] = row
	}
	return out
}

// regionLoads is the load of each region at an hour's highest second: every region carries the whole
// load when a has no read shares (assumed: the design states one load); with read shares, each
// region carries every write (replicated) and its share of the reads.
func regionLoads(l, writes PartLoad, a Account) []PartLoad {
	out := make([]PartLoad, a.regions())
	for r := range out {
		out[r] = l
		if len(a.ReadShares) == len(out) {
			out[r] = writes.Add(l.Sub(writes).Scale(a.ReadShares[r]))
		}
	}
	return out
}

// AutoscaleScaling is how an account's autoscale scales.
type AutoscaleScaling string

// Autoscale scalings (autoscale-per-partition-region.md).
const (
	// ScaleContainer is the service's default: every partition and region scales with the most active
	// one, so an hour bills the hottest partition's RU/s × partitions × regions.
	ScaleContainer AutoscaleScaling = "container"
	// ScaleDynamic is dynamic scaling (per partition and region, enablePerRegionPerPartitionAutoscale):
	// each partition and region scales on its own between 10% and 100% of its share of max.
	ScaleDynamic AutoscaleScaling = "dynamic"
)

// AutoscaleHourRU is the RU/s autoscale bills for one hour (all regions together) with max RU/s
// maxRU, given each region's physical partitions' highest RU/s in the hour (uses[region][partition]).
// Default scaling: the most active partition and region set every partition's throughput, so the
// hour bills that partition's RU/s × partitions × regions, between 10% and 100% of max per region.
// Dynamic: each partition of each region bills its own highest RU/s, between 10% and 100% of its
// share of max. A use over the ceiling is billed at the ceiling (the rest is throttled).
func (c *RateCard) AutoscaleHourRU(maxRU float64, uses [][]float64, scaling AutoscaleScaling) float64 {
	floor := c.AutoscaleFloor.Value
	total := 0.0
	switch scaling {
	case ScaleDynamic:
		for _, row := range uses {
			n := float64(max(len(row), 1))
			share := maxRU / n
			for _, u := range row {
				total += clamp(u, floor*share, share)
			}
		}
	default:
		hottest, n := 0.0, 1
		for _, row := range uses {
			n = max(n, len(row))
			for _, u := range row {
				hottest = math.Max(hottest, u)
			}
		}
		per := clamp(hottest*float64(n), floor*maxRU, maxRU)
		total = per * float64(max(len(uses), 1))
	}
	return total
}

func clamp(x, lo, hi float64) float64 { return math.Min(math.Max(x, lo), hi) }

// AutoscaleMeterUnits is how many units of the standard (manual) throughput meter an hour at
// billedRU RU/s shows on a single-write-region bill: RU/s ÷ 100 × 1.5 (autoscale-faq.yml: 6,000
// RU/s is 60 × 1.5 = 90 units). The 1.5 is the autoscale rate over the manual rate of the card.
func (c *RateCard) AutoscaleMeterUnits(billedRU float64) float64 {
	return billedRU / 100 * (c.AutoscalePrice.Value / c.ManualPrice.Value)
}

// BurstSeconds is how long burst capacity could serve a physical partition with shareRU RU/s of
// provisioned throughput asked for demandRU RU/s, after it has been idle long enough to fill: the
// partition holds at most BurstIdleSeconds × shareRU RU and spends them at up to BurstMaxRU, as
// burst-capacity.md's example computes it (100 RU/s × 300 s = 30,000 RU ÷ 3,000 RU/s = 10 s). 0
// when the partition gets BurstMaxRU or more (no burst capacity), or is not over its share.
// Burst capacity is not guaranteed: a cushion, never capacity.
func (c *RateCard) BurstSeconds(shareRU, demandRU float64) float64 {
	if shareRU <= 0 || shareRU >= c.BurstMaxRU.Value || demandRU <= shareRU {
		return 0
	}
	return c.BurstIdleSeconds.Value * shareRU / math.Min(demandRU, c.BurstMaxRU.Value)
}

// MonthHour is one hour of the billed month: its load (each part the RU/s averaged over the hour)
// and its highest second's.
type MonthHour struct {
	Avg  PartLoad
	Peak PartLoad
	// RPS is the requests a second at the highest second (to turn throttled RU/s into requests).
	RPS float64
	// Event names the dated event that shapes the hour ("" for none).
	Event string
	// Low is the part of Peak sent at low priority (priority-based execution: throttled first).
	Low PartLoad
	// Writes is the part of Peak that writes: every region replicates it (autoscale-per-partition-
	// region.md's example: a read region's 150 RU/s hold 50 RU/s of writes from the write region).
	Writes PartLoad
	// Buckets are the peak RU/s sent with each throughput bucket, with the bucket's cap.
	Buckets []BucketLoad
}

// BucketLoad is what one throughput bucket's requests ask at an hour's highest second and the cap
// the container sets for it (throughput-buckets.md, preview).
type BucketLoad struct {
	ID         int     `json:"id"`
	MaxPercent float64 `json:"maxPercent"`
	RU         float64 `json:"ru"`
}

// HourVerdict is what one hour costs and where it throttles at a throughput setting.
type HourVerdict struct {
	// AvgRU and PeakRU are the container's RU/s over the hour and at its highest second.
	AvgRU  float64 `json:"avgRU"`
	PeakRU float64 `json:"peakRU"`
	// HottestRU is the busiest physical partition's RU/s at the highest second; ShareRU what that
	// partition gets at the setting.
	HottestRU float64 `json:"hottestPartitionRU"`
	ShareRU   float64 `json:"partitionShareRU"`
	// BusiestLogicalRU is the busiest logical partition's RU/s at the highest second: it can never
	// get more than its physical partition's share (at most 10,000 RU/s).
	BusiestLogicalRU float64 `json:"busiestLogicalRU"`
	// BilledRU is the RU/s the hour bills (all regions; serverless: the RU/s consumed).
	BilledRU float64 `json:"billedRU"`
	// ThrottledRU is the RU/s asked beyond what the partitions get, summed over the partitions;
	// ThrottledRPS the requests a second that get a 429 (at the hour's average charge per request).
	ThrottledRU  float64 `json:"throttledRU,omitempty"`
	ThrottledRPS float64 `json:"throttledRPS,omitempty"`
	// ThrottledHighRU is the part of the partitions' excess that falls on high-priority requests
	// once the low-priority ones are throttled first (priority-based execution: best effort, no
	// reservation, so a figure, not a promise).
	ThrottledHighRU float64 `json:"throttledHighRU,omitempty"`
	// ThrottledBucketRU is what throughput buckets refuse beyond their caps (429 substatus 3212): a
	// cap the design chose, apart from the partitions' throttling (not in ThrottledRU).
	ThrottledBucketRU float64 `json:"throttledBucketRU,omitempty"`
	// BurstSeconds is how long burst capacity might cover the hottest partition's excess (a cushion
	// that never counts toward "no throttling").
	BurstSeconds float64 `json:"burstSeconds,omitempty"`
	Event        string  `json:"event,omitempty"`
}

// Setting is a throughput setting with the scaling an autoscale account uses.
type Setting struct {
	Mode Mode
	// RU is manual RU/s or autoscale max RU/s (ignored for serverless).
	RU      int
	Scaling AutoscaleScaling
}

// PartitionsAt is the number of physical partitions a container created at s holds storageGB in:
// manual RU/s ÷ 6,000 at creation, autoscale max ÷ 10,000, serverless by storage alone (a serverless
// container's partitions follow its data), and at least one per 50 GB.
func (c *RateCard) PartitionsAt(s Setting, storageGB float64) int {
	if s.Mode == Serverless {
		return max(1, ceilDiv(storageGB, c.PartitionMaxGB.Value))
	}
	return c.PartitionsFor(s.Mode, storageGB, s.RU)
}

// ShareAt is the RU/s each of n physical partitions gets at s: the throughput split evenly, at most
// 10,000 RU/s (manual) or the autoscale max's share; serverless 5,000 RU/s per partition and 20,000 per
// container (throughput-serverless.md).
func (c *RateCard) ShareAt(s Setting, n int) float64 {
	p := float64(max(n, 1))
	if s.Mode == Serverless {
		return math.Min(c.ServerlessPartRU.Value, c.ServerlessMaxRU.Value/p)
	}
	return math.Min(c.PartitionMaxRU.Value, float64(s.RU)/p)
}

// JudgeHour bills one hour at s over n physical partitions and regions regions and says what it
// throttles.
func (c *RateCard) JudgeHour(h MonthHour, s Setting, n, regions int) HourVerdict {
	return c.judge(h, s, n, Account{Regions: regions})
}

// judge is JudgeHour on account a: with read shares, each region's load is its own (regionLoads);
// throttling is judged in the busiest region, and autoscale bills every region's partitions.
func (c *RateCard) judge(h MonthHour, s Setting, n int, a Account) HourVerdict {
	share := c.ShareAt(s, n)
	loads := regionLoads(h.Peak, h.Writes, a)
	busiest := 0
	for r, l := range loads {
		if l.Total() > loads[busiest].Total() {
			busiest = r
		}
	}
	peak, low := loads[busiest], h.Low
	if t := h.Peak.Total(); t > 0 && peak.Total() < t {
		low = low.Scale(peak.Total() / t)
	}
	v := HourVerdict{AvgRU: h.Avg.Total(), PeakRU: peak.Total(), Event: h.Event}
	// Throughput buckets refuse what a bucket asks beyond its cap, a percentage of the container's
	// throughput (manual RU/s, autoscale max: assumed, the docs say "the container's total
	// throughput"), taken on the whole container (assumed: the docs do not say whether the cap also
	// holds per physical partition). What they refuse never reaches the partitions.
	if s.Mode != Serverless {
		for _, b := range h.Buckets {
			v.ThrottledBucketRU += math.Max(b.RU-b.MaxPercent/100*float64(s.RU), 0)
		}
		if t := peak.Total(); v.ThrottledBucketRU > 1e-9 && t > 0 {
			f := 1 - math.Min(v.ThrottledBucketRU/t, 1)
			peak, low = peak.Scale(f), low.Scale(f)
			for r := range loads {
				loads[r] = loads[r].Scale(f)
			}
		} else {
			v.ThrottledBucketRU = 0
		}
	}
	v.HottestRU, v.ShareRU, v.BusiestLogicalRU = peak.Hottest(n), share, peak.Busiest
	overHot, overOther := math.Max(peak.Hottest(n)-share, 0), math.Max(peak.Other(n)-share, 0)
	others := float64(max(n, 1) - 1)
	v.ThrottledRU = overHot + others*overOther
	// Priority-based execution throttles low-priority requests first, on each partition.
	v.ThrottledHighRU = math.Max(overHot-low.Hottest(n), 0) + others*math.Max(overOther-low.Other(n), 0)
	switch {
	case v.ThrottledRU <= 1e-9:
		v.ThrottledRU, v.ThrottledHighRU = 0, 0
	case h.Peak.Total() > 0 && h.RPS > 0:
		v.ThrottledRPS = v.ThrottledRU / (h.Peak.Total() / h.RPS)
	}
	if s.Mode != Serverless {
		v.BurstSeconds = c.BurstSeconds(share, v.HottestRU)
	}
	switch s.Mode {
	case Serverless:
		v.BilledRU = v.AvgRU
	case Autoscale:
		uses := make([][]float64, len(loads))
		for r, l := range loads {
			uses[r] = l.Uses(n, 1)[0]
		}
		v.BilledRU = c.AutoscaleHourRU(float64(s.RU), uses, s.Scaling)
	default:
		v.BilledRU = float64(s.RU) * float64(a.regions())
	}
	return v
}

// MonthBill is a month of hours priced at one setting.
type MonthBill struct {
	Mode    Mode             `json:"mode"`
	RU      int              `json:"ru,omitempty"`
	Scaling AutoscaleScaling `json:"scaling,omitempty"`
	// Partitions is the physical partitions at the setting (at creation).
	Partitions   int     `json:"partitions"`
	Throughput   float64 `json:"throughputUSD"`
	Storage      float64 `json:"storageUSD"`
	Total        float64 `json:"totalUSD"`
	ThrottledHrs int     `json:"throttledHours"`
	// BucketHrs is the hours in which a throughput bucket refuses requests beyond its cap (429
	// substatus 3212): the cap the design chose, not counted in ThrottledHrs.
	BucketHrs int `json:"bucketCappedHours,omitempty"`
	// Serves is true when no hour throttles (burst capacity not counted) and the mode is possible.
	Serves  bool   `json:"serves"`
	Reason  string `json:"reason,omitempty"`
	Formula string `json:"formula"`
}

// BillMonth prices every hour of the month at s (hours[i] is hour i of the billed month) and counts
// the hours that throttle. Manual bills its RU/s every hour; autoscale each hour's highest RU/s at
// least 10% of max (by its scaling); serverless every RU consumed. Throughput and storage × regions
// (serverless: one region).
func (c *RateCard) BillMonth(hours []MonthHour, s Setting, storageGB float64, a Account) (MonthBill, []HourVerdict) {
	n := c.PartitionsAt(s, storageGB)
	regions := a.regions()
	b := MonthBill{Mode: s.Mode, RU: s.RU, Partitions: n, Serves: true}
	if s.Mode == Autoscale {
		b.Scaling = s.Scaling
		if b.Scaling == "" {
			b.Scaling = ScaleContainer
		}
	}
	verdicts := make([]HourVerdict, len(hours))
	billedRUh := 0.0 // Σ over hours of the billed RU/s
	for i, h := range hours {
		v := c.judge(h, Setting{Mode: s.Mode, RU: s.RU, Scaling: b.Scaling}, n, a)
		verdicts[i] = v
		billedRUh += v.BilledRU
		if v.ThrottledRU > 0 {
			b.ThrottledHrs++
		}
		if v.ThrottledBucketRU > 0 {
			b.BucketHrs++
		}
	}
	storage := math.Max(storageGB, 0)
	switch s.Mode {
	case Serverless:
		b.Throughput = billedRUh * 3600 / 1e6 * c.ServerlessPrice.Value
		b.Storage = storage * c.StoragePrice.Value
		b.Formula = fmt.Sprintf("Σ hourly RU/s × 3600 s = %.4g RU × $%g per million + %.3g GB × $%g", billedRUh*3600, c.ServerlessPrice.Value, storage, c.StoragePrice.Value)
		if regions > int(c.ServerlessMaxRegions.Value) {
			b.Serves, b.Reason = false, fmt.Sprintf("serverless runs in one region (design has %d)", regions)
		}
	case Autoscale:
		price := c.AutoscalePrice.Value
		if a.MultiRegionWrites {
			price = c.AutoscaleMRWPrice.Value
		}
		b.Throughput = billedRUh / 100 * price
		b.Storage = storage * c.StoragePrice.Value * float64(regions)
		b.Formula = fmt.Sprintf("Σ over %d h of the hour's highest RU/s (%s scaling, at least 10%% of max %d, × %d region(s)) = %.0f RU/s-hours ÷ 100 × $%g + %.3g GB × $%g × %d region(s)",
			len(hours), b.Scaling, s.RU, regions, billedRUh, price, storage, c.StoragePrice.Value, regions)
	default:
		price := c.ManualPrice.Value
		if a.MultiRegionWrites {
			price = c.ManualMRWPrice.Value
		}
		b.Throughput = billedRUh / 100 * price
		b.Storage = storage * c.StoragePrice.Value * float64(regions)
		b.Formula = fmt.Sprintf("%d RU/s × %d h × %d region(s) ÷ 100 × $%g + %.3g GB × $%g × %d region(s)",
			s.RU, len(hours), regions, price, storage, c.StoragePrice.Value, regions)
	}
	b.Total = b.Throughput + b.Storage
	if b.ThrottledHrs > 0 {
		b.Serves = false
		if b.Reason == "" {
			b.Reason = fmt.Sprintf("%d of %d hours throttle", b.ThrottledHrs, len(hours))
		}
	}
	return b, verdicts
}

// ServingSetting is the least throughput of mode that serves every hour of hours without a 429 at any
// physical partition (burst capacity not counted), holds storageGB, and is a setting the service
// allows: manual in 100 RU/s steps from MAX(400, 1 RU/s per GB), autoscale max in 1,000 RU/s steps
// from MAX(1,000, 10 RU/s per GB); serverless when its partitions serve every hour. Partitions follow
// the setting at creation (manual ÷ 6,000, autoscale ÷ 10,000), so a partition's share is not
// monotonic in RU/s: the search raises the setting until the partitions it creates serve the hottest
// one. ok is false when no setting of the mode serves (the busiest logical partition alone needs more
// than a physical partition of the mode can get); why says so.
func (c *RateCard) ServingSetting(mode Mode, hours []MonthHour, storageGB float64, scaling AutoscaleScaling) (s Setting, ok bool, why string) {
	s = Setting{Mode: mode, Scaling: scaling}
	busiest, peak := 0.0, 0.0
	for _, h := range hours {
		busiest = math.Max(busiest, h.Peak.Busiest)
		peak = math.Max(peak, h.Peak.Total())
	}
	serves := func(s Setting) bool {
		n := c.PartitionsAt(s, storageGB)
		share := c.ShareAt(s, n)
		for _, h := range hours {
			if h.Peak.Hottest(n) > share+1e-9 || h.Peak.Other(n) > share+1e-9 {
				return false
			}
		}
		return true
	}
	switch mode {
	case Serverless:
		if serves(s) {
			return s, true, ""
		}
		n := c.PartitionsAt(s, storageGB)
		return s, false, fmt.Sprintf("serverless serves %.0f RU/s per physical partition (%d at %.3g GB): the busiest hour needs %.0f RU/s, its hottest partition %.0f",
			c.ShareAt(s, n), n, storageGB, peak, hottestOf(hours, n))
	case Autoscale:
		s.RU = c.AutoscaleFor(peak, storageGB)
	default:
		s.RU = c.ManualFor(peak, storageGB)
	}
	perPart := c.PartitionMaxRU.Value
	if mode == Manual {
		perPart = c.PartitionCreateRU.Value
	}
	if busiest > perPart {
		return s, false, fmt.Sprintf("the busiest logical partition needs %.0f RU/s at its busiest second; a physical partition of a container created at %s throughput gets at most %.0f RU/s (a logical partition can never have more than %.0f)",
			busiest, mode, perPart, c.PartitionMaxRU.Value)
	}
	step := c.ManualStep.Value
	if mode == Autoscale {
		step = c.AutoscaleStep.Value
	}
	// The hottest partition at n partitions needs n × its busiest key + the rest of the load; the
	// setting that gives it that may create more partitions, which spread the rest thinner and need
	// more again. Each round adds partitions, so the search ends; it gives up past maxPartitions.
	const maxPartitions = 100_000
	base := s.RU
	n := c.PartitionsAt(s, storageGB)
	for n <= maxPartitions {
		need := 0.0
		for _, h := range hours {
			need = math.Max(need, float64(n)*h.Peak.Busiest+math.Max(h.Peak.Total()-h.Peak.Busiest, 0))
		}
		s.RU = max(base, roundUp(need, step))
		n2 := c.PartitionsAt(s, storageGB)
		if n2 <= n && serves(s) {
			return s, true, ""
		}
		n = max(n+1, n2)
	}
	return s, false, fmt.Sprintf("no setting serves every hour with fewer than %d physical partitions", maxPartitions)
}

func hottestOf(hours []MonthHour, n int) float64 {
	h := 0.0
	for _, x := range hours {
		h = math.Max(h, x.Peak.Hottest(n))
	}
	return h
}
