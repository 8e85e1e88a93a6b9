package sql

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/index"
)

// ruleDocs are n documents of partition keys k0..k3, a rising ts, and a flag on one in five.
func ruleDocs(t *testing.T, n int) sliceSource {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"d%d","pk":"k%d","ts":%d,"flag":%t,"name":"n%d"}`, i, i%4, i, i%5 == 0, i)
	}
	b.WriteString("]")
	return docs(t, b.String())
}

func sel(name, alt string) *cost.Selection { return (*cost.Selection)(nil).With(name, alt) }

// TestRules_TopUnservedFilter: under "stops" (the default) a streamed TOP with a filter the index
// does not serve loads documents until TOP pass; under "scans" it loads every document walked,
// returns the same items, and the estimator's reading (AnalyzeWith) follows the same selection.
func TestRules_TopUnservedFilter(t *testing.T) {
	src := ruleDocs(t, 400)
	q := "SELECT TOP 5 c.id FROM c WHERE UPPER(c.name) != 'X' AND c.flag = true ORDER BY c.ts"
	noFlag := compile(t, index.Policy{IncludedPaths: []index.Path{{Path: "/*"}}, ExcludedPaths: []index.Path{{Path: "/flag/?"}}})
	def := run(t, q, src, Options{Policy: noFlag})
	scans := run(t, q, src, Options{Policy: noFlag, Rules: sel(cost.RuleTopUnservedFilter, cost.AltScans)})
	if fmt.Sprint(def.Items) != fmt.Sprint(scans.Items) || len(def.Items) != 5 {
		t.Fatalf("items differ or not 5: %v vs %v", def.Items, scans.Items)
	}
	if def.Facts.DocsLoaded != 21 {
		t.Errorf("stops: %d documents loaded, want 21 (d0 to d20: one in five passes)", def.Facts.DocsLoaded)
	}
	if scans.Facts.DocsLoaded != 400 || scans.Facts.DocsEvaluated != 400 {
		t.Errorf("scans: %d loaded, %d evaluated, want 400 each", scans.Facts.DocsLoaded, scans.Facts.DocsEvaluated)
	}
	if cost.Current.Query(scans.Facts) <= cost.Current.Query(def.Facts) {
		t.Error("scans must charge more than stops")
	}
}

// TestRules_PKOrderComposite: WHERE c.pk = @k ORDER BY c.ts with the composite (pk, ts) sorts the
// key's documents under "sorts" (the default) and streams TOP from the composite under "streams";
// Analyze and Execute agree under each.
func TestRules_PKOrderComposite(t *testing.T) {
	all := ruleDocs(t, 400)
	var key sliceSource // the logical partition of k1, as the engine's source for a single-partition query
	for _, d := range all {
		if d.Body["pk"] == "k1" {
			key = append(key, d)
		}
	}
	pol := compileComposites(t, []index.CompositePath{{Path: "/pk", Order: "ascending"}, {Path: "/ts", Order: "ascending"}})
	q := "SELECT TOP 3 c.id FROM c WHERE c.pk = 'k1' ORDER BY c.ts"
	pk := [][]string{{"pk"}}
	pq, err := Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	def := run(t, q, key, Options{Policy: pol, PartitionKey: pk})
	str := run(t, q, key, Options{Policy: pol, PartitionKey: pk, Rules: sel(cost.RulePKOrderComposite, cost.AltStreams)})
	if fmt.Sprint(def.Items) != fmt.Sprint(str.Items) || fmt.Sprint(str.Items) != "[map[id:d1] map[id:d5] map[id:d9]]" {
		t.Fatalf("items: sorts %v, streams %v", def.Items, str.Items)
	}
	if def.Facts.SortedInMemory != 100 || def.Streamed {
		t.Errorf("sorts: %d sorted, streamed %v; want the key's 100 sorted", def.Facts.SortedInMemory, def.Streamed)
	}
	if str.Facts.SortedInMemory != 0 || str.Facts.DocsLoaded != 3 {
		t.Errorf("streams: %d sorted, %d loaded; want none sorted and TOP 3 loaded", str.Facts.SortedInMemory, str.Facts.DocsLoaded)
	}
	if a := AnalyzeWith(pq, pol, nil, pk); a.OrderStreams {
		t.Error("Analyze under the default: streams")
	}
	if a := AnalyzeWith(pq, pol, sel(cost.RulePKOrderComposite, cost.AltStreams), pk); !a.OrderStreams {
		t.Error("Analyze under streams: does not stream")
	}
	// Without the composite index, or on a path that is not the key's, streams changes nothing.
	noComp := run(t, q, key, Options{PartitionKey: pk, Rules: sel(cost.RulePKOrderComposite, cost.AltStreams)})
	if noComp.Facts.SortedInMemory != 100 {
		t.Errorf("streams without the composite: %d sorted, want 100", noComp.Facts.SortedInMemory)
	}
	other := run(t, q, key, Options{Policy: pol, PartitionKey: [][]string{{"name"}}, Rules: sel(cost.RulePKOrderComposite, cost.AltStreams)})
	if other.Facts.SortedInMemory != 100 {
		t.Errorf("streams with another partition key: %d sorted, want 100", other.Facts.SortedInMemory)
	}
}

// TestRules_AggregateNoFilter: an aggregate with no WHERE loads every document under "loads" (the
// default) and reads one index entry per document under "index".
func TestRules_AggregateNoFilter(t *testing.T) {
	src := ruleDocs(t, 200)
	for _, q := range []string{"SELECT VALUE COUNT(1) FROM c", "SELECT VALUE MAX(c.ts) FROM c"} {
		pq, err := Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		def := run(t, q, src, Options{})
		idx := run(t, q, src, Options{Rules: sel(cost.RuleAggregateNoFilter, cost.AltIndex)})
		if fmt.Sprint(def.Items) != fmt.Sprint(idx.Items) {
			t.Errorf("%s: items %v vs %v", q, def.Items, idx.Items)
		}
		if def.Facts.DocsLoaded != 200 {
			t.Errorf("%s loads: %d loaded, want 200", q, def.Facts.DocsLoaded)
		}
		if idx.Facts.DocsLoaded != 0 || idx.Facts.IndexEntriesRead != 200 {
			t.Errorf("%s index: %d loaded, %d entries, want 0 and 200", q, idx.Facts.DocsLoaded, idx.Facts.IndexEntriesRead)
		}
		if AnalyzeWith(pq, nil, nil, nil).IndexOnlyAggregate || !AnalyzeWith(pq, nil, sel(cost.RuleAggregateNoFilter, cost.AltIndex), nil).IndexOnlyAggregate {
			t.Errorf("%s: Analyze does not follow the selection", q)
		}
	}
}

// TestRules_AggregateSeekPostings: a COUNT the index answers with an equality filter reads the
// equality's posting, one entry per matching document, under "postings" (the default), and none
// under "seek" (the seek constant, as outside aggregates); the count is the same.
func TestRules_AggregateSeekPostings(t *testing.T) {
	src := genDocs(rand.New(rand.NewPCG(36, 7)), 600, 3, 10)
	const q = "SELECT VALUE COUNT(1) FROM c WHERE c.type = 't1'"
	def := run(t, q, src, Options{})
	seek := run(t, q, src, Options{Rules: sel(cost.RuleAggregateSeekPostings, cost.AltSeek)})
	if fmt.Sprint(def.Items) != fmt.Sprint(seek.Items) {
		t.Errorf("counts differ: %v vs %v", def.Items, seek.Items)
	}
	n := int(def.Items[0].(float64))
	if def.Facts.DocsLoaded != 0 || def.Facts.IndexEntriesRead != n {
		t.Errorf("postings: %d loaded, %d entries, want 0 and the %d matches", def.Facts.DocsLoaded, def.Facts.IndexEntriesRead, n)
	}
	if seek.Facts.DocsLoaded != 0 || seek.Facts.IndexEntriesRead != 0 {
		t.Errorf("seek: %d loaded, %d entries, want none", seek.Facts.DocsLoaded, seek.Facts.IndexEntriesRead)
	}
}
