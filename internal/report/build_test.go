package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

func onePattern(ap design.AccessPattern) *design.Design {
	if ap.ID == "" {
		ap.ID = "X1"
	}
	if ap.Container == "" {
		ap.Container = "C"
	}
	return &design.Design{Version: 1, Name: "one", Containers: []design.Container{{Name: "C", PartitionKey: []string{"/pk"}}},
		AccessPatterns: []design.AccessPattern{ap}}
}

func runOf(source record.ChargeSource, ex []record.Execution) *record.Run {
	return &record.Run{Target: record.TargetInfo{Kind: "k", ChargeSource: source}, Seed: 1, Samples: len(ex),
		Patterns: []record.Pattern{{ID: "X1", Executions: ex}}}
}

func TestBuild_Verdicts(t *testing.T) {
	query := design.AccessPattern{Op: design.OpQuery, Estimate: design.Estimate{RU: 10}} // tolerance ±5 RU
	point := design.AccessPattern{Op: design.OpRead, Estimate: design.Estimate{RU: 1}}   // tolerance ±1 RU
	withExpect := func(ap design.AccessPattern, x design.Expect) design.AccessPattern { ap.Expect = &x; return ap }
	tests := []struct {
		name       string
		ap         design.AccessPattern
		modeled    []record.Execution
		measSource record.ChargeSource // "" = embedded only
		measured   []record.Execution
		want       Verdict
		wantReason string
		wantNoMeas bool
	}{
		{name: "modeled within band", ap: query, modeled: execs(3, 200, 1, 1, 11), want: Pass, wantNoMeas: true},
		{name: "modeled close to the edge", ap: query, modeled: execs(3, 200, 1, 1, 14.5), want: Warn, wantReason: "uses 90% of it"},
		{name: "modeled outside", ap: query, modeled: execs(3, 200, 1, 1, 15.5), want: Fail, wantReason: "modeled median 15.5 RU is 5.5 RU above"},
		{name: "median not mean decides", ap: query, modeled: execs(3, 200, 1, 1, 10, 10, 90), want: Pass},
		{name: "point floor of 1 RU", ap: point, modeled: execs(1, 200, 1, 1, 1.9), want: Warn},
		{name: "point beyond floor", ap: point, modeled: execs(1, 200, 1, 1, 2.1), want: Fail},
		{name: "service outside is ground truth", ap: query, modeled: execs(1, 200, 1, 1, 10), measSource: record.ChargeService,
			measured: execs(1, 200, 1, 1, 20), want: Fail, wantReason: "so the figures disagree"},
		{name: "service within, model outside warns", ap: query, modeled: execs(1, 200, 1, 1, 20), measSource: record.ChargeService,
			measured: execs(1, 200, 1, 1, 10), want: Warn, wantReason: "modeled median 20 RU"},
		{name: "indicative gets twice the band", ap: query, modeled: execs(1, 200, 1, 1, 10), measSource: record.ChargeEmulatorIndicative,
			measured: execs(1, 200, 1, 1, 17), want: Pass},
		{name: "indicative beyond twice the band warns", ap: query, modeled: execs(1, 200, 1, 1, 10), measSource: record.ChargeEmulatorIndicative,
			measured: execs(1, 200, 1, 1, 21), want: Warn, wantReason: "emulator median 21 RU"},
		{name: "both outside fail", ap: query, modeled: execs(1, 200, 1, 1, 30), measSource: record.ChargeEmulatorIndicative,
			measured: execs(1, 200, 1, 1, 30), want: Fail},
		{name: "placeholder never decides", ap: query, modeled: execs(1, 200, 1, 1, 10), measSource: record.ChargeEmulatorPlaceholder,
			measured: execs(1, 200, 1, 1, 1), want: Warn, wantReason: "rests on the modeled figure"},
		{name: "placeholder with modeled outside fails", ap: query, modeled: execs(1, 200, 1, 1, 40), measSource: record.ChargeEmulatorPlaceholder,
			measured: execs(1, 200, 1, 1, 1), want: Fail},
		{name: "placeholder only, no modeled charge", ap: query, modeled: failed(1, 400, "x", ""), measSource: record.ChargeEmulatorPlaceholder,
			measured: execs(1, 200, 1, 1, 1), want: Error, wantReason: "the charge was not judged"},
		{name: "execution error", ap: query, modeled: failed(2, 400, "bad query", "add a composite index"), want: Error,
			wantReason: "2 of 2 executions failed with status 400: bad query — add a composite index"},
		{name: "error on the measured run", ap: query, modeled: execs(1, 200, 1, 1, 10), measSource: record.ChargeService,
			measured: failed(1, 429, "throttled", ""), want: Error, wantReason: "measured run: 1 of 1"},
		{name: "expected failure status", ap: withExpect(point, design.Expect{Status: 412}), modeled: execs(2, 412, 0, 1, 1), want: Pass},
		{name: "expected status missed", ap: withExpect(point, design.Expect{Status: 412}), modeled: execs(2, 200, 1, 1, 1), want: Fail,
			wantReason: "want status 412 in every execution, got status 200 in 2 of 2"},
		{name: "single partition expected", ap: withExpect(query, design.Expect{SinglePartition: ptr(true)}), modeled: execs(2, 200, 1, 3, 10),
			want: Fail, wantReason: "up to 3 partitions in 2 of 2"},
		{name: "min results", ap: withExpect(query, design.Expect{MinResults: ptr(1)}), modeled: execs(2, 200, 0, 1, 10),
			want: Fail, wantReason: "as few as 0 results"},
		{name: "max results", ap: withExpect(query, design.Expect{MaxResults: ptr(5)}), modeled: execs(2, 200, 9, 1, 10),
			want: Fail, wantReason: "as many as 9 results"},
		{name: "expectations met", ap: withExpect(query, design.Expect{SinglePartition: ptr(true), MinResults: ptr(1), MaxResults: ptr(5)}),
			modeled: execs(2, 200, 3, 1, 10), want: Pass},
		{name: "not executed", ap: query, modeled: nil, want: Error, wantReason: "pattern was not executed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := runOf(record.ChargeModel, tt.modeled)
			in := Input{Design: onePattern(tt.ap), Measured: model, Modeled: model}
			if tt.measSource != "" {
				in.Measured = runOf(tt.measSource, tt.measured)
			}
			r := Build(in)
			p := r.Patterns[0]
			if p.Verdict != tt.want {
				t.Errorf("verdict = %s, want %s; reasons %q", p.Verdict, tt.want, p.Reasons)
			}
			if tt.wantReason != "" && !strings.Contains(strings.Join(p.Reasons, "\n"), tt.wantReason) {
				t.Errorf("reasons %q lack %q", p.Reasons, tt.wantReason)
			}
			if tt.want != Pass && len(p.Reasons) == 0 {
				t.Error("a verdict other than pass needs a reason")
			}
			if tt.wantNoMeas && p.Measured != nil {
				t.Error("a modeled charge must never appear as measured")
			}
			if p.Modeled != nil && p.Modeled.Source != record.ChargeModel {
				t.Errorf("modeled source = %q", p.Modeled.Source)
			}
			if p.Measured != nil && p.Measured.Source != tt.measSource {
				t.Errorf("measured source = %q, want %q", p.Measured.Source, tt.measSource)
			}
			wantFindings := 0
			if tt.want == Fail || tt.want == Error {
				wantFindings = 1
			}
			if r.Findings() != wantFindings {
				t.Errorf("Findings() = %d, want %d", r.Findings(), wantFindings)
			}
		})
	}
}

