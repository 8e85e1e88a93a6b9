package design

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// MonthHours is the billed month: 730 hours (understand-your-bill.md; the rate card's
// HoursPerMonth, which a plan test holds it to). Hour 0 is day 1, 00:00; a month is 30 days and 10 hours.
const MonthHours = 730

// Traffic is how a design's load moves over the day and the month.
type Traffic struct {
	// Shape names the daily shape every pattern follows: flat (default), business or evening
	// (NamedShapes). Hourly gives the 24 factors instead.
	Shape string `yaml:"shape,omitempty" json:"shape,omitempty"`
	// Hourly is 24 factors, one per hour of the day from 00:00, each a multiple of every pattern's
	// rps.avg; they average 1 (so the day's requests are rps.avg's).
	Hourly []float64 `yaml:"hourly,omitempty" json:"hourly,omitempty"`
	// IntraHourPeak is the highest second of an hour over the hour's average (≥ 1, default 1).
	// Autoscale bills each hour's highest RU/s, and a partition throttles in its busiest second.
	IntraHourPeak float64 `yaml:"intraHourPeak,omitempty" json:"intraHourPeak,omitempty"`
	// Autoscale is how the account's autoscale scales: container (the service's default: every
	// partition and region with the most active one) or dynamic (per partition and region,
	// autoscale-per-partition-region.md). Default container.
	Autoscale string `yaml:"autoscale,omitempty" json:"autoscale,omitempty"`
	// Events are dated spikes in the billed month (a season end: ×8 for 2 hours).
	Events []TrafficEvent `yaml:"events,omitempty" json:"events,omitempty"`
	// ReadShares is each region's share of the reads, one per region (regions), summing to 1; every
	// region replicates every write. Default: every region carries the whole load (assumed). Dynamic
	// autoscale scales each region on its own, so a quiet secondary region bills less.
	ReadShares []float64 `yaml:"readShares,omitempty" json:"readShares,omitempty"`
}

// TrafficEvent is a dated spike: from Hour on Day, for Hours hours, the patterns' rates are Factor ×
// the shape's.
type TrafficEvent struct {
	Name string `yaml:"name" json:"name"`
	// Day is the day of the billed month, 1 to 31 (day 31 has 10 hours: the month is 730 hours).
	Day int `yaml:"day" json:"day"`
	// Hour is the hour of the day it starts, 0 to 23.
	Hour int `yaml:"hour,omitempty" json:"hour,omitempty"`
	// Hours is how long it lasts (default 1).
	Hours int `yaml:"hours,omitempty" json:"hours,omitempty"`
	// Factor multiplies the shape's rate (> 0; 8 = eight times the usual hour).
	Factor float64 `yaml:"factor" json:"factor"`
	// Patterns limits the event to these pattern ids (default: every pattern).
	Patterns []string `yaml:"patterns,omitempty" json:"patterns,omitempty"`
}

// Autoscale scalings a design may state.
var AutoscaleScalings = []string{"container", "dynamic"}

