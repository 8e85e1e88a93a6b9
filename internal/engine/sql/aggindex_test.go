package sql

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/index"
)

// TestExecute_IndexOnlyAggregates: an aggregate whose filters the index serves, over a constant or an
// indexed path, loads no documents (devblogs "April query updates", troubleshoot-query-performance.md
// "Understand which aggregate queries use the index"); a residual filter, an unindexed aggregated
// path, GROUP BY, a JOIN or no WHERE at all load them as before.
func TestExecute_IndexOnlyAggregates(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 1000 {
		if i > 0 {
			b.WriteString(",")
		}
		typ := "order"
		if i%5 < 2 {
			typ = "user" // 400 users
		}
		fmt.Fprintf(&b, `{"id":"d%d","type":%q,"score":%d,"name":"n%d","tags":["a","b"]}`, i, typ, i%7, i)
	}
	b.WriteString("]")
	src := docs(t, b.String())
	noScore := compile(t, index.Policy{IncludedPaths: []index.Path{{Path: "/*"}}, ExcludedPaths: []index.Path{{Path: "/score/?"}}})

	for _, tc := range []struct {
		q       string
		pol     *index.Compiled
		loaded  int
		entries int
		want    string
	}{
		{q: "SELECT VALUE COUNT(1) FROM c WHERE c.type = 'user'", loaded: 0, entries: 400, want: "[400]"},
		{q: `SELECT VALUE [{"item": COUNT(1)}] FROM c WHERE c.type = 'user'`, loaded: 0, entries: 400, want: `[[{"item":400}]]`},
		{q: "SELECT VALUE SUM(c.score) FROM c WHERE c.type = 'user'", loaded: 0, entries: 800},
		{q: "SELECT MIN(c.score) AS lo, MAX(c.score) AS hi FROM c WHERE c.type = 'user' AND c.score > 2", loaded: 0},
		{q: "SELECT VALUE COUNT(c.name) FROM c WHERE c.type = 'user'", loaded: 0, entries: 800, want: "[400]"},
		// The documents are loaded: the aggregated path is not indexed, a filter is residual, GROUP BY,
		// a JOIN, no filter at all.
		{q: "SELECT VALUE SUM(c.score) FROM c WHERE c.type = 'user'", pol: noScore, loaded: 400},
		{q: "SELECT VALUE COUNT(1) FROM c WHERE c.type = 'user' AND UPPER(c.name) = 'N1'", loaded: 400, want: "[1]"},
		{q: "SELECT VALUE COUNT(1) FROM c WHERE c.type = 'user' AND CONTAINS(c.name, '99')", loaded: 4, want: "[4]"},
		{q: "SELECT VALUE COUNT(1) FROM c WHERE c.type = 'user' OR c.score = 3", loaded: 486},
		{q: "SELECT c.score, COUNT(1) AS n FROM c WHERE c.type = 'user' GROUP BY c.score", loaded: 400},
		{q: "SELECT VALUE COUNT(1) FROM c JOIN t IN c.tags WHERE c.type = 'user'", loaded: 400, want: "[800]"},
		{q: "SELECT VALUE COUNT(1) FROM c", loaded: 1000, want: "[1000]"},
	} {
		res := run(t, tc.q, src, Options{Policy: tc.pol})
		f := res.Facts
		if f.DocsLoaded != tc.loaded || (tc.loaded == 0 && f.BytesLoaded != 0) {
			t.Errorf("%s: %d documents loaded (%d B), want %d", tc.q, f.DocsLoaded, f.BytesLoaded, tc.loaded)
		}
		if tc.entries > 0 && f.IndexEntriesRead != tc.entries {
			t.Errorf("%s: %d index entries read, want %d (%+v)", tc.q, f.IndexEntriesRead, tc.entries, f.IndexReads)
		}
		if tc.want != "" && canon(t, res.Items) != canonJSON(t, tc.want) {
			t.Errorf("%s: got %s, want %s", tc.q, canon(t, res.Items), tc.want)
		}
	}

	// The charge follows: counting 400 users from the index costs less than loading them, and less
	// than the same count with a filter the index cannot serve.
	charge := func(q string) float64 {
		f := run(t, q, src, Options{}).Facts
		f.PartitionsChecked = 1
		return cost.Query(f)
	}
	count := charge("SELECT VALUE COUNT(1) FROM c WHERE c.type = 'user'")
	load := charge("SELECT VALUE c.id FROM c WHERE c.type = 'user'")
	residual := charge("SELECT VALUE COUNT(1) FROM c WHERE c.type = 'user' AND UPPER(c.name) = 'N1'")
	t.Logf("COUNT from the index %.2f RU, the ids of the same documents %.2f RU, COUNT with a residual filter %.2f RU", count, load, residual)
	if !(count < load && count < residual) {
		t.Errorf("COUNT from the index %.2f RU, want below loading the documents (%.2f) and a residual filter (%.2f)", count, load, residual)
	}
}
