package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// ordersDesign is a one-container design whose indexing policy the comparison tests vary.
func ordersDesign(ix *design.Indexing) *design.Design {
	return &design.Design{
		Version: 1,
		Name:    "orders",
		Containers: []design.Container{
			{Name: "Orders", PartitionKey: []string{"/userId"}, Indexing: ix},
		},
		AccessPatterns: []design.AccessPattern{
			{ID: "Q1", Name: "orders by status", Container: "Orders", Op: design.OpQuery,
				Query: "SELECT * FROM c WHERE c.userId = @u AND c.status = @s", PartitionKey: []string{"{userId}"},
				RPS: design.RPS{Avg: 50}, Estimate: design.Estimate{RU: 3}},
			{ID: "Q2", Name: "recent orders by status", Container: "Orders", Op: design.OpQuery,
				Query: "SELECT * FROM c WHERE c.userId = @u ORDER BY c.status, c.createdAt DESC", PartitionKey: []string{"{userId}"},
				RPS: design.RPS{Avg: 10}, Estimate: design.Estimate{RU: 4}},
			{ID: "P1", Name: "get order", Container: "Orders", Op: design.OpRead, ItemID: "{id}", PartitionKey: []string{"{userId}"},
				RPS: design.RPS{Avg: 200}, Estimate: design.Estimate{RU: 1}},
		},
	}
}

// modeledRun is a hand-written embedded run with the given median charges per pattern.
func modeledRun(charges map[string][]record.Execution) *record.Run {
	run := &record.Run{Target: record.TargetInfo{Kind: "embedded", Engine: "cosmosdv-engine", ChargeSource: record.ChargeModel}, Seed: 7, Samples: 3}
	for _, id := range []string{"Q1", "Q2", "P1"} {
		run.Patterns = append(run.Patterns, record.Pattern{ID: id, Executions: charges[id]})
	}
	return run
}

func buildEmbedded(d *design.Design, run *record.Run) *Report {
	return Build(Input{Design: d, Measured: run, Modeled: run, Version: "test"})
}

var orderByNeedsComposite = failed(3, 400,
	"The order by query does not have a corresponding composite index that it can be served from.",
	"add the composite index (/status asc, /createdAt desc) to container Orders")