func TestBuild_TolerancePrecedence(t *testing.T) {
	des := &design.Tolerance{Query: &design.Band{Pct: 40}}
	pat := &design.Band{Pct: 60, RU: 2}
	tests := []struct {
		name     string
		op       string
		opts     Options
		design   *design.Tolerance
		pattern  *design.Band
		want     design.Band
		wantFrom string
	}{
		{"default query", design.OpQuery, Options{}, nil, nil, DefaultQueryBand, "default"},
		{"default point", design.OpRead, Options{}, nil, nil, DefaultPointBand, "default"},
		{"options change one field", design.OpQuery, Options{QueryPct: 30}, nil, nil, design.Band{Pct: 30}, "options"},
		{"options floor", design.OpRead, Options{MinRU: 2}, nil, nil, design.Band{Pct: 25, RU: 2}, "options"},
		{"design over options", design.OpQuery, Options{QueryPct: 30}, des, nil, *des.Query, "design"},
		{"pattern over all", design.OpQuery, Options{QueryPct: 30}, des, pat, *pat, "pattern"},
		{"query options leave points alone", design.OpRead, Options{QueryPct: 30}, des, nil, DefaultPointBand, "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := onePattern(design.AccessPattern{Op: tt.op, Estimate: design.Estimate{RU: 10}, Tolerance: tt.pattern})
			d.Tolerance = tt.design
			run := runOf(record.ChargeModel, execs(1, 200, 1, 1, 10))
			p := Build(Input{Design: d, Measured: run, Options: tt.opts}).Patterns[0]
			if p.Tolerance != tt.want || p.ToleranceFrom != tt.wantFrom {
				t.Errorf("tolerance = %+v from %s, want %+v from %s", p.Tolerance, p.ToleranceFrom, tt.want, tt.wantFrom)
			}
		})
	}
}

func TestBuild_NoRuns(t *testing.T) {
	r := Build(Input{Design: onePattern(design.AccessPattern{Op: design.OpRead})})
	if r.Patterns[0].Verdict != Error || r.Findings() != 1 {
		t.Fatalf("want an error verdict without runs, got %+v", r.Patterns[0])
	}
	if r := Build(Input{}); r == nil || len(r.Patterns) != 0 || r.SchemaVersion != SchemaVersion {
		t.Fatalf("Build of an empty input = %+v", r)
	}
}

