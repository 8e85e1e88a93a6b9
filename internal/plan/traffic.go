package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
)

// Traffic is a container's month hour by hour, when the design states its traffic's shape
// (design.Traffic): every figure is the cost package's (cost.RateCard.BillMonth, ServingSetting), over
// the hours the shape and the events give each pattern's average load.
type Traffic struct {
	// Shape says what shaped the hours ("evening", "hourly factors", per-pattern shapes).
	Shape string `json:"shape"`
	// IntraHourPeak is the highest second over the hour's average the hours were judged at.
	IntraHourPeak float64 `json:"intraHourPeak"`
	// Scaling is the autoscale scaling the design assumes (container: the service's default).
	Scaling cost.AutoscaleScaling `json:"autoscaleScaling"`
	// Designed is the designed throughput billed and judged hour by hour.
	Designed cost.MonthBill `json:"designed"`
	// Options is each mode at the least setting that serves every hour; Recommended indexes the
	// cheapest (-1: none serves).
	Options     []cost.MonthBill `json:"options"`
	Recommended int              `json:"recommended"`
	// FlatUSD is what the flat-rate plan (average and peak, no shape) says the cheapest mode costs;
	// WithoutEventsUSD is the cheapest mode that serves every hour were the events not to come.
	FlatUSD          float64 `json:"flatUSD"`
	WithoutEventsUSD float64 `json:"withoutEventsUSD"`
	// Day is the 24 hours of a day without events at the designed throughput, Events every hour an
	// event shapes.
	Day    []Hour `json:"day"`
	Events []Hour `json:"events,omitempty"`
}

// Hour is one hour of the month at the designed throughput.
type Hour struct {
	// Day (1–31) and Hour (0–23) of the billed month.
	Day  int `json:"day"`
	Hour int `json:"hour"`
	cost.HourVerdict
}

// monthHours is the container's month: each pattern's average load times its factor for the hour
// (design.HourlyFactors), the highest second at the traffic's intra-hour peak. withEvents false
// leaves the events out.
func (b *builder) monthHours(st *cstate, withEvents bool) []cost.MonthHour {
	t := b.d.Traffic
	peakF := t.PeakFactor()
	hours := make([]cost.MonthHour, design.MonthHours)
	for _, pl := range st.avgLoads {
		ap := pl.ap
		if !withEvents {
			cp := *b.d
			tt := *t
			tt.Events = nil
			cp.Traffic = &tt
			f, _ := cp.HourlyFactors(ap)
			addLoad(hours, pl, f, nil, peakF, st.s.c)
			continue
		}
		f, ev := b.d.HourlyFactors(ap)
		addLoad(hours, pl, f, ev, peakF, st.s.c)
	}
	return hours
}

func addLoad(hours []cost.MonthHour, pl patternLoad, f []float64, ev []string, peakF float64, c *design.Container) {
	bucketCap := 0.0 // the pattern's bucket's cap, when it is sent with one the container configures
	for _, b := range c.ThroughputBuckets {
		if b.ID == pl.ap.RPS.Bucket {
			bucketCap = float64(b.MaxPercent)
		}
	}
	for h := range hours {
		x := pl.load.Scale(f[h])
		hours[h].Avg = hours[h].Avg.Add(x)
		hours[h].Peak = hours[h].Peak.Add(x.Scale(peakF))
		if pl.ap.RPS.Priority == "low" {
			hours[h].Low = hours[h].Low.Add(x.Scale(peakF))
		}
		if writes(pl.ap) {
			hours[h].Writes = hours[h].Writes.Add(x.Scale(peakF))
		}
		if bucketCap > 0 {
			i := slices.IndexFunc(hours[h].Buckets, func(b cost.BucketLoad) bool { return b.ID == pl.ap.RPS.Bucket })
			if i < 0 {
				hours[h].Buckets = append(hours[h].Buckets, cost.BucketLoad{ID: pl.ap.RPS.Bucket, MaxPercent: bucketCap})
				i = len(hours[h].Buckets) - 1
			}
			hours[h].Buckets[i].RU += x.Scale(peakF).Total()
		}
		hours[h].RPS += pl.rps * f[h] * peakF
		if ev != nil && ev[h] != "" && hours[h].Event == "" {
			hours[h].Event = ev[h]
		}
	}
}

