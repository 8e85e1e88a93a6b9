package sql

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/index"
)

// Index work as the service does it at scale (issue 36): the rules of indexreads.go held as
// properties over generated documents and queries, not example values.

// blogDocs builds n items shaped as the composite-index devblog's cart actions (2021): a GUID id,
// BuyerState one of 50 states uniformly, _ts uniform over [0, 2·tsMid). Deterministic.
func blogDocs(n int) sliceSource {
	r := rand.New(rand.NewPCG(36, uint64(n)))
	out := make(sliceSource, n)
	for i := range out {
		id := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<16), r.IntN(1<<16), r.Int64N(1<<48))
		out[i] = &Document{Size: 500, Body: map[string]any{
			"id":         id,
			"BuyerState": fmt.Sprintf("S%02d", r.IntN(50)),
			"_ts":        float64(r.IntN(2 * blogTsMid)),
			"Price":      float64(r.IntN(100)),
		}}
	}
	return out
}

const blogTsMid = 1_000_000

// TestDevblogCompositeShape checks, at 1/1,000 of the devblog's 9 million items, that the engine
// counts the devblog's query (SELECT TOP 10 * … BuyerState = "TN" and _ts > … and id > "9c5e4e08-…")
// the way docs/fidelity.md's rows take it (internal/cost factsBlogComposite): the equality is a seek
// (no entries), each range reads the entries it covers over every item with range indexes and over
// the state's items with one composite index per range, TOP 10 does not stop the index work, and
// 10 items are loaded either way.
func TestDevblogCompositeShape(t *testing.T) {
	src := blogDocs(9000)
	const text = `SELECT TOP 10 * FROM c WHERE c.BuyerState = "S07" AND c._ts > @ts AND c.id > "9c5e4e08-e1d2-4091-8062-78d1da832523"`
	params := map[string]any{"@ts": float64(blogTsMid)}
	var ts, id, tsTN, idTN int
	for _, d := range src {
		b := d.Body
		tn := b["BuyerState"] == "S07"
		if b["_ts"].(float64) > blogTsMid {
			ts++
			if tn {
				tsTN++
			}
		}
		if b["id"].(string) > "9c5e4e08-e1d2-4091-8062-78d1da832523" {
			id++
			if tn {
				idTN++
			}
		}
	}
	defRU, def := scaleCharge(t, src, text, compileComposites(t), params)
	compRU, comp := scaleCharge(t, src, text, compileComposites(t,
		[]index.CompositePath{{Path: "/BuyerState"}, {Path: "/_ts"}},
		[]index.CompositePath{{Path: "/BuyerState"}, {Path: "/id"}}), params)
	if def.IndexEntriesRead != ts+id {
		t.Errorf("range indexes: %d entries (%+v), want the two ranges' %d + %d", def.IndexEntriesRead, def.IndexReads, ts, id)
	}
	if comp.IndexEntriesRead != tsTN+idTN {
		t.Errorf("composites: %d entries (%+v), want the state's slices %d + %d", comp.IndexEntriesRead, comp.IndexReads, tsTN, idTN)
	}
	for _, r := range def.IndexReads {
		if r.Kind == "equality" && r.Entries != 0 {
			t.Errorf("the equality %s reads %d entries: a seek reads none", r.Predicate, r.Entries)
		}
	}
	if def.DocsLoaded != 10 || comp.DocsLoaded != 10 {
		t.Errorf("loaded %d and %d documents, want TOP 10", def.DocsLoaded, comp.DocsLoaded)
	}
	// The shares the fidelity rows take: half after the _ts bound, 38.9% after the GUID bound.
	if s := float64(id) / 9000; math.Abs(s-0.389) > 0.02 {
		t.Errorf("share after the id bound %.3f, want about 0.389 (uniform GUIDs)", s)
	}
	t.Logf("range indexes %.2f RU (%d entries), composites %.2f RU (%d entries)", defRU, def.IndexEntriesRead, compRU, comp.IndexEntriesRead)
}