func TestCompare_IndexChanges(t *testing.T) {
	// Baseline: everything indexed, but the ORDER BY over two properties has no composite index.
	base := buildEmbedded(ordersDesign(nil), modeledRun(map[string][]record.Execution{
		"Q1": execs(3, 200, 4, 1, 3.1, 3.2),
		"Q2": orderByNeedsComposite,
		"P1": execs(3, 200, 1, 1, 1),
	}))
	// Change 1: /status/? is excluded — Q1 filters on it and turns into a scan.
	excluded := buildEmbedded(ordersDesign(&design.Indexing{Included: []string{"/*"}, Excluded: []string{"/status/?"}}),
		modeledRun(map[string][]record.Execution{
			"Q1": execs(3, 200, 4, 1, 41.7, 42.3),
			"Q2": orderByNeedsComposite,
			"P1": execs(3, 200, 1, 1, 1),
		}))
	// Change 2: the missing composite index is added — Q2 now runs and is served by the index.
	composite := buildEmbedded(ordersDesign(&design.Indexing{Included: []string{"/*"},
		Composite: [][]design.CompositePath{{{Path: "/status"}, {Path: "/createdAt", Order: "desc"}}}}),
		modeledRun(map[string][]record.Execution{
			"Q1": execs(3, 200, 4, 1, 3.1, 3.2),
			"Q2": execs(3, 200, 8, 1, 3.6, 3.7),
			"P1": execs(3, 200, 1, 1, 1),
		}))

	t.Run("excluded filter path is a regression", func(t *testing.T) {
		c, err := Compare(base, excluded, CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Regressions() != 1 {
			t.Fatalf("regressions = %d, want 1: %+v", c.Regressions(), c.Patterns)
		}
		q1 := findChange(t, c, "Q1")
		if q1.Change != Regression || q1.Modeled == nil || q1.Modeled.Change != Regression {
			t.Fatalf("Q1 = %+v, want a modeled regression", q1)
		}
		if findChange(t, c, "P1").Change != Unchanged {
			t.Error("P1 must be unchanged")
		}
		wantLine(t, c.DesignChanges, "container Orders: excluded path added: /status/?")
		var out bytes.Buffer
		if err := RenderComparison(&out, c, "text"); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"REGRESSION Q1 orders by status:", "modeled charge rose from 3.1 to 41.7 RU", "REGRESSIONS: 3 patterns — 1 regressed"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("text comparison lacks %q:\n%s", want, out.String())
			}
		}
		golden(t, "compare-excluded.txt", out.Bytes())
	})

	t.Run("added composite index is an improvement", func(t *testing.T) {
		c, err := Compare(base, composite, CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Regressions() != 0 || c.Summary.Improvements != 1 {
			t.Fatalf("summary = %+v, want 0 regressions and 1 improvement", c.Summary)
		}
		q2 := findChange(t, c, "Q2")
		if q2.Change != Improvement || q2.OldVerdict != Error || q2.NewVerdict != Pass {
			t.Fatalf("Q2 = %+v, want an improvement from error to pass", q2)
		}
		wantLine(t, c.DesignChanges, "container Orders: composite index added: /status asc, /createdAt desc")
		var md bytes.Buffer
		if err := RenderComparison(&md, c, "md"); err != nil {
			t.Fatal(err)
		}
		golden(t, "compare-composite.md", md.Bytes())
		var js bytes.Buffer
		if err := RenderComparison(&js, c, "json"); err != nil {
			t.Fatal(err)
		}
		golden(t, "compare-composite.json", js.Bytes())
	})

	t.Run("cheaper charge beyond the threshold is an improvement", func(t *testing.T) {
		c, err := Compare(excluded, base, CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if q1 := findChange(t, c, "Q1"); q1.Change != Improvement {
			t.Fatalf("Q1 = %+v, want improvement", q1)
		}
		wantLine(t, c.DesignChanges, "container Orders: excluded path removed: /status/?")
	})
}

func findChange(t *testing.T, c *Comparison, id string) PatternChange {
	t.Helper()
	for _, p := range c.Patterns {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("pattern %s missing from the comparison", id)
	return PatternChange{}
}

func wantLine(t *testing.T, lines []string, want string) {
	t.Helper()
	for _, l := range lines {
		if l == want {
			return
		}
	}
	t.Errorf("design changes %q lack %q", lines, want)
}

func TestCompare_Thresholds(t *testing.T) {
	mk := func(ru float64, reg *design.Band) *Report {
		d := ordersDesign(nil)
		d.AccessPatterns = d.AccessPatterns[2:] // P1 only
		d.AccessPatterns[0].Regression = reg
		run := &record.Run{Target: record.TargetInfo{Kind: "embedded", ChargeSource: record.ChargeModel}, Seed: 1, Samples: 1,
			Patterns: []record.Pattern{{ID: "P1", Executions: execs(1, 200, 1, 1, ru)}}}
		return buildEmbedded(d, run)
	}
	tests := []struct {
		name     string
		old, new float64
		reg      *design.Band
		opts     CompareOptions
		want     Change
	}{
		{"within the 1 RU floor", 5, 5.9, nil, CompareOptions{}, Unchanged},
		{"beyond the 1 RU floor", 5, 6.2, nil, CompareOptions{}, Regression},
		{"within 10% of a large charge", 100, 109, nil, CompareOptions{}, Unchanged},
		{"beyond 10% of a large charge", 100, 111, nil, CompareOptions{}, Regression},
		{"cheaper beyond the threshold", 100, 80, nil, CompareOptions{}, Improvement},
		{"global threshold", 100, 111, nil, CompareOptions{Pct: 20}, Unchanged},
		{"global floor", 5, 6.2, nil, CompareOptions{RU: 2}, Unchanged},
		{"pattern band beats global", 100, 111, &design.Band{Pct: 5}, CompareOptions{Pct: 20}, Regression},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(mk(tt.old, tt.reg), mk(tt.new, tt.reg), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Patterns[0].Modeled.Change; got != tt.want {
				t.Errorf("change = %s, want %s (%+v)", got, tt.want, c.Patterns[0].Modeled)
			}
		})
	}
}

func TestCompare_Refuses(t *testing.T) {
	base := embeddedReport()
	tests := []struct {
		name    string
		mutate  func(r *Report)
		force   bool
		wantErr string
	}{
		{"different charge source", func(r *Report) { r.Target.ChargeSource = record.ChargeService }, true, "charges are model (modeled) and this run's are service"},
		{"different schema version", func(r *Report) { r.SchemaVersion = 2 }, true, "schema version 1 against 2"},
		{"different seed", func(r *Report) { r.Seed = 43 }, false, "seed 42 against 43"},
		{"different samples", func(r *Report) { r.Samples = 50 }, false, "5 samples against 50"},
		{"different seed, forced", func(r *Report) { r.Seed = 43 }, true, ""},
		{"another design", func(r *Report) { r.Design.Name = "other" }, false, "against other"},
		{"a renamed design, forced", func(r *Report) { r.Design.Name = "renamed" }, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := embeddedReport()
			tt.mutate(cur)
			c, err := Compare(base, cur, CompareOptions{Force: tt.force})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(c.Forced) == 0 {
					t.Error("a forced comparison must say what was forced")
				}
				return
			}
			if !errors.Is(err, ErrIncomparable) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want ErrIncomparable mentioning %q", err, tt.wantErr)
			}
		})
	}
	if _, err := Compare(nil, base, CompareOptions{}); err == nil {
		t.Error("want an error for a missing report")
	}
}