// traffic bills and judges the container's month hour by hour, when the design states a shape; it
// then decides the recommended mode and the monthly figures (the flat ones stay in Options for
// comparison), and warns of the hours that throttle at the designed throughput.
func (b *builder) traffic(st *cstate) {
	t := b.d.Traffic
	if t == nil {
		return
	}
	rc, acct, cp := b.rc, b.acct, st.plan
	scaling := cost.ScaleContainer
	if t.Autoscale == string(cost.ScaleDynamic) {
		scaling = cost.ScaleDynamic
	}
	hours := b.monthHours(st, true)
	tr := &Traffic{Shape: shapeWords(b.d), IntraHourPeak: t.PeakFactor(), Scaling: scaling, Recommended: -1, FlatUSD: cp.MonthlyUSD}
	designed := cost.Setting{Mode: cp.Designed.Mode, RU: cp.Designed.RU, Scaling: scaling}
	var verdicts []cost.HourVerdict
	tr.Designed, verdicts = rc.BillMonth(hours, designed, cp.StorageGB, acct)
	tr.Designed.Throughput, tr.Designed.Storage, tr.Designed.Total = round(tr.Designed.Throughput, 2), round(tr.Designed.Storage, 2), round(tr.Designed.Total, 2)
	tr.Options, tr.Recommended = b.servingOptions(hours, cp.StorageGB, scaling)
	if len(t.Events) > 0 {
		if opts, best := b.servingOptions(b.monthHours(st, false), cp.StorageGB, scaling); best >= 0 {
			tr.WithoutEventsUSD = round(opts[best].Total, 2)
		}
	}
	// A day without events to show; every event hour besides.
	quiet := 0
	for d := 0; d*24+24 <= len(hours); d++ {
		clear := true
		for h := d * 24; h < d*24+24; h++ {
			clear = clear && hours[h].Event == ""
		}
		if clear {
			quiet = d
			break
		}
	}
	for h := quiet * 24; h < quiet*24+24; h++ {
		tr.Day = append(tr.Day, Hour{Day: quiet + 1, Hour: h % 24, HourVerdict: roundVerdict(verdicts[h])})
	}
	for h := range hours {
		if hours[h].Event != "" {
			tr.Events = append(tr.Events, Hour{Day: h/24 + 1, Hour: h % 24, HourVerdict: roundVerdict(verdicts[h])})
		}
	}
	// The month's figures follow the hours: the designed throughput as billed hour by hour, the
	// cheapest mode that serves every hour.
	b.p.MonthlyUSD -= cp.MonthlyUSD
	b.p.DesignedMonthlyUSD -= cp.DesignedCost.Total
	cp.DesignedCost.Throughput, cp.DesignedCost.Storage, cp.DesignedCost.Total = tr.Designed.Throughput, tr.Designed.Storage, tr.Designed.Total
	cp.DesignedCost.Formula = tr.Designed.Formula
	if tr.Recommended >= 0 {
		best := tr.Options[tr.Recommended]
		cp.Recommended = Throughput{Mode: best.Mode, RU: best.RU}
		cp.MonthlyUSD = best.Total
		cp.RecommendedNote = fmt.Sprintf("%s at %s/month is the cheapest mode that serves every hour of the traffic's shape (%s) without a 429 at any partition",
			throughput(cp.Recommended), usd(best.Total), tr.Shape)
		if !tr.Designed.Serves {
			cp.RecommendedNote += fmt.Sprintf("; the designed %s does not (%s)", throughput(cp.Designed), tr.Designed.Reason)
		}
	}
	if tr.Recommended < 0 {
		var why []string
		for _, o := range tr.Options {
			why = append(why, fmt.Sprintf("%s: %s", o.Mode, o.Reason))
		}
		cp.RecommendedNote = fmt.Sprintf("no throughput mode serves every hour of the traffic's shape (%s); the flat-rate recommendation stands, and the hours that throttle are named below", strings.Join(why, "; "))
	}
	b.p.MonthlyUSD += cp.MonthlyUSD
	b.p.DesignedMonthlyUSD += cp.DesignedCost.Total
	cp.Traffic = tr
	if w, ok := throttleWarning(cp, tr, hours, verdicts); ok {
		b.p.Warnings = append(b.p.Warnings, w)
	}
	if w, ok := bucketWarning(cp, tr, verdicts); ok {
		b.p.Warnings = append(b.p.Warnings, w)
	}
}