// genDocs builds n documents of a single-container design: a type discriminator (types kinds,
// the first holding about share of them), a selective handle (unique), a group of groups values, a
// score and a timestamp. Deterministic by seed.
func genDocs(r *rand.Rand, n, types, groups int) sliceSource {
	out := make(sliceSource, n)
	for i := range out {
		typ := fmt.Sprintf("t%d", r.IntN(types))
		out[i] = &Document{Size: 200 + r.IntN(1800), Body: map[string]any{
			"id":     fmt.Sprint(i),
			"type":   typ,
			"handle": fmt.Sprintf("h%06d", i),
			"group":  fmt.Sprintf("g%d", r.IntN(groups)),
			"score":  float64(r.IntN(1000)),
			"ts":     float64(r.IntN(1_000_000)),
			"name":   fmt.Sprintf("name %d %d", r.IntN(500), i),
		}}
	}
	return out
}

func factsOf(t *testing.T, src Source, text string, pol *index.Compiled, params map[string]any) cost.QueryFacts {
	t.Helper()
	_, f := scaleCharge(t, src, text, pol, params)
	return f
}

// TestProperty_TypeDiscriminatorIsASeek: adding an equality filter adds a constant to the index
// work ("constant per equality filter", index-overview.md): a type discriminator beside a selective
// filter moves the charge by at most one further seek, never in proportion to the documents of the
// type, however many they are.
func TestProperty_TypeDiscriminatorIsASeek(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 1))
	pol := compileComposites(t)
	lookup := cost.Current.QueryLookup.Value
	for i := range 15 {
		n := 500 + r.IntN(12_000)
		src := genDocs(r, n, 1+r.IntN(4), 1+r.IntN(50))
		h := fmt.Sprintf("h%06d", r.IntN(n))
		d := src[mustIndex(t, src, h)].Body
		params := map[string]any{"@h": h, "@t": d["type"]}
		for _, pair := range [][2]string{
			{`SELECT * FROM c WHERE c.handle = @h`, `SELECT * FROM c WHERE c.type = @t AND c.handle = @h`},
			{`SELECT * FROM c WHERE c.score > 990`, `SELECT * FROM c WHERE c.type = @t AND c.score > 990`},
			{`SELECT c.id FROM c WHERE c.group IN ('g1', 'g2')`, `SELECT c.id FROM c WHERE c.type = @t AND c.group IN ('g1', 'g2')`},
		} {
			without := factsOf(t, src, pair[0], pol, params)
			with := factsOf(t, src, pair[1], pol, params)
			if with.IndexEntriesRead != without.IndexEntriesRead {
				t.Errorf("case %d, %d documents: %s reads %d index entries, without the type %d: an equality adds a seek, no entries",
					i, n, pair[1], with.IndexEntriesRead, without.IndexEntriesRead)
			}
			if a, b := cost.Query(with), cost.Query(without); a > b+lookup+1e-9 {
				t.Errorf("case %d, %d documents: %s costs %.4f RU, without the type %.4f: more than one further seek (%.2f RU)",
					i, n, pair[1], a, b, lookup)
			}
		}
	}
}

func mustIndex(t *testing.T, src sliceSource, handle string) int {
	t.Helper()
	for i, d := range src {
		if d.Body["handle"] == handle {
			return i
		}
	}
	t.Fatalf("no document %s", handle)
	return -1
}