// NamedShapes are the daily shapes a design may name. They are illustrations, not measurements
// (assumed): flat is every hour alike; business is a working day (09:00–16:59 at twice the average,
// nights at a fifth); evening is a consumer or game backend whose 19:00–21:59 peak is four times the
// average. Each averages 1.
var NamedShapes = map[string][]float64{
	"flat":     {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
	"business": {0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.8, 1.5, 2, 2, 2, 2, 2, 2, 2, 2, 1.5, 1, 0.36, 0.36, 0.36, 0.36, 0.36},
	"evening":  {0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.6, 0.6, 0.6, 0.6, 0.6, 1.2, 2.2, 4, 4, 4, 1.2, 0.8},
}

// shapeNames lists NamedShapes' names in order.
func shapeNames() []string {
	names := make([]string, 0, len(NamedShapes))
	for k := range NamedShapes {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Factors is the 24 hourly factors of a named shape or a list (nil = flat).
func Factors(shape string, hourly []float64) []float64 {
	if len(hourly) == 24 {
		return hourly
	}
	if f, ok := NamedShapes[shape]; ok {
		return f
	}
	return NamedShapes["flat"]
}

// HourlyFactors is pattern p's factor of rps.avg in each hour of the billed month (MonthHours of
// them): its shape (its own, else the design's) times the factor of every event that covers the
// hour and applies to it. Event names the event of each hour ("" for none). nil when the design
// states no traffic.
func (d *Design) HourlyFactors(p *AccessPattern) (factors []float64, event []string) {
	t := d.Traffic
	if t == nil {
		return nil, nil
	}
	day := Factors(t.Shape, t.Hourly)
	if p.RPS.Shape != "" || len(p.RPS.Hourly) > 0 {
		day = Factors(p.RPS.Shape, p.RPS.Hourly)
	}
	factors, event = make([]float64, MonthHours), make([]string, MonthHours)
	for h := range factors {
		factors[h] = day[h%24]
	}
	for _, e := range t.Events {
		if len(e.Patterns) > 0 && !slices.Contains(e.Patterns, p.ID) {
			continue
		}
		start := e.Start()
		for h := start; h < start+max(e.Hours, 1) && h < MonthHours; h++ {
			if h < 0 {
				continue
			}
			factors[h] *= e.Factor
			event[h] = e.Name
		}
	}
	return factors, event
}

// Start is the event's first hour in the billed month.
func (e TrafficEvent) Start() int { return (e.Day-1)*24 + e.Hour }

// PeakFactor is the traffic's highest second over its hour's average (1 when not stated).
func (t *Traffic) PeakFactor() float64 {
	if t == nil || t.IntraHourPeak <= 0 {
		return 1
	}
	return t.IntraHourPeak
}

func (v *validator) checkTraffic() {
	t := v.d.Traffic
	if t == nil {
		return
	}
	v.checkShape("traffic", t.Shape, t.Hourly)
	if t.IntraHourPeak != 0 && (t.IntraHourPeak < 1 || t.IntraHourPeak > 1000 || math.IsNaN(t.IntraHourPeak)) || (t.IntraHourPeak == 0 && v.present("traffic.intraHourPeak")) {
		v.errf("traffic.intraHourPeak", "must be at least 1: the highest second of an hour over the hour's average (got %g), e.g. 1.5; omit it for 1", t.IntraHourPeak)
	}
	if t.Autoscale != "" {
		v.checkEnum("traffic.autoscale", t.Autoscale, AutoscaleScalings)
	}
	if len(t.ReadShares) > 0 {
		sum, bad := 0.0, false
		for _, x := range t.ReadShares {
			bad = bad || x < 0 || math.IsNaN(x) || math.IsInf(x, 0)
			sum += x
		}
		switch {
		case len(t.ReadShares) != max(v.d.Regions, 1):
			v.errf("traffic.readShares", "holds %d shares; give one per region (regions: %d)", len(t.ReadShares), max(v.d.Regions, 1))
		case bad || math.Abs(sum-1) > 0.01:
			v.errf("traffic.readShares", "must be shares of 0 or more summing to 1 (got %g in all), e.g. [0.9, 0.1]", sum)
		}
	}
	var ids []string
	for _, p := range v.d.AccessPatterns {
		ids = append(ids, p.ID)
	}
	for i, e := range t.Events {
		path := fmt.Sprintf("traffic.events[%d]", i)
		if strings.TrimSpace(e.Name) == "" {
			v.errf(path+".name", "must not be empty: say what happens (e.g. season end)")
		}
		if e.Day < 1 || e.Day > 31 {
			v.errf(path+".day", "must be a day of the billed month, 1 to 31 (got %d)", e.Day)
			continue
		}
		if e.Hour < 0 || e.Hour > 23 {
			v.errf(path+".hour", "must be an hour of the day, 0 to 23 (got %d)", e.Hour)
			continue
		}
		if e.Hours < 0 || (e.Hours == 0 && v.present(path+".hours")) {
			v.errf(path+".hours", "must be at least 1 (got %d); omit it for one hour", e.Hours)
		}
		if !(e.Factor > 0) || math.IsInf(e.Factor, 0) {
			v.errf(path+".factor", "must be greater than 0: the event's rate over the usual hour's (got %g), e.g. 8", e.Factor)
		}
		if end := e.Start() + max(e.Hours, 1); end > MonthHours {
			at := path + ".day"
			if e.Hours > 1 {
				at = path + ".hours"
			}
			v.errf(at, "the event runs to hour %d of the billed month, past its %d hours (30 days and 10 hours: day 31 ends at 10:00); move it or shorten it to end by then", end, MonthHours)
		}
		for j, id := range e.Patterns {
			if !slices.Contains(ids, id) {
				msg := fmt.Sprintf("names no access pattern (got %q)", id)
				if s := Suggest(id, ids); s != "" {
					msg += fmt.Sprintf("; did you mean %q?", s)
				}
				v.errf(fmt.Sprintf("%s.patterns[%d]", path, j), "%s", msg)
			}
		}
	}
}

// Priorities are the request priorities of priority-based execution.
var Priorities = []string{"high", "low"}

// checkBuckets checks a container's throughput buckets (throughput-buckets.md, -faq.md: up to 5 per
// container, ids 1 to 5, not on serverless).
func (v *validator) checkBuckets(path string, c *Container) {
	if len(c.ThroughputBuckets) == 0 {
		return
	}
	if c.Throughput.Serverless {
		v.errf(path+".throughputBuckets", "throughput buckets are not available on serverless containers (throughput-buckets.md); remove them or provision throughput")
	}
	if len(c.ThroughputBuckets) > 5 {
		v.errf(path+".throughputBuckets", "holds %d buckets; a container has at most 5 (throughput-buckets-faq.md)", len(c.ThroughputBuckets))
	}
	seen := map[int]bool{}
	for i, b := range c.ThroughputBuckets {
		bp := fmt.Sprintf("%s.throughputBuckets[%d]", path, i)
		if b.ID < 1 || b.ID > 5 {
			v.errf(bp+".id", "must be a bucket id from 1 to 5 (got %d)", b.ID)
		} else if seen[b.ID] {
			v.errf(bp+".id", "bucket %d is configured twice", b.ID)
		}
		seen[b.ID] = true
		if b.MaxPercent < 1 || b.MaxPercent > 100 {
			v.errf(bp+".maxPercent", "must be a percentage of the container's throughput from 1 to 100 (got %d)", b.MaxPercent)
		}
	}
}

// checkPriorityBucket checks a pattern's priority and bucket against its container.
func (v *validator) checkPriorityBucket(path string, p *AccessPattern) {
	if p.RPS.Priority != "" {
		v.checkEnum(path+".rps.priority", p.RPS.Priority, Priorities)
	}
	if p.RPS.Bucket == 0 {
		if v.present(path + ".rps.bucket") {
			v.errf(path+".rps.bucket", "must be a bucket id from 1 to 5 (got 0); omit it to send the requests without a bucket")
		}
		return
	}
	if p.RPS.Bucket < 1 || p.RPS.Bucket > 5 {
		v.errf(path+".rps.bucket", "must be a bucket id from 1 to 5 (got %d): the service refuses others (throughput-buckets-faq.md)", p.RPS.Bucket)
		return
	}
	c := v.d.Container(p.Container)
	if c == nil {
		return
	}
	for _, b := range c.ThroughputBuckets {
		if b.ID == p.RPS.Bucket {
			return
		}
	}
	v.errf(path+".rps.bucket", "container %s configures no throughput bucket %d: its requests would not be capped (throughput-buckets-faq.md); add {id: %d, maxPercent: …} to the container's throughputBuckets or remove the bucket", p.Container, p.RPS.Bucket, p.RPS.Bucket)
}

// checkShape checks a named shape or 24 hourly factors at path (traffic, or a pattern's rps).
func (v *validator) checkShape(path, shape string, hourly []float64) {
	if shape != "" && len(hourly) > 0 {
		v.errf(path+".hourly", "give either shape or hourly, not both")
		return
	}
	if shape != "" {
		v.checkEnum(path+".shape", shape, shapeNames())
	}
	if len(hourly) == 0 {
		if v.present(path + ".hourly") {
			v.errf(path+".hourly", "must hold 24 factors, one per hour from 00:00 (got none)")
		}
		return
	}
	if len(hourly) != 24 {
		v.errf(path+".hourly", "must hold 24 factors, one per hour from 00:00 (got %d)", len(hourly))
		return
	}
	sum := 0.0
	for i, f := range hourly {
		if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			v.errf(fmt.Sprintf("%s.hourly[%d]", path, i), "must be a factor of 0 or more (got %g)", f)
			return
		}
		sum += f
	}
	// Factors multiply rps.avg, so they must average 1 (a 1% slack for rounded figures).
	if mean := sum / 24; math.Abs(mean-1) > 0.01 {
		if mean == 0 {
			v.errf(path+".hourly", "factors are all 0: no hour has traffic; give each hour's rate over rps.avg")
			return
		}
		v.errf(path+".hourly", "factors average %.4g, not 1: they multiply rps.avg, so the day would carry %.4g× its requests; divide each by %.4g (or give a rate table to `validate import`)", mean, mean, mean)
	}
}
