package sql

import (
	"fmt"
	"strings"
	"testing"
)

// TestExecute_Recheck: a key range re-checked at runtime (Options.Recheck, a hierarchical-key
// prefix sent in the request options) is evaluated on every document the served filters keep:
// each is loaded and evaluated, those outside the range are dropped, and an aggregate the index
// would answer alone loads its documents (azure-cosmos-dotnet-v3 #4248, #3936).
func TestExecute_Recheck(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 200 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"d%d","tenant":"t%d","status":%q}`, i, i%10, []string{"open", "paid"}[i%2])
	}
	b.WriteString("]")
	src := docs(t, b.String())
	inT2 := func(d *Document) bool {
		return strings.Contains(string(d.Raw), `"tenant":"t2"`) || d.Body["tenant"] == "t2"
	}
	for _, tc := range []struct {
		q                 string
		recheck           bool
		loaded, evaluated int
		want              string
	}{
		// The status filter is served: the 100 open documents of every tenant are loaded and
		// re-checked; t2's 20 are returned.
		{q: "SELECT VALUE c.id FROM c WHERE c.status = 'open'", recheck: true, loaded: 100, evaluated: 100},
		{q: "SELECT VALUE c.id FROM c WHERE c.status = 'open'", loaded: 100, evaluated: 0},
		// The prefix in WHERE too: the index narrows to t2's, and each is still re-checked.
		{q: "SELECT VALUE c.id FROM c WHERE c.tenant = 't2' AND c.status = 'open'", recheck: true, loaded: 20, evaluated: 20},
		// An aggregate: answered from the index alone without the re-check, loaded with it.
		{q: "SELECT VALUE COUNT(1) FROM c WHERE c.tenant = 't2' AND c.status = 'open'", loaded: 0, want: "[20]"},
		{q: "SELECT VALUE COUNT(1) FROM c WHERE c.tenant = 't2' AND c.status = 'open'", recheck: true, loaded: 20, evaluated: 20, want: "[20]"},
		{q: "SELECT VALUE COUNT(1) FROM c WHERE c.status = 'open'", recheck: true, loaded: 100, evaluated: 100, want: "[20]"},
	} {
		o := Options{}
		if tc.recheck {
			o.Recheck = inT2
		}
		res := run(t, tc.q, src, o)
		f := res.Facts
		if f.DocsLoaded != tc.loaded || f.DocsEvaluated != tc.evaluated {
			t.Errorf("%s (recheck %v): %d loaded, %d evaluated; want %d, %d", tc.q, tc.recheck, f.DocsLoaded, f.DocsEvaluated, tc.loaded, tc.evaluated)
		}
		if tc.recheck && tc.want == "" && f.DocsOutput != 20 {
			t.Errorf("%s: %d results; want t2's only", tc.q, f.DocsOutput)
		}
		if tc.want != "" && canon(t, res.Items) != canonJSON(t, tc.want) {
			t.Errorf("%s (recheck %v): got %s, want %s", tc.q, tc.recheck, canon(t, res.Items), tc.want)
		}
	}
}
