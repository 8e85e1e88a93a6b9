package pipeline

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/report"
)

// TestIndexMetrics_StandIn: against a stand-in account (the engine, labelled service) whose container
// lacks the design's composite index, a run asks for index metrics on the warm-up only (every sampled
// charge is measured without them) and keeps them per pattern; the report sets the account's
// utilized and potential indexes beside our index plan and advise's changes, and says where they
// disagree.
func TestIndexMetrics_StandIn(t *testing.T) {
	ctx := context.Background()
	withStatus := func() *design.Design {
		d := smallDesign()
		d.AccessPatterns = append(d.AccessPatterns[:0:0], d.AccessPatterns[0], design.AccessPattern{ID: "AP2", Container: "UserOrders", Op: "query", Sample: "user",
			PartitionKey: []string{"{userId}"}, Query: "SELECT * FROM c WHERE c.userId = @u AND c.status = 'pending'", Params: map[string]any{"@u": "{userId}"}})
		return d
	}
	d := withStatus()
	deployed := withStatus()
	deployed.Containers[0].Indexing.Excluded = []string{"/status/?"} // the account's container as deployed

	account := startEngineWith(t, nil)
	measured, err := Run(ctx, deployed, account, record.TargetInfo{Kind: record.KindAccount, ChargeSource: record.ChargeService}, Options{Samples: 2, Database: "im"})
	if err != nil {
		t.Fatal(err)
	}
	modeled, err := Run(ctx, d, startEngine(t), record.TargetInfo{Kind: record.KindEmbedded, ChargeSource: record.ChargeModel}, Options{Samples: 2, Database: "im"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range measured.Patterns {
		for _, e := range p.Executions {
			if e.IndexMetrics != nil {
				t.Errorf("%s: a sampled execution asked for index metrics: its charge would carry their overhead", p.ID)
			}
		}
	}
	ap2 := measured.Patterns[1]
	if ap2.ID != "AP2" || ap2.IndexMetrics == nil || len(ap2.IndexMetrics.PotentialSingle) == 0 {
		t.Fatalf("AP2 kept no index metrics with a potential index: %+v", ap2.IndexMetrics)
	}

	rep := report.Build(report.Input{Design: d, Measured: measured, Modeled: modeled})
	var ix *report.IndexComparison
	for _, p := range rep.Patterns {
		if p.ID == "AP2" {
			ix = p.Indexes
		}
	}
	if ix == nil || ix.Service == nil || ix.Model == nil {
		t.Fatalf("AP2: no index comparison: %+v", ix)
	}
	if len(ix.Advice) == 0 || !strings.Contains(ix.Advice[0], `"/status/?"`) {
		t.Errorf("AP2: advise's change is not beside the metrics: %q", ix.Advice)
	}
	joined := strings.Join(ix.Disagreements, "\n")
	if !strings.Contains(joined, "the account suggests /status/?, our index plan does not") ||
		!strings.Contains(joined, "our index plan uses /status/?, the account did not") ||
		!strings.Contains(joined, "a hint to test, not proof") {
		t.Errorf("AP2 disagreements:\n%s", joined)
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, rep, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "AP2: service utilized") || !strings.Contains(buf.String(), "AP2: disagree: the account suggests") {
		t.Errorf("text report has no index section for AP2:\n%s", buf.String())
	}
	buf.Reset()
	if err := report.Render(&buf, rep, "html"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "<h2>Indexes</h2>") || !strings.Contains(buf.String(), "AP2: disagree: the account suggests /status/?") {
		t.Errorf("HTML report has no index section for AP2")
	}
}
