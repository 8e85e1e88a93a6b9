package sql

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

// TestBoundedOrderMatchesFullSort holds the bounded heap of TOP and OFFSET+LIMIT to the full sort:
// over documents of mixed types with many ties, every TOP k and OFFSET/LIMIT returns exactly the
// prefix (or window) of the unbounded ORDER BY, ties in arrival order, and charges the same rows
// sorted in memory.
func TestBoundedOrderMatchesFullSort(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	vals := func() any {
		switch rng.Intn(8) {
		case 0:
			return nil
		case 1:
			return rng.Intn(2) == 0
		case 2, 3:
			return float64(rng.Intn(5))
		case 4, 5:
			return []string{"a", "b", "c"}[rng.Intn(3)]
		case 6:
			return []any{float64(rng.Intn(2))}
		}
		return map[string]any{"k": float64(rng.Intn(2))}
	}
	src := make(sliceSource, 300)
	for i := range src {
		body := map[string]any{"id": fmt.Sprintf("d%03d", i)}
		if rng.Intn(10) != 0 { // some documents have no v at all (undefined)
			body["v"] = vals()
		}
		if rng.Intn(5) != 0 {
			body["w"] = float64(rng.Intn(3))
		}
		src[i] = &Document{Body: body, Size: 10}
	}
	run := func(text string) *Result {
		t.Helper()
		q, err := Parse(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		res, err := Execute(q, src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return res
	}
	for _, sel := range []string{"c.id", "VALUE c.id", "VALUE c.w"} {
		for _, order := range []string{"c.v", "c.v DESC", "c.w", "c.w DESC"} {
			full := run(fmt.Sprintf("SELECT %s FROM c ORDER BY %s", sel, order))
			for _, k := range []int{1, 2, 7, 50, 299, 300, 400} {
				q := fmt.Sprintf("SELECT TOP %d %s FROM c ORDER BY %s", k, sel, order)
				got := run(q)
				want := full.Items[:min(k, len(full.Items))]
				if !reflect.DeepEqual(got.Items, want) {
					t.Fatalf("%s: items differ from the full sort's prefix\n got %v\nwant %v", q, got.Items, want)
				}
				if got.Facts.SortedInMemory != full.Facts.SortedInMemory {
					t.Fatalf("%s: sorted in memory %d, full sort %d", q, got.Facts.SortedInMemory, full.Facts.SortedInMemory)
				}
			}
			for _, w := range [][2]int{{0, 5}, {3, 4}, {100, 37}, {290, 20}, {400, 5}} {
				q := fmt.Sprintf("SELECT %s FROM c ORDER BY %s OFFSET %d LIMIT %d", sel, order, w[0], w[1])
				got := run(q)
				lo, hi := min(w[0], len(full.Items)), min(w[0]+w[1], len(full.Items))
				if want := full.Items[lo:hi]; !reflect.DeepEqual(got.Items, want) {
					t.Fatalf("%s: items differ from the full sort's window\n got %v\nwant %v", q, got.Items, want)
				}
				if got.Facts.SortedInMemory != full.Facts.SortedInMemory {
					t.Fatalf("%s: sorted in memory %d, full sort %d", q, got.Facts.SortedInMemory, full.Facts.SortedInMemory)
				}
			}
		}
	}
}