// TestCompare_Variant: a variant (its design's variantOf names the other design) is compared with
// its origin, either way round, without Force, and the comparison says so in every format; a
// variant of a third design is still another design.
func TestCompare_Variant(t *testing.T) {
	base := embeddedReport()
	variant := func(of string) *Report {
		r := embeddedReport()
		r.Design.Name, r.Design.VariantOf = base.Design.Name+"-index-C", of
		return r
	}
	for _, tc := range []struct {
		name     string
		old, new *Report
		want     string
	}{
		{"variant after its origin", base, variant(base.Design.Name), "is a variant of " + base.Design.Name + ": this compares the variant with its origin"},
		{"origin after its variant", variant(base.Design.Name), base, "this compares the origin with its variant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compare(tc.old, tc.new, CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(c.Variant, tc.want) || len(c.Forced) != 0 {
				t.Fatalf("Variant %q, Forced %q; want %q and nothing forced", c.Variant, c.Forced, tc.want)
			}
			for _, f := range []string{"text", "md", "json"} {
				var b strings.Builder
				if err := RenderComparison(&b, c, f); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(b.String(), tc.want) {
					t.Errorf("%s does not say %q:\n%s", f, tc.want, b.String())
				}
			}
		})
	}
	if _, err := Compare(base, variant("other"), CompareOptions{}); !errors.Is(err, ErrIncomparable) {
		t.Errorf("a variant of another design: err = %v, want ErrIncomparable", err)
	}
}

