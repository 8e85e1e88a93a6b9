package fanout

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// memBackend is the pipeline's Backend in-process: the engine's query package runs the plan and
// each range's query over the documents of that range, so the property test runs thousands of cases
// a second. (TestContainerBackend and the conformance test run the same pipeline over HTTP.)
type memBackend struct {
	parts  [][]*sql.Document
	policy *index.Compiled
	size   int // page size
	cache  map[string][]any
}

type memSource []*sql.Document

func (s memSource) Scan(fn func(d *sql.Document) bool) {
	for _, d := range s {
		if !fn(d) {
			return
		}
	}
}
func (s memSource) Len() int { return len(s) }

func params(ps []azcosmos.QueryParameter) map[string]any {
	m := map[string]any{}
	for _, p := range ps {
		m[p.Name] = p.Value
	}
	return m
}

func (m *memBackend) QueryPlan(_ context.Context, query string, ps []azcosmos.QueryParameter) ([]byte, float64, error) {
	q, err := sql.Parse(query)
	if err != nil {
		return nil, 0, err
	}
	qi, err := q.CrossPartitionPlan(params(ps), false)
	if err != nil {
		return nil, 0, err
	}
	b, err := json.Marshal(map[string]any{"partitionedQueryExecutionInfoVersion": 2, "queryInfo": qi,
		"queryRanges": []EPKRange{{Min: "", Max: "FF", IsMinInclusive: true}}})
	return b, 0, err
}

func (m *memBackend) Ranges(context.Context) ([]Range, error) {
	out := make([]Range, len(m.parts))
	for i := range m.parts {
		out[i] = Range{ID: strconv.Itoa(i), Min: fmt.Sprintf("%02X", i*256/len(m.parts)), Max: fmt.Sprintf("%02X", (i+1)*256/len(m.parts))}
		if i == 0 {
			out[i].Min = ""
		}
		if i == len(m.parts)-1 {
			out[i].Max = "FF"
		}
	}
	return out, nil
}

func (m *memBackend) QueryRange(_ context.Context, id, query string, ps []azcosmos.QueryParameter, cont string, pageSize int) (Page, error) {
	key := id + "\x00" + query
	items, ok := m.cache[key]
	if !ok {
		i, _ := strconv.Atoi(id)
		q, err := sql.Parse(query)
		if err != nil {
			return Page{}, fmt.Errorf("%s: %w", query, err)
		}
		res, err := sql.Execute(q, memSource(m.parts[i]), sql.Options{Params: params(ps), Policy: m.policy})
		if err != nil {
			return Page{}, fmt.Errorf("%s: %w", query, err)
		}
		items = res.Items
		m.cache[key] = items
	}
	lo, _ := strconv.Atoi(cont)
	hi := min(lo+pageSize, len(items))
	pg := Page{Charge: 1}
	for _, it := range items[lo:hi] {
		b, err := json.Marshal(it)
		if err != nil {
			return Page{}, err
		}
		pg.Items = append(pg.Items, b)
	}
	if hi < len(items) {
		pg.Continuation = strconv.Itoa(hi)
	}
	return pg, nil
}

// shape is one kind of query and how its results are compared.
type shape int

const (
	exact    shape = iota // same items in the same order
	keyOrder              // same length, ORDER BY keys (the items themselves) equal in order
	multiset              // same items in any order
	subset                // same length, every item among the unrestricted query's results
)

type gen struct {
	r *rand.Rand
}

