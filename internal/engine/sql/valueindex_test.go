package sql

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/jsonorder"
)

// valueSource is a sliceSource with a ValueIndex per path, built on first use as the engine
// builds its own, counting the lookups it answers.
type valueSource struct {
	sliceSource
	pol     *index.Compiled
	idx     map[string]*ValueIndex[*Document]
	lookups int
}

func newValueSource(s sliceSource, pol *index.Compiled) *valueSource {
	return &valueSource{sliceSource: s, pol: pol, idx: map[string]*ValueIndex[*Document]{}}
}

func (s *valueSource) index(path []string) *ValueIndex[*Document] {
	if len(path) == 0 || (s.pol != nil && !s.pol.Indexed(path)) {
		return nil
	}
	key := strings.Join(path, "\x00")
	ix := s.idx[key]
	if ix == nil {
		ix = NewValueIndex[*Document]()
		for i, d := range s.sliceSource {
			var cur any = d.Body
			for _, p := range path {
				m, _ := cur.(map[string]any)
				cur = Undefined
				if v, ok := m[p]; ok {
					cur = v
				}
			}
			ix.Add(cur, uint64(i), d)
		}
		s.idx[key] = ix
	}
	s.lookups++
	return ix
}

func (s *valueSource) Lookup(path []string, v any) ([]*Document, bool) {
	ix := s.index(path)
	if ix == nil {
		return nil, false
	}
	return ix.Equal(v), true
}

func (s *valueSource) LookupIn(path []string, vals []any) ([]*Document, bool) {
	ix := s.index(path)
	if ix == nil {
		return nil, false
	}
	return ix.In(vals), true
}

func (s *valueSource) LookupRange(path []string, r Range) ([]*Document, bool) {
	ix := s.index(path)
	if ix == nil {
		return nil, false
	}
	return ix.Range(r), true
}

var _ ValueSource = (*valueSource)(nil)

