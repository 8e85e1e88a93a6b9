package plan

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
)

// A fact projected past what an int holds (a growth of 10^10 with a fact growing as n^2, or a huge
// storage figure) stays the largest count there is: never negative, so the production charge never
// falls below the seeded one, as a count wrapped by the conversion made it (plan printed
// "-9223372036854775808 index entries" and a production charge under the seeded).
func TestProjectSaturatesHugeFacts(t *testing.T) {
	f1 := cost.QueryFacts{IndexEntriesRead: 4000, DocsLoaded: 4000, BytesLoaded: 4e6, DocsOutput: 4000, BytesOutput: 4e6, SortedInMemory: 4000}
	f2 := cost.QueryFacts{IndexEntriesRead: 1000, DocsLoaded: 1000, BytesLoaded: 1e6, DocsOutput: 1000, BytesOutput: 1e6, SortedInMemory: 1000}
	for _, growth := range []float64{1e10, 9e33, math.Inf(1)} {
		p := Project(nil, f1, f2, 40, 20, growth, 1, "test", Limit{})
		if p.Fit["indexEntries"] != 2 {
			t.Fatalf("growth %g: fit %v, want n^2", growth, p.Fit)
		}
		pf := p.Production
		for name, v := range map[string]int64{"indexEntries": int64(pf.IndexEntriesRead), "docsLoaded": int64(pf.DocsLoaded),
			"bytesLoaded": pf.BytesLoaded, "docsOutput": int64(pf.DocsOutput), "bytesOutput": pf.BytesOutput, "sorted": int64(pf.SortedInMemory)} {
			if v < 1<<62 {
				t.Errorf("growth %g: production %s = %d, want it saturated", growth, name, v)
			}
		}
		if !(p.ProjectedRU > p.SeededRU) || math.IsInf(p.ProjectedRU, 0) || math.IsNaN(p.ProjectedRU) {
			t.Errorf("growth %g: projected %g RU, seeded %g", growth, p.ProjectedRU, p.SeededRU)
		}
		if p.ProdPages < 1 {
			t.Errorf("growth %g: %d production pages", growth, p.ProdPages)
		}
	}
	// Nothing grows from nothing, whatever the growth.
	p := Project(nil, cost.QueryFacts{}, cost.QueryFacts{}, 0, 0, math.Inf(1), 1, "test", Limit{})
	if p.Production.IndexEntriesRead != 0 || p.Production.BytesLoaded != 0 || math.IsNaN(p.ProjectedRU) {
		t.Errorf("empty facts projected to %+v, %g RU", p.Production, p.ProjectedRU)
	}
}

// The production facts follow from the arithmetic shown: seeded × growth^k with k as printed (two
// decimals), not with the unrounded exponent (3.5% apart at a growth of 1000 for k = 1.585).
func TestProjectArithmeticUsesPrintedExponent(t *testing.T) {
	f1 := cost.QueryFacts{IndexEntriesRead: 3000, DocsLoaded: 3000, BytesLoaded: 3e6, DocsOutput: 3000, BytesOutput: 3e6}
	f2 := cost.QueryFacts{IndexEntriesRead: 1000, DocsLoaded: 1000, BytesLoaded: 1e6, DocsOutput: 1000, BytesOutput: 1e6}
	const growth = 1000
	p := Project(nil, f1, f2, 40, 20, growth, 1, "test", Limit{})
	k := p.Fit["indexEntries"]
	if k <= 1 || k >= 2 {
		t.Fatalf("fit %v, want a k between 1 and 2", p.Fit)
	}
	if want := int(math.Round(3000 * math.Pow(growth, k))); p.Production.IndexEntriesRead != want {
		t.Errorf("production index entries %d, want 3000 × %d^%.2f = %d", p.Production.IndexEntriesRead, growth, k, want)
	}
	found := false
	for _, l := range p.Arithmetic() {
		if strings.Contains(l, fmt.Sprintf("indexEntries ∝ n^%.2f", k)) {
			found = true
		}
	}
	if !found {
		t.Errorf("arithmetic %q does not show n^%.2f", p.Arithmetic(), k)
	}
}
