package sql

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/cosmosdv/validate/internal/engine/index"
)

// orderedSource is a sliceSource that keeps an OrderIndex per Order, built on first use, with
// positions as sequence numbers (its Scan order), as the engine's sources do.
type orderedSource struct {
	sliceSource
	idx map[string]*OrderIndex[*Document]
}

func newOrderedSource(s sliceSource) *orderedSource {
	return &orderedSource{sliceSource: s, idx: map[string]*OrderIndex[*Document]{}}
}

func (s *orderedSource) WalkOrdered(o *Order, after *Cursor, fn func(d *Document, at *Cursor) bool) bool {
	ix := s.idx[o.Key()]
	if ix == nil {
		ix = NewOrderIndex[*Document](o)
		for i, d := range s.sliceSource {
			ix.Add(d.Body, uint64(i), d)
		}
		s.idx[o.Key()] = ix
	}
	ix.Walk(after, fn)
	return true
}

// TestStreamedOrderMatchesFullExecution holds the streamed ORDER BY (an index walk that stops when
// the result or the page is full) to the full execution (every document visited and sorted) over
// random documents of mixed types with ties and missing values: the same items in the same order,
// whole or page by page with small pages, for TOP, OFFSET/LIMIT, DESC, two ORDER BY items and
// projections; and the same documents loaded in total whenever every document gives an item.
func TestStreamedOrderMatchesFullExecution(t *testing.T) {
	rng := rand.New(rand.NewSource(1717))
	vals := func() any {
		switch rng.Intn(9) {
		case 0:
			return nil
		case 1:
			return rng.Intn(2) == 0
		case 2, 3:
			return float64(rng.Intn(6)) / 2
		case 4, 5:
			return []string{"a", "b", "B", ""}[rng.Intn(4)]
		case 6:
			return []any{float64(rng.Intn(2))}
		case 7:
			return []any{}
		}
		return map[string]any{"k": float64(rng.Intn(2))}
	}
	pol, err := index.Compile(index.Policy{IncludedPaths: []index.Path{{Path: "/*"}},
		CompositeIndexes: [][]index.CompositePath{
			{{Path: "/v", Order: "ascending"}, {Path: "/w", Order: "descending"}},
			{{Path: "/w", Order: "ascending"}, {Path: "/v", Order: "ascending"}},
			{{Path: "/w", Order: "ascending"}, {Path: "/a/b", Order: "descending"}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	for round := range 6 {
		n := []int{0, 1, 7, 60, 250, 400}[round]
		full := make(sliceSource, n)
		for i := range full {
			body := map[string]any{"id": fmt.Sprintf("d%03d", i)}
			if rng.Intn(8) != 0 {
				body["v"] = vals()
			}
			if rng.Intn(4) != 0 {
				body["w"] = float64(rng.Intn(3))
			}
			if rng.Intn(3) == 0 {
				body["a"] = map[string]any{"b": vals()}
			}
			full[i] = &Document{Body: body, Size: 10 + rng.Intn(50)}
		}
		streamed := newOrderedSource(full)
		for range 150 {
			filtered(t, rng, pol, full, streamed, n)
		}
		for range 120 {
			sel := []string{"*", "c.id", "VALUE c.id", "VALUE c.w", "c.id, c.v AS x", "VALUE [c.v, {\"w\": c.w}]"}[rng.Intn(6)]
			order := []string{"c.v", "c.v DESC", "c.w", "c.w DESC", "c.a.b", "c.a.b DESC", "c.v ASC, c.w DESC", "c.v DESC, c.w ASC", "c.w, c.v", "c.w DESC, c.v DESC"}[rng.Intn(10)]
			var text string
			switch rng.Intn(3) {
			case 0:
				text = fmt.Sprintf("SELECT %s FROM c ORDER BY %s", sel, order)
			case 1:
				text = fmt.Sprintf("SELECT TOP %d %s FROM c ORDER BY %s", rng.Intn(n+3), sel, order)
			default:
				text = fmt.Sprintf("SELECT %s FROM c ORDER BY %s OFFSET %d LIMIT %d", sel, order, rng.Intn(n+3), rng.Intn(n+3))
			}
			q, err := Parse(text)
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			want, err := Execute(q, full, Options{Policy: pol, Whole: true})
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			got, err := Execute(q, streamed, Options{Policy: pol})
			if err != nil {
				t.Fatalf("%s: streamed: %v", text, err)
			}
			if !got.Streamed {
				t.Fatalf("%s: did not stream", text)
			}
			if !reflect.DeepEqual(got.Items, want.Items) {
				t.Fatalf("%s: streamed items differ\n got %v\nwant %v", text, got.Items, want.Items)
			}
			everyDocGives := sel == "*" || sel == "c.id" || sel == "VALUE c.id" || sel == "c.id, c.v AS x" || sel == "VALUE [c.v, {\"w\": c.w}]"
			if everyDocGives && got.Facts.DocsLoaded != want.Facts.DocsLoaded {
				t.Fatalf("%s: streamed loaded %d documents, full execution %d", text, got.Facts.DocsLoaded, want.Facts.DocsLoaded)
			}
			// Page by page, resuming each walk after the last.
			size := 1 + rng.Intn(9)
			var items []any
			var loaded int
			page := &Page{Size: size}
			for pages := 0; ; pages++ {
				if pages > n+2 {
					t.Fatalf("%s: pages do not end", text)
				}
				res, err := Execute(q, streamed, Options{Policy: pol, Page: page})
				if err != nil {
					t.Fatalf("%s: page %d: %v", text, pages, err)
				}
				if len(res.Items) > size || (res.Next != nil && len(res.Items) == 0) {
					t.Fatalf("%s: page %d has %d items of %d, next %v", text, pages, len(res.Items), size, res.Next)
				}
				items = append(items, res.Items...)
				loaded += res.Facts.DocsLoaded
				if res.Next == nil {
					break
				}
				page = &Page{Size: size, After: res.Next, Emitted: len(items)}
			}
			if items == nil {
				items = []any{}
			}
			if !reflect.DeepEqual(items, want.Items) {
				t.Fatalf("%s: pages of %d differ\n got %v\nwant %v", text, size, items, want.Items)
			}
			if everyDocGives && loaded != want.Facts.DocsLoaded {
				t.Fatalf("%s: pages of %d loaded %d documents, full execution %d", text, size, loaded, want.Facts.DocsLoaded)
			}
		}
	}
}

// filtered holds one random ORDER BY with a WHERE clause that streams (an equality leading a
// composite index, a range on the first ORDER BY path, a filter the index does not serve, or
// several) to the full execution: the same items, whole and page by page; the documents loaded and
// evaluated, over a walk that runs to the end, are those of the full execution; and the pages
// together load what one walk loads.
func filtered(t *testing.T, rng *rand.Rand, pol *index.Compiled, full sliceSource, streamed *orderedSource, n int) {
	t.Helper()
	type shape struct {
		where, order string
		streams      bool
	}
	shapes := []shape{
		// An equality filter streams with the filtered path first in the ORDER BY too, the
		// composite index having exactly the ORDER BY's paths (index-policy.md, "Queries with a
		// filter and ORDER BY"); without it in the ORDER BY the query sorts (the last shapes).
		{"c.w = @x", "c.w, c.v", true},
		{"c.w = @x", "c.w DESC, c.v DESC", true},
		{"@x = c.w", "c.w, c.a.b DESC", true},
		{"c.w = @x AND c.v > @y", "c.w, c.v", true},
		{"c.w = 1 AND c.w = @x", "c.w, c.v", true},
		{"c.v > @y", "c.v", true},
		{"c.v >= @y", "c.v DESC", true},
		{"c.v < @y", "c.v", true},
		{"c.v <= @y", "c.v DESC", true},
		{"@y < c.v", "c.v DESC", true},
		{"c.v BETWEEN @y AND 2", "c.v", true},
		{"c.v = @y", "c.v DESC", true},
		{"c.v != @y", "c.v", true},
		{"c.v > @y AND c.v < @z", "c.v DESC", true},
		{"c.w > 0", "c.w DESC, c.v DESC", true},
		{"c.v > 0", "c.v ASC, c.w DESC", true},
		{"c.v = c.w", "c.v", true},
		{"UPPER(c.id) > 'D1'", "c.w DESC", true},
		{"c.w = @x AND UPPER(c.id) < @z", "c.w, c.v", true},
		{"c.v > @y AND LOWER(c.id) != 'd002'", "c.v DESC", true},
		// Equality on the leading ORDER BY items, then a range on the next one: the composite
		// index walked from the bound (the shape index-policy.md shows a composite serving).
		{"c.v = @y AND c.w > @x", "c.v ASC, c.w DESC", true},
		{"c.w = @x AND c.v >= @y", "c.w, c.v", true},
		{"c.w = @x AND c.v < @y AND c.v > @z", "c.w DESC, c.v DESC", true},
		{"c.w = @x AND c.v = @y", "c.w, c.v", true},
		{"c.v = @y AND c.w != @x", "c.v ASC, c.w DESC", true},
		{"c.w > @x AND c.v = @y", "c.w, c.v", false},
		{"c.w IN (0, 2)", "c.v", false},
		{"c.w > 0", "c.v", false},
		{"c.w = @x", "c.v", false},
		{"@x = c.w", "c.a.b DESC", false},
		{"c.w = @x AND UPPER(c.id) < @z", "c.v", false},
	}
	sh := shapes[rng.Intn(len(shapes))]
	sel := []string{"*", "c.id", "VALUE c.id", "VALUE c.w", "c.id, c.v AS x"}[rng.Intn(5)]
	var text string
	top := rng.Intn(3)
	switch top {
	case 0:
		text = fmt.Sprintf("SELECT %s FROM c WHERE %s ORDER BY %s", sel, sh.where, sh.order)
	case 1:
		text = fmt.Sprintf("SELECT TOP %d %s FROM c WHERE %s ORDER BY %s", rng.Intn(n/2+3), sel, sh.where, sh.order)
	default:
		text = fmt.Sprintf("SELECT %s FROM c WHERE %s ORDER BY %s OFFSET %d LIMIT %d", sel, sh.where, sh.order, rng.Intn(n/2+3), rng.Intn(n/2+3))
	}
	someVal := func() any {
		return []any{float64(rng.Intn(3)), float64(rng.Intn(6)) / 2, "a", "b", "B", true, nil, "D2", "d1"}[rng.Intn(9)]
	}
	params := map[string]any{"@x": someVal(), "@y": someVal(), "@z": someVal()}
	if rng.Intn(2) == 0 {
		params["@x"] = float64(rng.Intn(3))
	}
	q, err := Parse(text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	want, err := Execute(q, full, Options{Policy: pol, Params: params, Whole: true})
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	got, err := Execute(q, streamed, Options{Policy: pol, Params: params})
	if err != nil {
		t.Fatalf("%s: streamed: %v", text, err)
	}
	if got.Streamed != sh.streams {
		t.Fatalf("%s %v: streamed %v, want %v", text, params, got.Streamed, sh.streams)
	}
	if !reflect.DeepEqual(got.Items, want.Items) {
		t.Fatalf("%s %v: streamed items differ\n got %v\nwant %v", text, params, got.Items, want.Items)
	}
	if !sh.streams {
		return
	}
	// A plain source is walked the same way (a sorted copy), so it is charged the same.
	plain, err := Execute(q, full, Options{Policy: pol, Params: params})
	if err != nil || !plain.Streamed || !reflect.DeepEqual(plain.Facts, got.Facts) {
		t.Fatalf("%s %v: over a plain source: %v, streamed %v, facts %+v, want %+v", text, params, err, plain.Streamed, plain.Facts, got.Facts)
	}
	if top == 0 && (got.Facts.DocsLoaded != want.Facts.DocsLoaded || got.Facts.DocsEvaluated != want.Facts.DocsEvaluated) {
		t.Fatalf("%s %v: the walk loaded %d and evaluated %d documents, the full execution %d and %d",
			text, params, got.Facts.DocsLoaded, got.Facts.DocsEvaluated, want.Facts.DocsLoaded, want.Facts.DocsEvaluated)
	}
	// A walk from one bound, or over an equality prefix, reads only the entries that match.
	tight := map[string]bool{"c.w = @x": true, "@x = c.w": true, "c.v > @y": true, "c.v >= @y": true, "c.v < @y": true,
		"c.v <= @y": true, "@y < c.v": true, "c.v = @y": true, "c.w > 0": true, "c.v > 0": true}[sh.where]
	if top == 0 && tight && got.Facts.IndexEntriesRead != want.Facts.DocsLoaded {
		t.Fatalf("%s %v: the walk read %d entries for %d matching documents", text, params, got.Facts.IndexEntriesRead, want.Facts.DocsLoaded)
	}
	if got.Facts.SortedInMemory != 0 || got.Facts.IndexEntriesRead < got.Facts.DocsLoaded {
		t.Fatalf("%s %v: facts %+v", text, params, got.Facts)
	}
	size := 1 + rng.Intn(9)
	var items []any
	var loaded, evaluated int
	page := &Page{Size: size}
	for pages := 0; ; pages++ {
		if pages > n+2 {
			t.Fatalf("%s: pages do not end", text)
		}
		res, err := Execute(q, streamed, Options{Policy: pol, Params: params, Page: page})
		if err != nil {
			t.Fatalf("%s: page %d: %v", text, pages, err)
		}
		if len(res.Items) > size || (res.Next != nil && len(res.Items) == 0) {
			t.Fatalf("%s: page %d has %d items of %d, next %v", text, pages, len(res.Items), size, res.Next)
		}
		items = append(items, res.Items...)
		loaded += res.Facts.DocsLoaded
		evaluated += res.Facts.DocsEvaluated
		if res.Next == nil {
			break
		}
		page = &Page{Size: size, After: res.Next, Emitted: len(items)}
	}
	if items == nil {
		items = []any{}
	}
	if !reflect.DeepEqual(items, want.Items) {
		t.Fatalf("%s %v: pages of %d differ\n got %v\nwant %v", text, params, size, items, want.Items)
	}
	if loaded != got.Facts.DocsLoaded || evaluated != got.Facts.DocsEvaluated {
		t.Fatalf("%s %v: pages of %d loaded %d and evaluated %d documents, one walk %d and %d", text, params, size, loaded, evaluated, got.Facts.DocsLoaded, got.Facts.DocsEvaluated)
	}
}
