package replay

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/sdk"
	"github.com/cosmosdv/validate/internal/testenv"
)

// fakeClock is the engine's budget clock (testenv.ThrottleClock): the replay's pacing sleeps move
// it instead of waiting, and the 429s move it as the engine asks, so the counts below do not
// depend on the machine's speed.
type fakeClock struct{ *testenv.ThrottleClock }

func (c fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		c.Advance(d)
	}
	return ctx.Err()
}

// Hours 0, 1 and 3 at half the average, hour 2 at four times it; the rest of the day makes the
// factors average 1.
const tinyDesign = `version: 1
name: replay-tiny
containers:
  - name: Scores
    partitionKey: [/playerId]
    throughput: {manual: 4000}
    documents:
      - type: score
        count: 10
        fields:
          playerId: {gen: uuid, unique: true}
          points: {gen: int, min: 0, max: 1000}
traffic:
  hourly: [0.5, 0.5, 4, 0.5, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925, 0.925]
accessPatterns:
  - {id: AP1, name: save a score, container: Scores, op: upsert, document: score, rps: {avg: 240}, estimate: {ru: 10}}
`

// TestReplay_FollowsTheShapeAndThrottlesOnlyOverBudget (#40 point 6): four hours at an hour a
// second and a tenth of the load against a tenth of the throughput (400 RU/s): the peak hour sends
// eight times the flat hours' requests, and only it meets 429s, where plan forecasts throttling too.
func TestReplay_FollowsTheShapeAndThrottlesOnlyOverBudget(t *testing.T) {
	ctx := context.Background()
	d, err := design.Parse([]byte(tinyDesign), "tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	clk := testenv.NewThrottleClock()
	clk.Advance(time.Millisecond) // on a second boundary: an hour's second is one budget window
	srv, err := engine.Start(ctx, engine.Options{Throttle: true, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	cred, _ := azcosmos.NewKeyCredential(srv.Key())
	opts := &azcosmos.ClientOptions{}
	opts.PerRetryPolicies = []policy.Policy{sdk.ThrottlePolicy{}, clk.Policy()}
	client, err := azcosmos.NewClientWithKey(srv.URL(), cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	p, err := pipeline.Plan(d, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	hours, err := Run(ctx, d, client, record.TargetInfo{Kind: record.KindEmbedded}, Options{
		Speed: 3600, Hours: 4, Scale: 0.1, Plan: p, Clock: fakeClock{clk}, Out: &out,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	t.Log("\n" + out.String())
	if len(hours) != 4 {
		t.Fatalf("%d hours, want 4", len(hours))
	}
	// 240 req/s × factor × 0.1 × 1 s of each hour.
	for h, want := range []int{12, 12, 96, 12} {
		if hours[h].Requests != want {
			t.Errorf("hour %d: %d requests, want %d", h, hours[h].Requests, want)
		}
		if hours[h].Failed != 0 {
			t.Errorf("hour %d: %d failed", h, hours[h].Failed)
		}
		if hours[h].Forecast == nil {
			t.Fatalf("hour %d: no forecast from plan", h)
		}
	}
	// The provisioned 400 RU/s: the flat hours stay under it, the peak hour asks more and is throttled.
	for _, h := range []int{0, 1, 3} {
		if hours[h].Throttled != 0 || hours[h].RU >= 400 {
			t.Errorf("hour %d: %d 429s at %.1f RU; want none under 400 RU/s", h, hours[h].Throttled, hours[h].RU)
		}
		if hours[h].Forecast.ThrottledRPS != 0 {
			t.Errorf("hour %d: plan forecasts %v req/s throttled", h, hours[h].Forecast.ThrottledRPS)
		}
	}
	if hours[2].RU <= 400 || hours[2].Throttled == 0 {
		t.Errorf("peak hour: %d 429s at %.1f RU; want 429s beyond 400 RU/s", hours[2].Throttled, hours[2].RU)
	}
	if hours[2].Forecast.ThrottledRPS <= 0 {
		t.Error("plan forecasts no throttling in the peak hour")
	}
	if !strings.Contains(out.String(), "Scores provisioned manual 400 RU/s at scale 0.1") {
		t.Errorf("output does not state the scaled throughput:\n%s", out.String())
	}
}

func TestOptionsCheck(t *testing.T) {
	d, err := design.Parse([]byte(tinyDesign), "tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{Speed: 0.5}, {Hours: MaxHours + 1}, {Scale: 2}, {Scale: -1}} {
		if err := o.Check(d); err == nil {
			t.Errorf("%+v: accepted", o)
		}
	}
	d.Traffic = nil
	o := Options{}
	if err := o.Check(d); err == nil || !strings.Contains(err.Error(), "no traffic shape") {
		t.Errorf("no traffic: %v", err)
	}
}