// genQuery draws a query of equality, IN, range and full-index-scan filters over genDocs' paths
// (at least one), without TOP or ORDER BY.
func genQuery(r *rand.Rand) string {
	filters := []string{
		fmt.Sprintf("c.type = 't%d'", r.IntN(4)),
		fmt.Sprintf("c.group = 'g%d'", r.IntN(50)),
		fmt.Sprintf("c.group IN ('g%d', 'g%d')", r.IntN(50), r.IntN(50)),
		fmt.Sprintf("c.score > %d", r.IntN(1000)),
		fmt.Sprintf("c.ts < %d", r.IntN(1_000_000)),
		fmt.Sprintf("c.score BETWEEN %d AND %d", r.IntN(500), 500+r.IntN(500)),
		fmt.Sprintf("CONTAINS(c.name, '%d')", r.IntN(100)),
	}
	r.Shuffle(len(filters), func(i, j int) { filters[i], filters[j] = filters[j], filters[i] })
	k := 1 + r.IntN(3)
	q := "SELECT * FROM c WHERE " + filters[0]
	for _, f := range filters[1:k] {
		q += " AND " + f
	}
	return q
}

// TestProperty_CompositeNeverCostsMore: a served composite index never costs more than its
// absence (the same documents are loaded; a slice reads no more entries than the ranges it
// replaces), over generated equality + range queries.
func TestProperty_CompositeNeverCostsMore(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 2))
	comps := compileComposites(t,
		[]index.CompositePath{{Path: "/type"}, {Path: "/score"}},
		[]index.CompositePath{{Path: "/group"}, {Path: "/ts"}},
		[]index.CompositePath{{Path: "/type"}, {Path: "/group"}, {Path: "/score"}},
	)
	plain := compileComposites(t)
	for i := range 40 {
		src := genDocs(r, 500+r.IntN(8000), 1+r.IntN(4), 1+r.IntN(50))
		q := genQuery(r)
		with := factsOf(t, src, q, comps, nil)
		without := factsOf(t, src, q, plain, nil)
		if a, b := cost.Query(with), cost.Query(without); a > b+1e-9 {
			t.Errorf("case %d: %s costs %.4f RU with the composites (%+v), %.4f without (%+v)", i, q, a, with.IndexReads, b, without.IndexReads)
		}
	}
}

// TestProperty_MonotoneInDocuments: the same query over more documents in scope (a superset)
// never costs less, over generated queries without TOP (a TOP walk may find its items sooner).
func TestProperty_MonotoneInDocuments(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 3))
	pol := compileComposites(t, []index.CompositePath{{Path: "/type"}, {Path: "/score"}})
	for i := range 40 {
		all := genDocs(r, 1000+r.IntN(8000), 1+r.IntN(4), 1+r.IntN(50))
		part := all[:r.IntN(len(all))]
		q := genQuery(r)
		small := cost.Query(factsOf(t, part, q, pol, nil))
		big := cost.Query(factsOf(t, all, q, pol, nil))
		if small > big+1e-9 {
			t.Errorf("case %d: %s costs %.4f RU over %d documents, %.4f over %d of which they are part", i, q, small, len(part), big, len(all))
		}
	}
}

// TestProperty_NothingKeptCostsNoMore: a filter that keeps nothing costs no more than the same
// filter keeping something, for equality, IN, range and full index scans, beside generated filters.
func TestProperty_NothingKeptCostsNoMore(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 4))
	pol := compileComposites(t)
	for i := range 30 {
		src := genDocs(r, 500+r.IntN(8000), 1+r.IntN(4), 1+r.IntN(50))
		base := genQuery(r)
		for _, pair := range [][2]string{
			{"c.group = 'none'", "c.group = 'g0'"},
			{"c.group IN ('none', 'nada')", "c.group IN ('g0', 'g1')"},
			{"c.score > 5000", "c.score > 10"},
			{"CONTAINS(c.name, 'zzz')", "CONTAINS(c.name, 'name')"},
		} {
			none := cost.Query(factsOf(t, src, base+" AND "+pair[0], pol, nil))
			some := cost.Query(factsOf(t, src, base+" AND "+pair[1], pol, nil))
			if none > some+1e-9 {
				t.Errorf("case %d: %s AND %s costs %.4f RU, with %s %.4f", i, base, pair[0], none, pair[1], some)
			}
		}
	}
}