// TestLookupFactsMatchScan holds an execution over a source that answers equality, IN and range
// lookups from a ValueIndex, its index reads counted from the lookups, to the execution as it was
// before (a source with equality lookups only, index reads counted by a scan of every document):
// the same items and every fact identical, index reads included, over random documents of mixed
// types with missing values, for a battery of filter shapes, policies and parameters; and the
// lookups are used where a served filter has one.
func TestLookupFactsMatchScan(t *testing.T) {
	rng := rand.New(rand.NewSource(3232))
	vals := func() any {
		switch rng.Intn(10) {
		case 0:
			return nil
		case 1:
			return rng.Intn(2) == 0
		case 2:
			return fmt.Sprintf("s%d", rng.Intn(6))
		case 3:
			return []any{float64(rng.Intn(3))}
		case 4:
			return -0.0
		}
		return float64(rng.Intn(12))
	}
	var docsJS []string
	for i := range 400 {
		m := map[string]any{"id": fmt.Sprintf("d%03d", i), "a": []string{"x", "y", "z", "w"}[rng.Intn(4)], "pk": fmt.Sprintf("p%d", rng.Intn(3))}
		if rng.Intn(8) > 0 {
			m["n"] = vals()
		}
		if rng.Intn(5) > 0 {
			m["k"] = map[string]any{"x": float64(rng.Intn(20)), "s": fmt.Sprintf("t%02d", rng.Intn(30))}
		}
		if rng.Intn(3) > 0 {
			m["tags"] = []any{fmt.Sprintf("g%d", rng.Intn(4)), fmt.Sprintf("g%d", rng.Intn(4))}
		}
		b, _ := json.Marshal(m)
		docsJS = append(docsJS, string(b))
	}
	src := docs(t, "["+strings.Join(docsJS, ",")+"]")
	comp := compile(t, index.Policy{CompositeIndexes: [][]index.CompositePath{
		{{Path: "/a", Order: "ascending"}, {Path: "/n", Order: "ascending"}},
		{{Path: "/a", Order: "ascending"}, {Path: "/pk", Order: "ascending"}},
		{{Path: "/pk", Order: "ascending"}, {Path: "/k/x", Order: "descending"}},
	}})
	excl := compile(t, index.Policy{IncludedPaths: []index.Path{{Path: "/*"}}, ExcludedPaths: []index.Path{{Path: "/n/?"}}})
	params := map[string]any{"@a": "y", "@n": float64(5), "@lo": float64(2), "@hi": float64(7), "@s": "t1", "@arr": []any{float64(1)}}
	queries := []struct {
		q      string
		lookup bool // a served filter has a lookup
	}{
		{`SELECT * FROM c WHERE c.a = "x"`, true},
		{`SELECT VALUE c.id FROM c WHERE c.a = @a`, true},
		{`SELECT VALUE c.id FROM c WHERE @a = c.a`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n = 0`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n = null`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n = true`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n = @arr`, false},
		{`SELECT VALUE c.id FROM c WHERE c.k.x = 3`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n IN (1, 2, "s1", null, 1)`, true},
		{`SELECT VALUE c.id FROM c WHERE c.a IN ("x", "w")`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n IN (1, [1])`, false},
		{`SELECT VALUE c.id FROM c WHERE c.n NOT IN (1, 2)`, false},
		{`SELECT VALUE c.id FROM c WHERE c.n > 5`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n >= @n`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n < 3`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n <= 0`, true},
		{`SELECT VALUE c.id FROM c WHERE 4 < c.n`, true},
		{`SELECT VALUE c.id FROM c WHERE 4 >= c.n`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n > "s2"`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n < "s2"`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n >= false`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n > null`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n BETWEEN @lo AND @hi`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n BETWEEN 3 AND "s3"`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n NOT BETWEEN 3 AND 5`, false},
		{`SELECT VALUE c.id FROM c WHERE c.k.s >= @s AND c.k.s < "t2"`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n != 3`, false},
		{`SELECT VALUE c.id FROM c WHERE c.a = "x" AND c.n > 4`, true},
		{`SELECT VALUE c.id FROM c WHERE c.a = "x" AND c.pk = "p1"`, true},
		{`SELECT VALUE c.id FROM c WHERE c.pk = "p1" AND c.k.x > 10`, true},
		{`SELECT VALUE c.id FROM c WHERE c.a = "x" AND c.n != 4`, true},
		{`SELECT VALUE c.id FROM c WHERE c.a = "x" AND STARTSWITH(c.k.s, "t1")`, true},
		{`SELECT VALUE c.id FROM c WHERE STARTSWITH(c.k.s, "t1")`, false},
		{`SELECT VALUE c.id FROM c WHERE c.a = "x" AND IS_DEFINED(c.n)`, true},
		{`SELECT VALUE c.id FROM c WHERE c.a = "x" AND ARRAY_CONTAINS(c.tags, "g1")`, true},
		{`SELECT VALUE c.id FROM c WHERE c.a = "x" OR c.n = 3`, false},
		{`SELECT VALUE c.id FROM c WHERE c.a = "x" AND LOWER(c.pk) = "p2"`, true},
		{`SELECT TOP 5 VALUE c.id FROM c WHERE c.n > 2`, true},
		{`SELECT TOP 5 VALUE c.id FROM c WHERE c.a = "z" AND c.n IN (1, 2, 3)`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n > 2 OFFSET 3 LIMIT 4`, true},
		{`SELECT VALUE COUNT(1) FROM c WHERE c.n > 2`, true},
		{`SELECT VALUE COUNT(1) FROM c WHERE c.a = "y" AND c.n < 6`, true},
		{`SELECT VALUE SUM(c.k.x) FROM c WHERE c.a IN ("x", "y")`, true},
		{`SELECT VALUE MAX(c.n) FROM c WHERE c.k.x BETWEEN 5 AND 9`, true},
		{`SELECT c.a, COUNT(1) AS n FROM c WHERE c.n >= 3 GROUP BY c.a`, true},
		{`SELECT DISTINCT VALUE c.a FROM c WHERE c.n < 4`, true},
		{`SELECT VALUE c.id FROM c WHERE c.n > 3 ORDER BY c.k.x`, true},
		{`SELECT TOP 3 c.id, c.n FROM c WHERE c.a = "w" ORDER BY c.n DESC`, true},
		{`SELECT TOP 3 c.id, c.n FROM c WHERE c.a = "w" ORDER BY c.a DESC, c.n DESC`, true},
		{`SELECT VALUE t FROM c JOIN t IN c.tags WHERE c.a = "x"`, true},
		{`SELECT VALUE t FROM c JOIN t IN c.tags WHERE c.n > 5`, true},
		{`SELECT VALUE t FROM c JOIN t IN c.tags WHERE t = "g2" AND c.n > 5`, true},
		{`SELECT VALUE t FROM c JOIN t IN c.tags WHERE t = "g2"`, false},
		{`SELECT VALUE c.id FROM c WHERE c.k = {"x": 1}`, false},
	}
	for _, pol := range []struct {
		name string
		pol  *index.Compiled
	}{{"default", nil}, {"composite", comp}, {"excluded", excl}} {
		for _, tt := range queries {
			t.Run(pol.name+"/"+tt.q, func(t *testing.T) {
				pq, err := Parse(tt.q)
				if err != nil {
					t.Fatal(err)
				}
				opts := Options{Policy: pol.pol, Params: params, Whole: true}
				// Before: equality lookups only (the engine's source then), index reads counted by
				// a scan of every document.
				countByScan = true
				want, werr := Execute(pq, newIndexed(src, "id", "a", "pk", "n"), opts)
				countByScan = false
				vs := newValueSource(src, pol.pol)
				got, err := Execute(pq, vs, opts)
				if werr != nil || err != nil {
					if fmt.Sprint(werr) != fmt.Sprint(err) {
						t.Fatalf("error = %v, want %v", err, werr)
					}
					return
				}
				if canon(t, got.Items) != canon(t, want.Items) {
					t.Errorf("items:\n got %s\nwant %s", canon(t, got.Items), canon(t, want.Items))
				}
				if !reflect.DeepEqual(got.Facts, want.Facts) {
					t.Errorf("facts:\n got %+v\nwant %+v", got.Facts, want.Facts)
				}
				if used := vs.lookups > 0; pol.name == "default" && used != tt.lookup {
					t.Errorf("lookups = %d, want some: %v", vs.lookups, tt.lookup)
				}
			})
		}
	}
}

