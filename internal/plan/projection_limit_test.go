package plan

import (
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// A TOP k whose seeded scope held fewer than k items grows with the documents in scope at both
// seeded sizes; at production it still returns k, and a streamed walk loads k.
func TestProjectBoundsTop(t *testing.T) {
	walk := func(n int) cost.QueryFacts {
		return cost.QueryFacts{IndexEntriesRead: n, DocsLoaded: n, BytesLoaded: int64(1000 * n), DocsOutput: n, BytesOutput: int64(1000 * n)}
	}
	postings := func(n int) cost.QueryFacts { // an equality and a second filter, two postings intersected
		f := walk(n)
		f.IndexEntriesRead = 2 * n
		return f
	}
	sorted := func(n int) cost.QueryFacts {
		f := walk(n)
		f.SortedInMemory = n
		return f
	}
	cases := []struct {
		name                 string
		f1, f2               cost.QueryFacts
		parts                int
		lim                  Limit
		loaded, out, entries int
	}{
		{"streamed walk", walk(7), walk(5), 1, Limit{Top: 10, Stops: true}, 10, 10, 10},
		{"an intersection stops at TOP", postings(7), postings(5), 1, Limit{Top: 10, Stops: true}, 10, 10, 20},
		{"sorted in memory loads every match", sorted(7), sorted(5), 1, Limit{Top: 10}, 48, 10, 48},
		{"no TOP", walk(7), walk(5), 1, Limit{}, 48, 48, 48},
		{"each partition returns its TOP", walk(7), walk(5), 4, Limit{Top: 10, Stops: true}, 40, 40, 40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := Project(cost.Current, c.f1, c.f2, 7, 5, 48.0/7, c.parts, "test", c.lim)
			f := p.Production
			if f.DocsLoaded != c.loaded || f.DocsOutput != c.out || f.IndexEntriesRead != c.entries {
				t.Errorf("production: %d loaded, %d returned, %d entries; want %d, %d, %d", f.DocsLoaded, f.DocsOutput, f.IndexEntriesRead, c.loaded, c.out, c.entries)
			}
			if c.lim.Top > 0 && f.BytesOutput > int64(1000*c.out) {
				t.Errorf("bytes returned %d for %d items of 1000 B", f.BytesOutput, c.out)
			}
		})
	}
}

func TestLimitOf(t *testing.T) {
	for _, c := range []struct {
		q     string
		top   int
		stops bool
	}{
		{"SELECT TOP 10 * FROM c ORDER BY c.t DESC", 10, true},
		{"SELECT TOP 10 * FROM c WHERE c.k = 1 ORDER BY c.t DESC", 10, false}, // sorted in memory without a composite index
		{"SELECT TOP 10 * FROM c WHERE c.k = 1", 10, true},
		{"SELECT * FROM c ORDER BY c.t", 0, false},
		{"SELECT TOP 5 c.k, COUNT(1) AS n FROM c GROUP BY c.k", 5, false},
	} {
		q, err := sql.Parse(c.q)
		if err != nil {
			t.Fatal(err)
		}
		l := LimitOf(sql.Analyze(q, nil))
		if l.Top != c.top || l.Stops != c.stops {
			t.Errorf("%s: %+v, want top %d stops %v", c.q, l, c.top, c.stops)
		}
	}
}