// servingOptions prices each mode at the least setting that serves every hour, and the cheapest.
func (b *builder) servingOptions(hours []cost.MonthHour, storageGB float64, scaling cost.AutoscaleScaling) ([]cost.MonthBill, int) {
	var opts []cost.MonthBill
	best := -1
	for _, mode := range []cost.Mode{cost.Manual, cost.Autoscale, cost.Serverless} {
		s, ok, why := b.rc.ServingSetting(mode, hours, storageGB, scaling)
		bill, _ := b.rc.BillMonth(hours, s, storageGB, b.acct)
		if !ok {
			bill.Serves, bill.Reason = false, why
		}
		if why := b.acct.Excludes(mode); why != "" && bill.Serves {
			bill.Serves, bill.Reason = false, why
		}
		bill.Throughput, bill.Storage, bill.Total = round(bill.Throughput, 2), round(bill.Storage, 2), round(bill.Total, 2)
		opts = append(opts, bill)
		if bill.Serves && (best < 0 || bill.Total < opts[best].Total) {
			best = len(opts) - 1
		}
	}
	return opts, best
}

func roundVerdict(v cost.HourVerdict) cost.HourVerdict {
	v.AvgRU, v.PeakRU, v.HottestRU, v.ShareRU = round(v.AvgRU, 1), round(v.PeakRU, 1), round(v.HottestRU, 1), round(v.ShareRU, 1)
	v.BusiestLogicalRU = sig(v.BusiestLogicalRU, 3)
	v.BilledRU, v.ThrottledRU, v.ThrottledRPS, v.BurstSeconds = round(v.BilledRU, 1), round(v.ThrottledRU, 1), round(v.ThrottledRPS, 2), round(v.BurstSeconds, 1)
	return v
}

// shapeWords says what shaped the hours.
func shapeWords(d *design.Design) string {
	t := d.Traffic
	w := "flat"
	switch {
	case len(t.Hourly) == 24:
		w = "hourly factors"
	case t.Shape != "":
		w = t.Shape
	}
	var own []string
	for _, ap := range d.AccessPatterns {
		if ap.RPS.Shape != "" {
			own = append(own, ap.ID+" "+ap.RPS.Shape)
		} else if len(ap.RPS.Hourly) == 24 {
			own = append(own, ap.ID+" hourly factors")
		}
	}
	if len(own) > 0 {
		w += " (" + strings.Join(own, ", ") + ")"
	}
	if n := len(t.Events); n > 0 {
		names := make([]string, n)
		for i, e := range t.Events {
			names[i] = fmt.Sprintf("%s: day %d %02d:00, %d h, ×%g", e.Name, e.Day, e.Hour, max(e.Hours, 1), e.Factor)
		}
		w += " with " + strings.Join(names, "; ")
	}
	return w
}