func (g gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// value is a random value of c.n: mostly small integers; with mixed, also missing, null, booleans,
// strings, arrays and objects.
func (g gen) value(mixed bool) (any, bool) {
	if !mixed || g.r.IntN(3) > 0 {
		return float64(g.r.IntN(26) - 5), true
	}
	switch g.r.IntN(7) {
	case 0:
		return nil, false
	case 1:
		return nil, true
	case 2:
		return g.r.IntN(2) == 0, true
	case 3:
		return g.pick("a", "b", "zz", ""), true
	case 4:
		return []any{1.0, "x"}, true
	case 5:
		return map[string]any{"k": 1.0}, true
	}
	return float64(g.r.IntN(7)), true
}

func (g gen) docs(parts int, mixed bool) (all []*sql.Document, byPart [][]*sql.Document) {
	n := g.r.IntN(41)
	byPart = make([][]*sql.Document, parts)
	us := g.r.Perm(n)
	for i := range n {
		body := map[string]any{"id": fmt.Sprintf("d%03d", i), "_rid": fmt.Sprintf("r%03d", i), "pk": fmt.Sprintf("p%d", g.r.IntN(12)),
			"u": float64(us[i])}
		if v, ok := g.value(mixed); ok {
			body["n"] = v
		}
		if g.r.IntN(8) > 0 {
			body["cat"] = g.pick("a", "b", "c")
		}
		body["b"] = g.r.IntN(2) == 0
		if k := g.r.IntN(4); k > 0 {
			tags := make([]any, k)
			for j := range tags {
				tags[j] = g.pick("x", "y", "z")
			}
			body["tags"] = tags
		}
		d := &sql.Document{Body: body, Size: 64}
		all = append(all, d)
		h := fnv.New32a()
		h.Write([]byte(body["pk"].(string)))
		p := int(h.Sum32() % uint32(parts))
		byPart[p] = append(byPart[p], d)
	}
	return all, byPart
}

// query returns a random query of a supported shape and how to compare its results.
func (g gen) query() (string, shape, string) {
	w := g.pick("", " WHERE c.n > 3", " WHERE c.cat = 'a'", " WHERE IS_NUMBER(c.n)", " WHERE c.u < 5", " WHERE c.u > 1000")
	dir := g.pick("", " ASC", " DESC")
	agg := g.pick("COUNT(1)", "COUNT(c.n)", "SUM(c.n)", "MIN(c.n)", "MAX(c.n)", "AVG(c.n)", "MIN(c.cat)", "MAX(c.u)")
	limit := func() string {
		switch g.r.IntN(3) {
		case 0:
			return fmt.Sprintf(" OFFSET %d LIMIT %d", g.r.IntN(6), g.r.IntN(8))
		}
		return ""
	}
	top := func() string {
		if g.r.IntN(2) == 0 {
			return fmt.Sprintf("TOP %d ", g.r.IntN(8))
		}
		return ""
	}
	switch g.r.IntN(18) {
	case 14:
		return "SELECT TOP @n c.id, c.u FROM c" + w + " ORDER BY c.u" + dir, exact, ""
	case 15:
		return "SELECT c.cat AS cat, c.b AS b, COUNT(1) AS cnt, MAX(c.u) AS mx FROM c" + w + " GROUP BY c.cat, c.b", multiset, ""
	case 16:
		return "SELECT DISTINCT VALUE c.cat FROM c" + w + " ORDER BY c.cat" + dir + limit(), exact, ""
	case 17:
		return "SELECT VALUE " + g.pick("COUNT(1)", "MIN(t)", "MAX(t)") + " FROM c JOIN t IN c.tags" + w, exact, ""
	case 0:
		return "SELECT " + top() + "* FROM c" + w + " ORDER BY c.u" + dir, exact, ""
	case 1:
		return "SELECT c.id, c.u FROM c" + w + " ORDER BY c.u" + dir + limit(), exact, ""
	case 2:
		d := g.pick(" ASC", " DESC")
		return "SELECT " + top() + "c.id, c.n FROM c" + w + " ORDER BY c.n" + d + ", c.id" + d, exact, ""
	case 3:
		return "SELECT " + top() + "VALUE c.n FROM c" + w + " ORDER BY c.n" + dir, keyOrder, ""
	case 4, 5:
		return "SELECT VALUE " + agg + " FROM c" + w, exact, ""
	case 6:
		return "SELECT c.cat AS cat, COUNT(1) AS cnt, SUM(c.n) AS s, MIN(c.n) AS mn, MAX(c.n) AS mx, AVG(c.n) AS a FROM c" + w + " GROUP BY c.cat", multiset, ""
	case 7:
		return "SELECT COUNT(1) AS cnt, MIN(c.n) AS mn, AVG(c.n) AS a, SUM(c.u) AS su FROM c" + w, exact, ""
	case 8:
		return "SELECT VALUE " + agg + " FROM c" + w + " GROUP BY c.cat", multiset, ""
	case 9:
		return "SELECT VALUE c.cat FROM c" + w + " GROUP BY c.cat", multiset, ""
	case 10:
		return "SELECT DISTINCT VALUE " + g.pick("c.cat", "c.n", "c.b") + " FROM c" + w, multiset, ""
	case 11:
		return "SELECT DISTINCT VALUE c.cat FROM c" + w + " ORDER BY c.cat" + dir, exact, ""
	case 12:
		base := "SELECT c.id FROM c" + w
		if g.r.IntN(2) == 0 {
			return fmt.Sprintf("SELECT TOP %d c.id FROM c", g.r.IntN(8)) + w, subset, base
		}
		return base + fmt.Sprintf(" OFFSET %d LIMIT %d", g.r.IntN(6), g.r.IntN(8)), subset, base
	}
	return "SELECT DISTINCT c.cat, c.b FROM c" + w, multiset, ""
}

func brute(t *testing.T, text string, all []*sql.Document, pol *index.Compiled, n float64) []any {
	t.Helper()
	q, err := sql.Parse(text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	var params map[string]any
	if strings.Contains(text, "@n") {
		params = map[string]any{"@n": n}
	}
	res, err := sql.Execute(q, memSource(all), sql.Options{Policy: pol, Params: params})
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	// Round-trip through JSON, as the pipeline's results come.
	out := make([]any, len(res.Items))
	for i, it := range res.Items {
		b, _ := json.Marshal(it)
		out[i] = decode(b)
	}
	return out
}

func canonicals(xs []any) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = canonical(x)
	}
	sort.Strings(out)
	return out
}

