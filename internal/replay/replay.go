// Package replay drives a design's access patterns against a target hour by hour at the rates its
// traffic shape gives them (design.HourlyFactors), on a compressed clock: a load test of the design
// against the embedded engine with its RU/s budgets on ('validate serve --replay'). It provisions
// and seeds through the pipeline's stages (pipeline.Run with Drive) and executes each request
// through the probe's execution of a pattern (probe.Executor); it computes no charge of its own:
// the RU are the target's answers, the 429s the SDK's (sdk.ThrottlePolicy), and the forecast beside
// them is plan's (plan.Container.Traffic), passed on.
package replay

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/probe"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/sdk"
)

// Defaults.
const (
	DefaultSpeed = 3600 // an hour a second
	DefaultHours = 24
	DefaultScale = 1
	// MaxHours bounds a replay: a month of the design's shape (design.MonthHours).
	MaxHours = design.MonthHours
)

// Clock is the replay's time: the wall clock, or a test's.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx is done (then its error).
	Sleep(ctx context.Context, d time.Duration) error
}

type wall struct{}

func (wall) Now() time.Time { return time.Now() }
func (wall) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Options tune Run.
type Options struct {
	// Speed compresses the clock: a simulated hour lasts 3600/Speed seconds. Default 3600.
	Speed float64
	// Hours is how many hours of the month to replay, from its first (day 1, 00:00). Default 24.
	Hours int
	// Scale multiplies every pattern's rate and the provisioned throughput alike, so that the
	// requests fit a laptop while each partition's budget meets the same share of load. The engine
	// accepts no less than 400 RU/s manual (1,000 autoscale maximum): where the scaled throughput
	// falls below, the floor is provisioned and the line says so. Default 1.
	Scale float64
	// Seed is the generator seed (seeding and parameters). Default 1.
	Seed int64
	// Plan is the design's plan, whose hour-by-hour forecast is printed beside each hour; nil = none.
	Plan *plan.Plan
	// Clock is the replay's time; nil = the wall clock.
	Clock Clock
	// Out receives the per-hour lines; Progress the pipeline's stage lines (nil = none).
	Out, Progress io.Writer
	// Database is the database to create; "" = the design's.
	Database string
}

// Hour is one simulated hour of one container.
type Hour struct {
	Hour      int     `json:"hour"` // hour of the month, 0-based (day = Hour/24+1)
	Container string  `json:"container"`
	Requests  int     `json:"requests"`
	RU        float64 `json:"ru"`
	Throttled int64   `json:"throttled"` // 429s answered, the ones the SDK retried included
	Failed    int     `json:"failed"`    // executions that failed after the SDK's retries
	// Behind is true when a request of the hour went out more than a tenth of the hour after its
	// time (the SDK waiting out 429s, or a machine too slow for the rate): the hour's requests went
	// out slower than the shape's rate.
	Behind bool `json:"behind,omitempty"`
	// Partial is true for the hour a Ctrl-C (or a target failure) cut short: its figures are the
	// requests sent before it.
	Partial bool `json:"partial,omitempty"`
	// Forecast is plan's figure for the hour at the designed throughput (nil without a plan or a
	// traffic shape).
	Forecast *plan.Hour `json:"forecast,omitempty"`
}

// Check refuses options that cannot replay.
func (o *Options) Check(d *design.Design) error {
	if o.Speed == 0 {
		o.Speed = DefaultSpeed
	}
	if o.Hours == 0 {
		o.Hours = DefaultHours
	}
	if o.Scale == 0 {
		o.Scale = DefaultScale
	}
	if o.Seed == 0 {
		o.Seed = 1 // as pipeline.Run seeds, so the executions draw their parameters as run's do
	}
	if o.Speed < 1 || math.IsInf(o.Speed, 0) || math.IsNaN(o.Speed) {
		return fmt.Errorf("--speed: want at least 1 (real time); 3600 replays an hour a second (got %v)", o.Speed)
	}
	if o.Hours < 1 || o.Hours > MaxHours {
		return fmt.Errorf("--hours: want 1..%d (got %d)", MaxHours, o.Hours)
	}
	if !(o.Scale > 0 && o.Scale <= 1) {
		return fmt.Errorf("--replay-scale: want more than 0 and at most 1 (got %v)", o.Scale)
	}
	if d.Traffic == nil {
		return fmt.Errorf("design %s states no traffic shape: add traffic (docs/design-format.md, \"Traffic over the day and the month\"); a replay follows it", d.Name)
	}
	any := false
	for _, ap := range d.AccessPatterns {
		any = any || ap.RPS.Avg > 0
	}
	if !any {
		return fmt.Errorf("design %s: no access pattern states rps.avg; a replay sends each pattern at its average rate times the hour's factor", d.Name)
	}
	return nil
}