func TestBuild_ContainerLoad(t *testing.T) {
	r := embeddedReport()
	var orders *ContainerLoad
	for i := range r.Containers {
		if r.Containers[i].Name == "Orders" {
			orders = &r.Containers[i]
		}
	}
	if orders == nil {
		t.Fatal("no load for Orders")
	}
	// Estimates: AP2 3×20, AP3 4×2, AP4 10×1, AP5 8×10, AP6 10×1 = 168 RU/s on average;
	// peaks 3×60 + 4×2 + 10×1 + 8×30 + 10×1 = 448 RU/s.
	if orders.Estimate.Avg != 168 || orders.Estimate.Peak != 448 {
		t.Errorf("estimate load = %+v, want 168 / 448", orders.Estimate)
	}
	if orders.Provisioned != 1000 || orders.Measured != nil {
		t.Errorf("provisioned %v, measured %+v", orders.Provisioned, orders.Measured)
	}
}

// TestBuild_EmptyResults: a query that finds nothing in every execution, with no expectation on
// its results, is a warning with its likely cause (shown in every format), not a silent pass; with
// lint's review finding of the pattern, that finding is the cause named.
func TestBuild_EmptyResults(t *testing.T) {
	query := design.AccessPattern{Op: design.OpQuery, Sample: "order", Estimate: design.Estimate{RU: 3}}
	build := func(ap design.AccessPattern, results int, review map[string][]string) PatternResult {
		model := runOf(record.ChargeModel, execs(3, 200, results, 1, 3))
		return Build(Input{Design: onePattern(ap), Measured: model, Modeled: model, Review: review}).Patterns[0]
	}
	reason := func(p PatternResult) string {
		for _, r := range p.Reasons {
			if strings.Contains(r, "returned no items") {
				return r
			}
		}
		return ""
	}
	p := build(query, 0, nil)
	r := reason(p)
	if p.Verdict != Warn || !strings.Contains(r, "in any of its 3 successful executions") {
		t.Fatalf("verdict %s, reasons %q: want warn, with the executions counted", p.Verdict, p.Reasons)
	}
	// The reason claims nothing about the charge: a query that finds nothing may cost more than the
	// estimate (here 3 RU exactly) as well as less. It names the likely causes and the YAML to paste.
	for _, want := range []string{"likely causes: a partitionKey template", "drawn from a order document", "expect: {maxResults: 0}"} {
		if !strings.Contains(r, want) || strings.Contains(r, "costs less") {
			t.Errorf("reason %q: want %q and no claim about the cost", r, want)
		}
	}
	var md strings.Builder
	if err := Render(&md, &Report{Patterns: []PatternResult{p}}, "md"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "returned no items") {
		t.Errorf("markdown lacks the reason:\n%s", md.String())
	}
	linted := build(query, 0, map[string][]string{"X1": {"d.yaml:9:5: accessPatterns[0].partitionKey[0]: reads {customerId} [partition-key-template]"}})
	if linted.Verdict != Warn || !strings.Contains(reason(linted), "likely cause: lint's finding above") ||
		!slices.ContainsFunc(linted.Reasons, func(r string) bool {
			return strings.HasPrefix(r, "lint: ") && strings.Contains(r, "[partition-key-template]")
		}) {
		t.Errorf("with lint's finding: verdict %s, reasons %q", linted.Verdict, linted.Reasons)
	}
	if p := build(query, 2, nil); reason(p) != "" || p.Verdict != Pass {
		t.Errorf("a query with results: verdict %s, reasons %q", p.Verdict, p.Reasons)
	}
	none := query
	none.Expect = &design.Expect{MaxResults: ptr(0)}
	if p := build(none, 0, nil); reason(p) != "" {
		t.Errorf("a query expected to find nothing got %q", reason(p))
	}
	failing := query
	failing.Expect = &design.Expect{Status: 400}
	if p := build(failing, 0, nil); reason(p) != "" {
		t.Errorf("a query expected to fail got %q", reason(p))
	}
}

// TestBuild_DefaultToleranceEdges holds the default tolerances at their edges both ways (issue 44):
// with no tolerance in the design or the options, a query passes within 50% of its estimate and a
// point operation within 25% (and 1 RU), and fails just beyond.
func TestBuild_DefaultToleranceEdges(t *testing.T) {
	for _, tt := range []struct {
		op       string
		charge   float64
		wantFail bool
	}{
		{design.OpQuery, 149, false},
		{design.OpQuery, 151, true},
		{design.OpQuery, 51, false},
		{design.OpQuery, 49, true},
		{design.OpRead, 124, false},
		{design.OpRead, 126, true},
		{design.OpRead, 76, false},
		{design.OpRead, 74, true},
	} {
		d := onePattern(design.AccessPattern{Op: tt.op, Estimate: design.Estimate{RU: 100}})
		p := Build(Input{Design: d, Measured: runOf(record.ChargeModel, execs(1, 200, 1, 1, tt.charge))}).Patterns[0]
		if (p.Verdict == Fail) != tt.wantFail {
			t.Errorf("%s charged %g against an estimate of 100 RU: verdict %s (tolerance %+v), want fail %v",
				tt.op, tt.charge, p.Verdict, p.Tolerance, tt.wantFail)
		}
	}
}