var (
	cases = flag.Int("fanout.cases", 12000, "property-test cases (make fuzz runs more)")
	seed  = flag.Uint64("fanout.seed", 18, "property-test random seed")
)

// TestPipelineMatchesSinglePartition: random queries of every supported shape over random data in
// 1-8 physical partitions give, through the pipeline, what the same query gives over all the data
// in one partition: order included where ORDER BY fixes it; aggregates over empty ranges,
// undefined values and mixed types included.
func TestPipelineMatchesSinglePartition(t *testing.T) {
	pol, err := index.Compile(index.Policy{IndexingMode: "consistent", Automatic: true,
		IncludedPaths:    []index.Path{{Path: "/*"}},
		CompositeIndexes: [][]index.CompositePath{{{Path: "/n", Order: "ascending"}, {Path: "/id", Order: "ascending"}}}})
	if err != nil {
		t.Fatal(err)
	}
	n := *cases
	if testing.Short() {
		n = 2000
	}
	r := rand.New(rand.NewPCG(*seed, 2026))
	g := gen{r: r}
	seen := map[string]int{}
	for i := range n {
		parts := 1 + r.IntN(8)
		all, byPart := g.docs(parts, r.IntN(2) == 0)
		text, sh, base := g.query()
		b := &memBackend{parts: byPart, policy: pol, size: 1 + r.IntN(5), cache: map[string][]any{}}
		n := float64(r.IntN(8))
		res, err := Run(context.Background(), b, text, Options{PageSize: b.size, Params: []azcosmos.QueryParameter{{Name: "@n", Value: n}}})
		if err != nil {
			t.Fatalf("case %d (%d partitions) %s: %v", i, parts, text, err)
		}
		got := make([]any, len(res.Items))
		for j, it := range res.Items {
			got[j] = decode(it)
		}
		want := brute(t, text, all, pol, n)
		seen[strings.SplitN(text, " FROM", 2)[0]]++
		fail := func(why string) {
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			t.Fatalf("case %d, %d partitions, page size %d: %s\n%s\n got %s\nwant %s", i, parts, b.size, text, why, gb, wb)
		}
		switch sh {
		case exact:
			if strings.Join(canonicalsOrdered(got), "\n") != strings.Join(canonicalsOrdered(want), "\n") {
				fail("results differ")
			}
		case keyOrder:
			if len(got) != len(want) {
				fail("lengths differ")
			}
			for j := range got {
				if compare(got[j], want[j]) != 0 {
					fail(fmt.Sprintf("ORDER BY key %d differs", j))
				}
			}
		case multiset:
			if strings.Join(canonicals(got), "\n") != strings.Join(canonicals(want), "\n") {
				fail("result sets differ")
			}
		case subset:
			if len(got) != len(want) {
				fail("lengths differ")
			}
			pool := map[string]int{}
			for _, x := range brute(t, base, all, pol, n) {
				pool[canonical(x)]++
			}
			for _, x := range got {
				if pool[canonical(x)] == 0 {
					fail("an item is not among the query's results")
				}
				pool[canonical(x)]--
			}
		}
		// Every range is asked at least once, and charges add up over pages and ranges.
		sum := 0.0
		for _, s := range res.Ranges {
			sum += s.Charge
		}
		if len(res.Ranges) != parts || sum != res.Charge {
			t.Fatalf("case %d: %d ranges of %d, charge %v of %v", i, len(res.Ranges), parts, sum, res.Charge)
		}
	}
	if len(seen) < 10 {
		t.Errorf("only %d query shapes generated: %v", len(seen), seen)
	}
}

func canonicalsOrdered(xs []any) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = canonical(x)
	}
	return out
}
