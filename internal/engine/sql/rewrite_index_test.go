package sql

import (
	"testing"

	"github.com/cosmosdv/validate/internal/engine/index"
)

// The ORDER BY rewrite an SDK runs on every range ("WHERE (true) AND (filter)") is planned like the
// query itself: the composite index that serves the filter and the sort still streams it, so a
// fan-out is charged for the documents the service would load, not for sorting every match.
func TestCrossPlan_RewriteKeepsTheIndex(t *testing.T) {
	src := scaleDocs(5000, 10)
	for _, d := range src {
		d.Body["type"] = map[bool]string{true: "session", false: "user"}[d.Body["cat"] == "c1"]
		d.Body["startedAt"] = d.Body["ts"]
	}
	comps := compileComposites(t, []index.CompositePath{{Path: "/type"}, {Path: "/startedAt", Order: "descending"}})
	orig := `SELECT TOP 20 c.id, c.startedAt FROM c WHERE c.type = 'session' ORDER BY c.type, c.startedAt DESC`
	q, err := Parse(orig)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := q.CrossPartitionPlan(nil, false)
	if err != nil {
		t.Fatal(err)
	}
	_, want := scaleCharge(t, src, orig, comps, nil)
	_, got := scaleCharge(t, src, replaceAll(pl.RewrittenQuery), comps, nil)
	if got.DocsLoaded != want.DocsLoaded || got.IndexEntriesRead != want.IndexEntriesRead || got.SortedInMemory != 0 {
		t.Errorf("rewritten %q: %d loaded, %d index entries, %d sorted in memory; the query itself: %d loaded, %d entries",
			pl.RewrittenQuery, got.DocsLoaded, got.IndexEntriesRead, got.SortedInMemory, want.DocsLoaded, want.IndexEntriesRead)
	}
}