// Throughput is what the replay provisions for c: the designed throughput × scale, at the engine's
// floor at least; floored reports whether the floor bit.
func Throughput(c *design.Container, scale float64) (tp azcosmos.ThroughputProperties, desc string, floored bool) {
	switch {
	case c.Throughput.Serverless:
		return azcosmos.ThroughputProperties{}, "serverless", false
	case c.Throughput.AutoscaleMax > 0:
		ru := int(math.Round(float64(c.Throughput.AutoscaleMax) * scale))
		if ru < 1000 {
			ru, floored = 1000, true
		}
		ru = ru / 1000 * 1000
		return azcosmos.NewAutoscaleThroughputProperties(int32(ru)), fmt.Sprintf("autoscale max %d RU/s", ru), floored
	default:
		m := c.Throughput.Manual
		if m == 0 {
			m = design.DefaultManualThroughput
		}
		ru := int(math.Round(float64(m) * scale))
		if ru < 400 {
			ru, floored = 400, true
		}
		ru = ru / 100 * 100
		return azcosmos.NewManualThroughputProperties(int32(ru)), fmt.Sprintf("manual %d RU/s", ru), floored
	}
}

// Run provisions and seeds d on the target behind client, replays its hours and tears down what it
// created. Ctrl-C (ctx) stops between requests; the hours done are returned with ctx's error.
func Run(ctx context.Context, d *design.Design, client *azcosmos.Client, info record.TargetInfo, o Options) ([]Hour, error) {
	if err := o.Check(d); err != nil {
		return nil, err
	}
	if o.Clock == nil {
		o.Clock = wall{}
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	for i := range d.Containers {
		c := &d.Containers[i]
		_, desc, floored := Throughput(c, o.Scale)
		note := ""
		if floored {
			note = " (the engine's floor: below it the scaled load meets more throughput than the design's, so throttling is understated)"
		}
		fmt.Fprintf(o.Out, "replay: %s provisioned %s at scale %g%s\n", c.Name, desc, o.Scale, note)
	}
	var hours []Hour
	_, err := pipeline.Run(ctx, d, client, info, pipeline.Options{
		Seed: o.Seed, Database: o.Database, Progress: o.Progress,
		Throughput: func(c *design.Container) azcosmos.ThroughputProperties {
			tp, _, _ := Throughput(c, o.Scale)
			return tp
		},
		Drive: func(ctx context.Context, containers map[string]*azcosmos.ContainerClient, docs record.Documents) error {
			var err error
			hours, err = drive(ctx, d, probe.NewExecutor(d, containers, docs, probe.Options{Seed: o.Seed}), o)
			return err
		},
	})
	return hours, err
}

// request is one request due in an hour: pattern pi at offset at into the hour.
type request struct {
	pi int
	at float64 // fraction of the hour
}

func drive(ctx context.Context, d *design.Design, x *probe.Executor, o Options) ([]Hour, error) {
	factors := make([][]float64, len(d.AccessPatterns))
	for pi := range d.AccessPatterns {
		factors[pi], _ = d.HourlyFactors(&d.AccessPatterns[pi])
	}
	var forecast map[string]map[int]plan.Hour
	if o.Plan != nil {
		forecast = forecastOf(o.Plan)
	}
	wallHour := time.Duration(float64(time.Hour) / o.Speed)
	seconds := wallHour.Seconds()
	carry := make([]float64, len(d.AccessPatterns)) // the fractions of a request rounding left over
	execs := make([]int, len(d.AccessPatterns))
	fmt.Fprintf(o.Out, "replay: %d hours at speed %g (an hour in %s), each pattern at rps.avg × the hour's factor × %g, paced evenly over the hour (plan judges throttling at the intra-hour peak)\n",
		o.Hours, o.Speed, wallHour, o.Scale)
	if o.Speed > DefaultSpeed {
		fmt.Fprintf(o.Out, "replay: at speed above %d an hour is shorter than the engine's one-second RU/s budget, so a second's budget spans several hours: throttling is judged over their blend\n", DefaultSpeed)
	}
	fmt.Fprintf(o.Out, "%-9s %-14s %8s %10s %6s   %s\n", "HOUR", "CONTAINER", "REQUESTS", "RU", "429s", "PLAN (model, designed throughput): avg/peak RU/s, throttled req/s")
	var out []Hour
	for h := 0; h < o.Hours; h++ {
		start := o.Clock.Now()
		var due []request
		for pi, ap := range d.AccessPatterns {
			want := ap.RPS.Avg*factors[pi][h]*o.Scale*seconds + carry[pi]
			n := int(math.Floor(want + 1e-9))
			carry[pi] = want - float64(n)
			for k := range n {
				due = append(due, request{pi: pi, at: float64(k) / float64(n)})
			}
		}
		slices.SortStableFunc(due, func(a, b request) int {
			if a.at != b.at {
				if a.at < b.at {
					return -1
				}
				return 1
			}
			return a.pi - b.pi
		})
		per := map[string]*Hour{}
		counters := map[string]*sdk.ThrottleCounter{}
		ctxs := map[string]context.Context{}
		for _, c := range d.Containers {
			per[c.Name] = &Hour{Hour: h, Container: c.Name}
			ctxs[c.Name], counters[c.Name] = sdk.WithThrottleCounter(ctx, nil)
		}
		var stop error         // ctx's error or the target's: the hour so far is still printed
		var late time.Duration // the most a request went out after its time
		for _, r := range due {
			dueAt := start.Add(time.Duration(r.at * float64(wallHour)))
			if stop = o.Clock.Sleep(ctx, dueAt.Sub(o.Clock.Now())); stop != nil {
				break
			}
			late = max(late, o.Clock.Now().Sub(dueAt))
			ap := &d.AccessPatterns[r.pi]
			hr := per[ap.Container]
			if hr == nil {
				continue
			}
			ex, err := x.Execute(ctxs[ap.Container], r.pi, execs[r.pi])
			execs[r.pi]++
			if stop = err; stop != nil {
				break
			}
			hr.Requests++
			hr.RU += ex.RU
			if ex.Error != "" {
				hr.Failed++
			}
		}
		behind := late > wallHour/10
		for _, c := range d.Containers {
			hr := per[c.Name]
			hr.Throttled = counters[c.Name].Throttled()
			hr.Behind = behind && stop == nil
			hr.Partial = stop != nil
			if f, ok := forecast[c.Name][h]; ok {
				hr.Forecast = &f
			}
			out = append(out, *hr)
			fmt.Fprintln(o.Out, hr.line())
		}
		if stop != nil {
			return out, stop
		}
		if err := o.Clock.Sleep(ctx, start.Add(wallHour).Sub(o.Clock.Now())); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (h Hour) line() string {
	s := fmt.Sprintf("d%d %02d:00  %-14s %8d %10.1f %6d", h.Hour/24+1, h.Hour%24, h.Container, h.Requests, h.RU, h.Throttled)
	if f := h.Forecast; f != nil {
		s += fmt.Sprintf("   %.0f/%.0f RU/s, %.1f req/s throttled", f.AvgRU, f.PeakRU, f.ThrottledRPS)
		if f.Event != "" {
			s += " (" + f.Event + ")"
		}
	}
	if h.Failed > 0 {
		s += fmt.Sprintf("; %d failed", h.Failed)
	}
	if h.Partial {
		s += "; stopped part way (interrupted)"
	}
	if h.Behind {
		s += "; behind the clock by over a tenth of the hour (the SDK waiting out 429s, or a machine too slow for the rate: requests went out slower than the shape's rate)"
	}
	return s
}

// forecastOf indexes plan's hours by container and hour of the month: the events' hours as plan
// lists them, every other hour as the day without events.
func forecastOf(p *plan.Plan) map[string]map[int]plan.Hour {
	out := map[string]map[int]plan.Hour{}
	for _, c := range p.Containers {
		if c.Traffic == nil {
			continue
		}
		m := map[int]plan.Hour{}
		events := map[int]plan.Hour{}
		for _, e := range c.Traffic.Events {
			events[(e.Day-1)*24+e.Hour] = e
		}
		for h := 0; h < design.MonthHours; h++ {
			if e, ok := events[h]; ok {
				m[h] = e
				continue
			}
			for _, q := range c.Traffic.Day {
				if q.Hour == h%24 {
					q.Day = h/24 + 1
					m[h] = q
				}
			}
		}
		out[c.Name] = m
	}
	return out
}