func TestCompare_AddedRemoved(t *testing.T) {
	old, cur := embeddedReport(), embeddedReport()
	cur.Patterns = append(cur.Patterns[1:], PatternResult{ID: "AP9", Name: "new one", Verdict: Pass})
	c, err := Compare(old, cur, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Summary.Added != 1 || c.Summary.Removed != 1 || findChange(t, c, "AP1").Change != Removed || findChange(t, c, "AP9").Change != Added {
		t.Fatalf("summary = %+v", c.Summary)
	}
}

// TestCompare_AddedFailing: a pattern the new design adds that fails is a new failure — the
// comparison fails (exit 1) and says so — not "no regressions" with a worse design (fresh-user
// walkthrough: compare of two designs exited 0 while the added pattern failed).
func TestCompare_AddedFailing(t *testing.T) {
	old, cur := embeddedReport(), embeddedReport()
	cur.Patterns = append(cur.Patterns, PatternResult{ID: "AP11", Name: "count everything", Verdict: Fail,
		Reasons: []string{"modeled 656003 RU, estimate 5 RU"}})
	c, err := Compare(old, cur, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Summary.AddedFailing != 1 || c.Failures() != 1 {
		t.Fatalf("summary %+v, failures %d: want one added failing pattern counted as a failure", c.Summary, c.Failures())
	}
	line := compareSummaryLine(c)
	if !strings.HasPrefix(line, "NEW FAILURES") || !strings.Contains(line, "added and failing: 1") {
		t.Errorf("summary line %q: want it to lead with NEW FAILURES", line)
	}
	if r := strings.Join(findChange(t, c, "AP11").Reasons, "; "); !strings.Contains(r, "it fails: modeled 656003 RU") {
		t.Errorf("reasons %q: want why the new pattern fails", r)
	}
	// An added pattern that passes changes nothing.
	cur.Patterns[len(cur.Patterns)-1].Verdict = Pass
	if c, _ = Compare(old, cur, CompareOptions{}); c.Failures() != 0 || c.Summary.AddedFailing != 0 {
		t.Errorf("a passing added pattern: failures %d", c.Failures())
	}
}

func TestBaseline(t *testing.T) {
	r := serviceReport()
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "service.baseline.json", buf.Bytes())
	for _, banned := range []string{"started", "latency", "durationMs", "endpoint", "example.documents"} {
		if strings.Contains(buf.String(), banned) {
			t.Errorf("baseline contains %q, which changes between identical runs", banned)
		}
	}
	// Written twice from equal reports: identical bytes.
	var again bytes.Buffer
	if err := WriteBaseline(&again, serviceReport()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("baseline is not stable")
	}
	base, err := ReadBaseline(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	// A full JSON report is accepted on either side too.
	var full bytes.Buffer
	if err := Render(&full, r, "json"); err != nil {
		t.Fatal(err)
	}
	fromJSON, err := ReadBaseline(&full)
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]*Report{{base, fromJSON}, {fromJSON, base}, {base, base}} {
		c, err := Compare(pair[0], pair[1], CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Regressions() != 0 || c.Summary.Improvements != 0 || c.Summary.VerdictChanges != 0 || len(c.DesignChanges) != 0 {
			t.Errorf("baseline against its own report must show no change: %+v, %q", c.Summary, c.DesignChanges)
		}
	}
	if _, err := ReadBaseline(strings.NewReader(`{"hello": 1}`)); err == nil {
		t.Error("want an error for a file that is neither")
	}
	if _, err := ReadBaseline(strings.NewReader(`{`)); err == nil {
		t.Error("want an error for broken JSON")
	}
}

// TestCompare_SavingIsImprovement (#37 point 6): a variant that removes 64% of a write's charge
// (10 → 3.6 RU, by hand) fails its estimate (10 RU, 10% band) only because the charge fell: the
// comparison reads it as an improvement, says why, and has no regression; a modeled saving of
// 0.2 RU on 7.35 (3%) — under the 1 RU regression floor — counts as an improvement too; and the
// comparison carries the traffic-weighted RU/s: (3.6 − 10) × 200 a second = −1280 RU/s.
func TestCompare_SavingIsImprovement(t *testing.T) {
	mk := func(ru float64) *Report {
		d := ordersDesign(nil)
		d.AccessPatterns = d.AccessPatterns[2:] // P1 only
		d.AccessPatterns[0].Estimate.RU = 10
		run := &record.Run{Target: record.TargetInfo{Kind: "embedded", ChargeSource: record.ChargeModel}, Seed: 1, Samples: 1,
			Patterns: []record.Pattern{{ID: "P1", Executions: execs(1, 200, 1, 1, ru)}}}
		return buildEmbedded(d, run)
	}
	old, new := mk(10), mk(3.6)
	if old.Patterns[0].Verdict == Fail || new.Patterns[0].Verdict != Fail {
		t.Fatalf("verdicts %s → %s: the test wants the new charge to fail its estimate", old.Patterns[0].Verdict, new.Patterns[0].Verdict)
	}
	c, err := Compare(old, new, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Regressions() != 0 || c.Patterns[0].Change != Improvement || c.Summary.Improvements != 1 {
		t.Errorf("change %s, %d regressions: %v", c.Patterns[0].Change, c.Regressions(), c.Patterns[0].Reasons)
	}
	if !strings.Contains(strings.Join(c.Patterns[0].Reasons, "; "), "fell below its estimate") {
		t.Errorf("reasons %v: want the estimate named", c.Patterns[0].Reasons)
	}
	if c.Load == nil || c.Load.Delta != -1280 {
		t.Errorf("load %+v, want −1280 RU/s", c.Load)
	}
	var b strings.Builder
	if err := RenderComparison(&b, c, "text"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"RU/s (modeled", "onthly cost at production", "NO REGRESSIONS", "1 improved"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	// A small modeled saving counts.
	c, err = Compare(mk(7.35), mk(7.15), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Patterns[0].Modeled.Change != Improvement {
		t.Errorf("7.35 → 7.15 modeled: %s, want an improvement", c.Patterns[0].Modeled.Change)
	}
	// A failed expectation with a lower charge is still a regression (a query that finds nothing
	// is cheap).
	bad := mk(3.6)
	bad.Patterns[0].Checks = []Check{{Name: "minResults", Run: "modeled", OK: false}}
	if c, _ := Compare(old, bad, CompareOptions{}); c.Regressions() != 1 {
		t.Errorf("a cheaper pattern that fails an expectation: %d regressions, want 1", c.Regressions())
	}
}

// TestCompare_TradeOff (#37 point 6): a variant that makes one pattern dearer (P1, a read at 200
// a second: 1.5 → 2.6 RU, +220 RU/s by hand; its estimate of 2 RU ± 1 holds both) to make another
// much cheaper (Q1 at 50 a second: 40 → 4 RU, −1,800 RU/s) lowers the design's RU/s by 1,580:
// compared with its origin, P1 is a trade-off with its reason, not a regression. The same two
// reports compared as one design's baseline and run keep P1 a regression.
func TestCompare_TradeOff(t *testing.T) {
	mk := func(q, p float64) *Report {
		d := ordersDesign(nil)
		d.AccessPatterns[2].Estimate.RU = 2
		d.AccessPatterns[2].Tolerance = &design.Band{RU: 1}
		return buildEmbedded(d, modeledRun(map[string][]record.Execution{
			"Q1": execs(3, 200, 4, 1, q), "Q2": execs(3, 200, 4, 1, 4), "P1": execs(3, 200, 1, 1, p)}))
	}
	old, new := mk(40, 1.5), mk(4, 2.6)
	if old.Patterns[2].Verdict != new.Patterns[2].Verdict {
		t.Fatalf("P1's verdict moves (%s → %s): the test wants a charge regression alone", old.Patterns[2].Verdict, new.Patterns[2].Verdict)
	}
	c, err := Compare(old, new, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Regressions() != 1 || c.Of("P1").Change != Regression {
		t.Fatalf("a design against itself: %d regressions, P1 %s", c.Regressions(), c.Of("P1").Change)
	}
	new = mk(4, 2.6)
	new.Design.Name, new.Design.VariantOf = old.Design.Name+"-x", old.Design.Name
	c, err = Compare(old, new, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Load == nil || c.Load.Delta != -1580 {
		t.Fatalf("load %+v, want −1580 RU/s", c.Load)
	}
	p1 := c.Of("P1")
	if c.Regressions() != 0 || p1.Change != TradeOff || c.Summary.TradeOffs != 1 || c.Of("Q1").Change != Improvement {
		t.Errorf("%d regressions, P1 %s (%v), Q1 %s", c.Regressions(), p1.Change, p1.Reasons, c.Of("Q1").Change)
	}
	var b strings.Builder
	if err := RenderComparison(&b, c, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "TRADE-OFF P1") || !strings.Contains(b.String(), "1 traded off") {
		t.Errorf("text:\n%s", b.String())
	}
}