// throttleWarning names the hours and the partition that throttle at the designed throughput: the
// daily hours (in a day without events) and the event hours, with the worst hour's figures. Burst
// capacity is shown as a cushion and never clears an hour.
func throttleWarning(cp *Container, tr *Traffic, hours []cost.MonthHour, verdicts []cost.HourVerdict) (Warning, bool) {
	if tr.Designed.ThrottledHrs == 0 {
		return Warning{}, false
	}
	worst := -1
	for h, v := range verdicts {
		if v.ThrottledRU > 0 && (worst < 0 || v.ThrottledRU > verdicts[worst].ThrottledRU) {
			worst = h
		}
	}
	var daily []string // runs of consecutive throttled hours: "19:00", "06:00–23:59"
	for i := 0; i < len(tr.Day); i++ {
		if tr.Day[i].ThrottledRU <= 0 {
			continue
		}
		j := i
		for j+1 < len(tr.Day) && tr.Day[j+1].ThrottledRU > 0 {
			j++
		}
		if j == i {
			daily = append(daily, fmt.Sprintf("%02d:00", tr.Day[i].Hour))
		} else {
			daily = append(daily, fmt.Sprintf("%02d:00–%02d:59", tr.Day[i].Hour, tr.Day[j].Hour))
		}
		i = j
	}
	events := map[string]bool{}
	var evNames []string
	for h, v := range verdicts {
		if v.ThrottledRU > 0 && hours[h].Event != "" && !events[hours[h].Event] {
			events[hours[h].Event] = true
			evNames = append(evNames, hours[h].Event)
		}
	}
	where := []string{}
	if len(daily) > 0 {
		where = append(where, "every day at "+strings.Join(daily, ", "))
	}
	if len(evNames) > 0 {
		where = append(where, "during "+strings.Join(evNames, ", "))
	}
	w := verdicts[worst]
	msg := fmt.Sprintf("designed %s throttles in %d of %d hours of the month (%s): at worst (day %d %02d:00%s) the busiest physical partition asks %.0f RU/s of the %.0f it gets (its busiest logical partition %s RU/s of it), %.0f RU/s over across the partitions, about %.0f requests/s answered 429 (the SDKs retry a 429 after the wait the service returns — the .NET SDK up to 9 times within 30 s by default (CosmosClientOptions.MaxRetryAttemptsOnRateLimitedRequests, MaxRetryWaitTimeOnRateLimitedRequests) — so retries delay these requests, add up to 9 attempts each while the overload lasts, and fail them after the wait when it outlasts it)",
		throughput(cp.Designed), tr.Designed.ThrottledHrs, len(verdicts), strings.Join(where, "; "), worst/24+1, worst%24, eventWords(hours[worst].Event),
		w.HottestRU, w.ShareRU, num(w.BusiestLogicalRU), w.ThrottledRU, w.ThrottledRPS)
	if w.ThrottledHighRU < w.ThrottledRU-1e-9 {
		msg += fmt.Sprintf("; low-priority requests are throttled first (priority-based execution, best effort, no reservation; announced as a preview in 2023), leaving about %.0f RU/s of high-priority requests throttled", w.ThrottledHighRU)
	}
	if w.BurstSeconds > 0 {
		msg += fmt.Sprintf("; burst capacity might absorb about %.0f s of it after an idle spell (not guaranteed, never counted)", w.BurstSeconds)
	}
	if tr.Recommended >= 0 {
		o := tr.Options[tr.Recommended]
		msg += fmt.Sprintf("; %s serves every hour for %s/month", throughput(Throughput{Mode: o.Mode, RU: o.RU}), usd(o.Total))
	}
	return Warning{Code: "throttling", Subject: cp.Name, Message: msg}, true
}

func eventWords(e string) string {
	if e == "" {
		return ""
	}
	return ", " + e
}

// bucketWarning says how much the container's throughput buckets refuse beyond their caps at the
// designed throughput: by design (a cap the design chose), so a note, with what the docs say of them.
func bucketWarning(cp *Container, tr *Traffic, verdicts []cost.HourVerdict) (Warning, bool) {
	if tr.Designed.BucketHrs == 0 {
		return Warning{}, false
	}
	worst := 0.0
	for _, v := range verdicts {
		worst = max(worst, v.ThrottledBucketRU)
	}
	return Warning{Code: "bucket-cap", Subject: cp.Name, Message: fmt.Sprintf(
		"throughput buckets (preview) refuse requests beyond their caps in %d of %d hours at the designed %s, up to %.0f RU/s (429 substatus 3212; a cap, not a reservation; the cap is taken on the container's whole throughput: whether it also holds per physical partition the docs do not say, assumed not; bucketed requests get no burst capacity; reconfiguring buckets more often than every 10 minutes is refused with substatus 3213; buckets are not available on shared-throughput databases or serverless; the Go SDK sends them since azcosmos v1.5.0)",
		tr.Designed.BucketHrs, len(verdicts), throughput(cp.Designed), worst)}, true
}

// writes reports whether a pattern writes (every region replicates it).
func writes(ap *design.AccessPattern) bool {
	switch ap.Op {
	case design.OpCreate, design.OpUpsert, design.OpReplace, design.OpPatch, design.OpDelete, design.OpBatch:
		return true
	}
	return false
}