// TestValueIndexWrites keeps a ValueIndex through adds, replacements and removals and checks its
// postings against a rebuild.
func TestValueIndexWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	ix := NewValueIndex[int]()
	cur := map[uint64]any{}
	for range 3000 {
		seq := uint64(rng.Intn(200))
		if old, ok := cur[seq]; ok {
			ix.Remove(old, seq)
			delete(cur, seq)
			if rng.Intn(2) == 0 {
				continue
			}
		}
		v := any(float64(rng.Intn(10)))
		if rng.Intn(3) == 0 {
			v = fmt.Sprintf("v%d", rng.Intn(5))
		}
		ix.Add(v, seq, int(seq))
		cur[seq] = v
	}
	for _, r := range []Range{
		{Lo: 3.0, HasLo: true, LoIncl: true},
		{Hi: 3.0, HasHi: true},
		{Lo: "v1", HasLo: true, Hi: "v3", HasHi: true, HiIncl: true},
		{Lo: 2.0, HasLo: true, Hi: "v2", HasHi: true},
	} {
		var want []int
		for seq := range uint64(200) {
			v, ok := cur[seq]
			if !ok {
				continue
			}
			lo, hi := true, true
			if r.HasLo {
				c := orderCompare(v, r.Lo)
				lo = c > 0 || (c == 0 && r.LoIncl)
				if !r.HasHi && jsonorder.Rank(v) != jsonorder.Rank(r.Lo) {
					lo = false
				}
			}
			if r.HasHi {
				c := orderCompare(v, r.Hi)
				hi = c < 0 || (c == 0 && r.HiIncl)
				if !r.HasLo && jsonorder.Rank(v) != jsonorder.Rank(r.Hi) {
					hi = false
				}
			}
			if lo && hi {
				want = append(want, int(seq))
			}
		}
		if got := ix.Range(r); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Range(%+v) = %v, want %v", r, got, want)
		}
	}
	var want []int
	for seq := range uint64(200) {
		if v, ok := cur[seq]; ok && (v == any(4.0) || v == any("v2")) {
			want = append(want, int(seq))
		}
	}
	if got := ix.In([]any{4.0, "v2", 4.0}); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("In = %v, want %v", got, want)
	}
}
