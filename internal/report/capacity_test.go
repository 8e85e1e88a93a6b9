package report

import (
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/record"
)

// TestBuild_CapacityFindings: a container whose throughput is below the designed peak fails the run
// (Findings > 0, so exit 1) with plan's own figures and words, and plan's risk agrees with its
// utilisation.
func TestBuild_CapacityFindings(t *testing.T) {
	d, err := design.Parse([]byte(shortDesign), "short.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := runOf(record.ChargeModel, execs(3, 3, 1, 1, 3))
	p, err := plan.Build(d, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The driver passes plan's capacity warnings in (pipeline.DesignFindings); report states them.
	var planMsg string
	var capacity []CapacityWarning
	for _, w := range p.Warnings {
		if w.Code == "throughput-short" {
			planMsg = w.Message
		}
		capacity = append(capacity, CapacityWarning{Code: w.Code, Container: w.Subject, Message: w.Message})
	}
	r := Build(Input{Design: d, Modeled: model, Measured: model, Capacity: capacity})
	if r.Findings() == 0 || r.Summary.Verdict == Pass {
		t.Fatalf("findings %d, verdict %s: a short container must fail the run", r.Findings(), r.Summary.Verdict)
	}
	if planMsg == "" {
		t.Fatalf("plan does not report the shortfall: %+v", p.Warnings)
	}
	found := false
	for _, f := range r.StageFindings {
		if f.Stage == StageCapacity && strings.Contains(f.Message, planMsg) {
			found = true
		}
	}
	if !found {
		t.Errorf("run's findings %+v lack plan's words %q", r.StageFindings, planMsg)
	}
	if !strings.Contains(SummaryLine(r), "1 capacity finding") {
		t.Errorf("summary line %q does not count the capacity finding", SummaryLine(r))
	}
	for _, c := range p.Containers {
		if c.Hot.Utilization > 1 && c.Hot.Risk != "high" {
			t.Errorf("plan: %s at %.0f%% of its partition's throughput, risk %s", c.Name, 100*c.Hot.Utilization, c.Hot.Risk)
		}
	}
}

const shortDesign = `version: 1
name: short
containers:
  - name: Feed
    partitionKey: [/ownerId]
    throughput: {autoscaleMax: 1000}
    documents:
      - type: feedItem
        count: 50
        fields:
          ownerId: {gen: code, prefix: u-, cardinality: 5}
accessPatterns:
  - id: AP1
    name: An owner's feed
    container: Feed
    op: query
    sample: feedItem
    query: SELECT * FROM c WHERE c.ownerId = @owner
    params: {"@owner": "{ownerId}"}
    rps: {avg: 500, peak: 2000}
    estimate: {ru: 3}
`

// TestBuild_CapacityAtProductionScale: a run's container load carries each query's median to
// production scale (median × projection factor) when the design states one; the shortfall it
// shows there fails the run and says which figures it used, while the seeded load fits.
func TestBuild_CapacityAtProductionScale(t *testing.T) {
	d, err := design.Parse([]byte(shortDesign), "short.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d.AccessPatterns[0].RPS = design.RPS{Avg: 10, Peak: 40} // 3 RU × 40/s = 120 RU/s seeded
	d.AccessPatterns[0].Estimate.RU = 300
	model := runOf(record.ChargeModel, execs(3, 200, 1, 1, 3))
	model.Patterns[0].ID = "AP1"
	model.Projections = []record.Projection{{ID: "AP1", Production: true, SeededRU: 3, ProjectedRU: 300}}
	r := Build(Input{Design: d, Modeled: model, Measured: model})
	cl := r.Containers[0]
	if cl.Modeled == nil || cl.Modeled.Scale != VerdictOnProjected || cl.Modeled.Peak != 120 || cl.Modeled.ProductionPeak != 12000 {
		t.Fatalf("modeled load %+v: want seeded peak 120 RU/s and production peak 12000 RU/s, judged at production", cl.Modeled)
	}
	var msg string
	for _, f := range r.StageFindings {
		if f.Stage == StageCapacity {
			msg = f.Message
		}
	}
	if !strings.Contains(msg, "12000 RU/s") || !strings.Contains(msg, "projected to production scale") || r.Findings() == 0 {
		t.Errorf("capacity finding %q (findings %d): want the production peak of 12000 RU/s, said to be projected", msg, r.Findings())
	}
	var buf strings.Builder
	if err := Render(&buf, r, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "12000 modeled, production") {
		t.Errorf("text report's load lacks the production figure:\n%s", buf.String())
	}

	// Without a production scale the same medians fit the 1000 RU/s.
	model.Projections[0] = record.Projection{ID: "AP1", SeededRU: 3, ProjectedRU: 3}
	r = Build(Input{Design: d, Modeled: model, Measured: model})
	if cl := r.Containers[0]; cl.Modeled.Scale != VerdictOnSeeded || failing(r.StageFindings) != 0 {
		t.Errorf("no production scale: load %+v, findings %+v: want seeded, none", cl.Modeled, r.StageFindings)
	}
}

// TestBuild_CapacityTellsOneStory: when the run has its own load for a container, its capacity
// findings use the figures of the report's request-rate table; plan's throughput-short for that
// container (a static estimate, with another peak) is not repeated, whichever way the two
// disagree, and plan's hot-partition is labelled as plan's with both peaks (issue 14's
// walkthrough: "below the modeled peak of 317074 RU/s (plan: throughput-short)" beside a table
// saying 3168 RU/s).
func TestBuild_CapacityTellsOneStory(t *testing.T) {
	d, err := design.Parse([]byte(shortDesign), "short.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plans := []CapacityWarning{
		{Code: "throughput-short", Container: "Feed", Message: "designed autoscale 1000 RU/s is below the modeled peak of 317074 RU/s", PlanPeak: 317074},
		{Code: "hot-partition", Container: "Feed", Message: "busiest logical partition needs 12000 RU/s, over the 10000 RU/s a physical partition serves", PlanPeak: 317074},
	}
	model := runOf(record.ChargeModel, execs(3, 200, 1, 1, 3))
	model.Patterns[0].ID = "AP1"
	capacityOf := func(r *Report) []string {
		var out []string
		for _, f := range r.StageFindings {
			if f.Stage == StageCapacity {
				out = append(out, f.Message)
			}
		}
		return out
	}

	// The run's load, 3 RU × 2000/s = 6000 RU/s, is short too: one throughput-short, the run's.
	r := Build(Input{Design: d, Modeled: model, Measured: model, Capacity: plans})
	got := capacityOf(r)
	if peak := r.Containers[0].Modeled.Peak; peak != 6000 {
		t.Fatalf("request-rate table's modeled peak %v, want 6000", peak)
	}
	if len(got) != 2 || !strings.Contains(got[1], "peak of 6000 RU/s") || !strings.Contains(got[1], "(run: throughput-short)") {
		t.Errorf("findings %q: want plan's hot-partition and the run's throughput-short at 6000 RU/s", got)
	}
	for _, m := range got {
		if strings.Contains(m, "(plan: throughput-short)") || strings.Contains(m, "peak of 317074 RU/s (") {
			t.Errorf("plan's throughput-short repeated beside the run's: %q", m)
		}
	}
	if want := "(plan's static estimate: hot-partition, on plan's peak of 317074 RU/s; this run's model peak is 6000 RU/s)"; !strings.HasSuffix(got[0], want) {
		t.Errorf("hot-partition %q: want it labelled %q", got[0], want)
	}

	// The run's load fits (3 RU × 200/s): plan's throughput-short is not the run's story.
	d.AccessPatterns[0].RPS = design.RPS{Avg: 100, Peak: 200}
	r = Build(Input{Design: d, Modeled: model, Measured: model, Capacity: plans[:1]})
	if got := capacityOf(r); len(got) != 0 {
		t.Errorf("run's peak %v fits 1000 RU/s: findings %q, want none", r.Containers[0].Modeled.Peak, got)
	}

	// Without the run's own load (no successful execution) plan's words stay, as plan's.
	failedRun := runOf(record.ChargeModel, failed(3, 500, "boom", ""))
	r = Build(Input{Design: d, Modeled: failedRun, Measured: failedRun, Capacity: plans[:1]})
	if got := capacityOf(r); len(got) != 1 || !strings.HasSuffix(got[0], "(plan: throughput-short)") {
		t.Errorf("no run load: findings %q, want plan's throughput-short", got)
	}
}

// TestBuild_UnprojectedQuery: a query the projection could not carry to production (its note says
// why) is judged and shown at its seeded median, labelled not projected, and the report says why;
// it is never presented as a projection by ×1.
func TestBuild_UnprojectedQuery(t *testing.T) {
	d, err := design.Parse([]byte(shortDesign), "short.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := runOf(record.ChargeModel, execs(3, 200, 1, 1, 3))
	model.Patterns[0].ID = "AP1"
	model.Projections = []record.Projection{{ID: "AP1", Production: true, Unprojected: true,
		Note: "the query fails in process: something the engine refuses"}}
	r := Build(Input{Design: d, Modeled: model, Measured: model})
	if c := r.Patterns[0].Modeled; c == nil || c.VerdictOn != VerdictOnSeeded {
		t.Fatalf("modeled charge %+v: want the verdict on the seeded median", c)
	}
	var buf strings.Builder
	if err := Render(&buf, r, "text"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"= seeded (not estimated)", "AP1 " + r.Patterns[0].Name + ": no production figure", "something the engine refuses"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}
