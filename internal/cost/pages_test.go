package cost

import (
	"math"
	"slices"
	"testing"
)

// TestQueryPages holds what each page after the first adds, to the published figures of the
// partition floor (docs/cost-model.md, "Partitions: which published figure applies where"): a
// request's minimum of 2.3 RU for a scan, the 2.5 RU of a partition whose index is checked, and 2.8
// RU where the index finds entries; Strong consistency doubles it as it doubles the first page. A
// page count of one or less is the query's own charge.
func TestQueryPages(t *testing.T) {
	c := Current
	scan := QueryFacts{PartitionsChecked: 1, DocsLoaded: 100, BytesLoaded: 100 * 1024, DocsEvaluated: 100, BytesOutput: 2048, DocsOutput: 10, FullScan: true}
	checkedEmpty := QueryFacts{PartitionsChecked: 1, IndexLookups: 1}
	found := QueryFacts{PartitionsChecked: 1, IndexLookups: 1, IndexEntriesRead: 50, DocsLoaded: 50, BytesLoaded: 50 * 1024, DocsOutput: 50, BytesOutput: 50 * 1024}
	strong := found
	strong.Consistency = Strong
	tests := []struct {
		name    string
		f       QueryFacts
		perPage float64 // published: what one more page adds
	}{
		{"scan: the request minimum", scan, 2.3},
		{"an index checked, nothing found: the partition minimum", checkedEmpty, 2.5},
		{"an index that finds entries: minimum, check and first seek", found, 2.8},
		{"Strong consistency: twice that", strong, 5.6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			one := c.Query(tt.f)
			for _, pages := range []int{-1, 0, 1} {
				if got := c.QueryPages(tt.f, pages); got != one {
					t.Errorf("QueryPages(f, %d) = %.4f, want the query's own charge %.4f", pages, got, one)
				}
			}
			for pages := 2; pages <= 5; pages++ {
				got := c.QueryPages(tt.f, pages) - c.QueryPages(tt.f, pages-1)
				if math.Abs(got-tt.perPage) > 1e-9 {
					t.Errorf("page %d adds %.4f RU, want the published %.2f RU", pages, got, tt.perPage)
				}
			}
		})
	}
}

// TestUnvalidated lists the coefficients and size tables whose Unvalidated note is set, in card
// order, and nothing else: plan prints this list under every cost.
func TestUnvalidated(t *testing.T) {
	c := *Current
	var want []string
	if c.ReadBySize.Unvalidated != "" {
		want = append(want, "point read by size")
	}
	if c.WriteBySize.Unvalidated != "" {
		want = append(want, "write by size")
	}
	for _, k := range c.Coefficients() {
		if k.Unvalidated != "" {
			want = append(want, k.Name)
		}
	}
	if got := c.Unvalidated(); !slices.Equal(got, want) {
		t.Errorf("Unvalidated() = %q, want %q", got, want)
	}
	// Clearing every note empties the list; setting one on a table and one coefficient lists them.
	var clean RateCard
	clean.ReadBySize.Unvalidated = "x"
	clean.QueryMin = Coefficient{Name: "query minimum", Unvalidated: "no independent figure"}
	got := clean.Unvalidated()
	if !slices.Contains(got, "point read by size") || !slices.Contains(got, "query minimum") || slices.Contains(got, "write by size") {
		t.Errorf("a card with two notes lists %q", got)
	}
}
