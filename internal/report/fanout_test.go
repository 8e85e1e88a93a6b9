package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// TestFanOut: a query that ran through the client-side pipeline gets an ordinary verdict, and the
// report names the SDK, the partitions touched and each one's charge; for a Go application the
// refusal stands and the figure is marked as what it would cost from an SDK with a query engine.
func TestFanOut(t *testing.T) {
	pipe := func(hyp bool) *record.PipelineRun {
		return &record.PipelineRun{RU: 9.6, Hypothetical: hyp, Ranges: []record.RangeCharge{
			{ID: "0", RU: 2.4, Pages: 1}, {ID: "1", RU: 2.5, Pages: 1}, {ID: "2", RU: 2.3, Pages: 1}, {ID: "3", RU: 2.4, Pages: 1}}}
	}
	for _, sdk := range []string{design.SDKDotNet, design.SDKGo} {
		d := shopDesign()
		d.App = &design.App{SDK: sdk}
		run := embeddedRun()
		ex := execs(5, 200, 10, 4, 9.6)
		if sdk == design.SDKGo {
			ex = failed(5, 400, "The provided cross partition query can not be directly served by the gateway.", "the Go SDK has no query engine")
		}
		for i := range ex {
			ex[i].Pipeline = pipe(sdk == design.SDKGo)
		}
		run.Patterns[3].Executions = ex
		r := Build(Input{Design: d, Measured: run, Modeled: run, Version: "test"})
		p := r.Patterns[3]
		if r.Design.SDK != sdk || p.FanOut == nil || len(p.FanOut.Partitions) != 4 || p.FanOut.RU != 9.6 || p.FanOut.Hypothetical != (sdk == design.SDKGo) {
			t.Fatalf("%s: sdk %q, fan-out %+v", sdk, r.Design.SDK, p.FanOut)
		}
		if want := map[string]Verdict{design.SDKDotNet: Pass, design.SDKGo: Error}[sdk]; p.Verdict != want {
			t.Errorf("%s: verdict %s, want %s (%v)", sdk, p.Verdict, want, p.Reasons)
		}
		var b bytes.Buffer
		if err := Render(&b, r, "text"); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		want := "fan-out through the query pipeline of the dotnet SDK: 9.6 RU (model) over 4 partitions touched (0: 2.4 RU, 1: 2.5 RU, 2: 2.3 RU, 3: 2.4 RU)"
		if sdk == design.SDKGo {
			want = "what it would cost from an SDK with a query engine (.NET, Java, Python, JavaScript): 9.6 RU (model) over 4 partitions"
		}
		if !strings.Contains(out, want) || !strings.Contains(out, "app SDK "+sdk) {
			t.Errorf("%s: the text report does not say %q and name the SDK:\n%s", sdk, want, out)
		}
	}
}

// A fan-out over many partitions names the costliest few and sums the rest, so the note stays
// readable at 72 partitions; the JSON keeps every one.
func TestPartitionList_Bounded(t *testing.T) {
	var ps []PartitionCharge
	for i := range 20 {
		ps = append(ps, PartitionCharge{ID: fmt.Sprint(i), RU: float64(i)})
	}
	got := partitionList(ps)
	if !strings.HasPrefix(got, "19: 19 RU, 18: 18 RU") || !strings.HasSuffix(got, "12 more: 66 RU together") {
		t.Errorf("partitionList = %q", got)
	}
	if got := partitionList(ps[:3]); got != "0: 0 RU, 1: 1 RU, 2: 2 RU" {
		t.Errorf("three partitions: %q", got)
	}
}

// A key-prefix query whose executions each reached one partition, a different one for different
// prefixes, says so: one partition an execution, not a fan-out over all it saw.
func TestFanOut_PrefixReachesOnePartitionEach(t *testing.T) {
	d := shopDesign()
	d.App = &design.App{SDK: design.SDKDotNet}
	run := embeddedRun()
	ex := execs(4, 200, 10, 1, 3.4)
	for i := range ex {
		ex[i].Pipeline = &record.PipelineRun{RU: 3.4, Ranges: []record.RangeCharge{{ID: fmt.Sprint(i), RU: 3.4, Pages: 1}}}
	}
	run.Patterns[3].Executions = ex
	r := Build(Input{Design: d, Measured: run, Modeled: run, Version: "test"})
	f := r.Patterns[3].FanOut
	if f == nil || f.PerExecution != 1 || len(f.Partitions) != 4 {
		t.Fatalf("fan-out %+v", f)
	}
	want := "over 1 partition an execution; the executions' keys reached 4 partitions in all"
	if got := fanOutNote(f); !strings.Contains(got, want) {
		t.Errorf("note %q does not say %q", got, want)
	}
}
