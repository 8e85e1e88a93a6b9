package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosmosdv/validate/internal/engine/sql"
)

// orderFixture is a server with one container whose ORDER BY queries are paged through the engine
// and compared with the full execution of the same query over the same documents.
type orderFixture struct {
	t     *testing.T
	s     *Server
	clock *atomic.Int64
}

func newOrderFixture(t *testing.T) *orderFixture {
	t.Helper()
	clock := &atomic.Int64{}
	clock.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix())
	s, err := Start(context.Background(), Options{Now: func() time.Time { return time.Unix(clock.Load(), 0) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	f := &orderFixture{t: t, s: s, clock: clock}
	f.must("POST", "/dbs", "", `{"id":"db"}`)
	f.must("POST", "/dbs/db/colls", "", `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2},"defaultTtl":-1,
		"indexingPolicy":{"includedPaths":[{"path":"/*"}],"compositeIndexes":[[{"path":"/v","order":"ascending"},{"path":"/w","order":"descending"}],
		[{"path":"/pk","order":"ascending"},{"path":"/v","order":"descending"}],[{"path":"/w","order":"ascending"},{"path":"/v","order":"ascending"}]]}}`)
	return f
}

// send sends one request with the key header when pk is set; the status and body come back.
func (f *orderFixture) send(method, path, pk, body string, extra ...string) (int, string) {
	f.t.Helper()
	hdr := map[string]string{}
	if pk != "" {
		hdr["x-ms-documentdb-partitionkey"] = `["` + pk + `"]`
	}
	for i := 0; i+1 < len(extra); i += 2 {
		hdr[extra[i]] = extra[i+1]
	}
	return signedSend(f.s, method, path, hdr, body)
}

func (f *orderFixture) must(method, path, pk, body string, extra ...string) string {
	f.t.Helper()
	code, out := f.send(method, path, pk, body, extra...)
	if code >= 300 {
		f.t.Fatalf("%s %s: %d %s", method, path, code, out)
	}
	return out
}

// full is the query's result by the full execution (every document visited and sorted) over the
// whole physical partition (lpk "") or one logical partition, as the engine sends it.
func (f *orderFixture) full(text, pk string) []any {
	f.t.Helper()
	q, err := sql.Parse(text)
	if err != nil {
		f.t.Fatal(err)
	}
	c, _ := f.s.lookupContainer("db", "c")
	p := c.parts[0]
	p.mu.RLock()
	defer p.mu.RUnlock()
	lpk := ""
	if pk != "" {
		lpk = canonicalPK([]any{pk})
	}
	src := &partSource{c: c, p: p, list: &p.all, now: f.clock.Load(), lpk: lpk}
	if lpk != "" {
		src.list = nil
		if lp := p.logical[lpk]; lp != nil {
			src.list = &lp.docs
		}
	}
	res, err := sql.Execute(q, plainSource{src}, sql.Options{Policy: c.policy, Whole: true})
	if err != nil {
		f.t.Fatal(err)
	}
	return sentItems(res)
}

// page sends one page of a query; the items and the continuation come back.
func (f *orderFixture) page(text, pk string, size int, cont string) ([]any, string) {
	f.t.Helper()
	c, _ := f.s.lookupContainer("db", "c")
	hdr := []string{"x-ms-documentdb-isquery", "true", "Content-Type", "application/query+json",
		"x-ms-max-item-count", strconv.Itoa(size), "x-ms-documentdb-query-enablecrosspartition", "true"}
	if pk == "" {
		hdr = append(hdr, "x-ms-documentdb-partitionkeyrangeid", c.parts[0].id)
	}
	if cont != "" {
		hdr = append(hdr, "x-ms-continuation", cont)
	}
	body, _ := json.Marshal(map[string]any{"query": text})
	m := map[string]string{}
	for i := 0; i+1 < len(hdr); i += 2 {
		m[hdr[i]] = hdr[i+1]
	}
	if pk != "" {
		m["x-ms-documentdb-partitionkey"] = `["` + pk + `"]`
	}
	w := signedRecorder(f.s, "POST", "/dbs/db/colls/c/docs", m, string(body))
	if w.Code != 200 {
		f.t.Fatalf("%s: %d %s", text, w.Code, w.Body.String())
	}
	var env struct{ Documents []any }
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
		f.t.Fatal(err)
	}
	next := ""
	if v := w.Header()["x-ms-continuation"]; len(v) > 0 {
		next = v[0]
	}
	return env.Documents, next
}

// paged pages the query to its end.
func (f *orderFixture) paged(text, pk string, size int) []any {
	f.t.Helper()
	out := []any{}
	cont := ""
	for range 1000 {
		items, next := f.page(text, pk, size, cont)
		out = append(out, items...)
		if next == "" {
			return out
		}
		cont = next
	}
	f.t.Fatalf("%s: pages do not end", text)
	return nil
}

// checkIndexes holds every ORDER BY index of the container to its list: each live document
// once, nothing else.
func (f *orderFixture) checkIndexes() {
	f.t.Helper()
	c, _ := f.s.lookupContainer("db", "c")
	for _, p := range c.parts {
		p.mu.RLock()
		check := func(name string, l *docList) {
			for key, ix := range l.ord {
				live := map[*doc]bool{}
				for _, d := range l.items {
					if d != nil {
						live[d] = true
					}
				}
				seen := map[*doc]bool{}
				ix.Walk(nil, func(d *doc, _ *sql.Cursor) bool {
					if !live[d] {
						f.t.Errorf("%s index %q holds %s (seq %d), not a live document of the list", name, key, d.id, d.seq)
					}
					if seen[d] {
						f.t.Errorf("%s index %q holds %s twice", name, key, d.id)
					}
					seen[d] = true
					return true
				})
				if len(seen) != len(live) {
					f.t.Errorf("%s index %q holds %d documents, the list %d", name, key, len(seen), len(live))
				}
			}
		}
		check("partition "+p.id, &p.all)
		for lpk, lp := range p.logical {
			check("logical "+lpk, &lp.docs)
		}
		p.mu.RUnlock()
	}
}

var orderWriteQueries = []string{
	"SELECT * FROM c ORDER BY c.v",
	"SELECT c.id, c.v FROM c ORDER BY c.v DESC, c.w ASC",
	"SELECT VALUE c.id FROM c ORDER BY c.w, c.v",
	"SELECT * FROM c WHERE c.w = 1 ORDER BY c.w, c.v",
	"SELECT * FROM c WHERE c.w = 1 ORDER BY c.v", // sorted: the ORDER BY does not name c.w
	"SELECT c.id FROM c WHERE c.v > 0 ORDER BY c.v",
	"SELECT TOP 7 c.id, c.v FROM c ORDER BY c.v ASC, c.w DESC",
	"SELECT c.id FROM c WHERE c.pk = 'p1' ORDER BY c.pk, c.v DESC",
	"SELECT c.id, c.w FROM c ORDER BY c.w DESC OFFSET 3 LIMIT 11",
	// Served by the value indexes (issue 32), kept by the same writes.
	"SELECT * FROM c WHERE c.w = 1",
	"SELECT VALUE c.id FROM c WHERE c.w IN (0, 2)",
	"SELECT c.id, c.v FROM c WHERE c.v >= 1 AND c.v < 5",
	"SELECT VALUE c.id FROM c WHERE c.v BETWEEN 'a' AND 'b'",
}

// compareAll pages every query, over the partition and over each logical partition, against the
// full execution.
func (f *orderFixture) compareAll(stage string) {
	f.t.Helper()
	for _, pk := range []string{"", "p0", "p1", "p2"} {
		for i, text := range orderWriteQueries {
			size := 1 + i%5
			want := f.full(text, pk)
			got := f.paged(text, pk, size)
			if !reflect.DeepEqual(got, want) {
				f.t.Fatalf("%s: %s (key %q, pages of %d): %s", stage, text, pk, size, firstDiff(got, want))
			}
		}
	}
	f.checkIndexes()
}

// TestOrderIndexesFollowWrites builds the ORDER BY indexes with queries first and then writes with
// every kind of write (create, upsert, replace, delete, patch, a transactional batch that commits
// and one that fails, items whose time to live passes, before and after the sweep, a logical
// partition emptied and filled again); after each, the paged ORDER BY queries equal the full
// execution and every index holds exactly the live documents.
func TestOrderIndexesFollowWrites(t *testing.T) {
	f := newOrderFixture(t)
	rng := rand.New(rand.NewSource(29))
	vals := []string{`null`, `true`, `false`, `0`, `1.5`, `-2`, `"a"`, `"B"`, `""`, `[1]`, `[]`, `{"k":1}`}
	body := func(id, pk string) string {
		b := fmt.Sprintf(`{"id":"%s","pk":"%s"`, id, pk)
		if rng.Intn(6) != 0 {
			b += `,"v":` + vals[rng.Intn(len(vals))]
		}
		if rng.Intn(4) != 0 {
			b += `,"w":` + strconv.Itoa(rng.Intn(3))
		}
		return b + "}"
	}
	pks := []string{"p0", "p1", "p2"}
	pkOfID := map[string]string{}
	for i := range 90 {
		id, pk := fmt.Sprintf("d%03d", i), pks[i%3]
		pkOfID[id] = pk
		f.must("POST", "/dbs/db/colls/c/docs", pk, body(id, pk))
	}
	f.compareAll("seeded") // builds the indexes

	// Creates and upserts (new and existing).
	for i := 90; i < 110; i++ {
		id, pk := fmt.Sprintf("d%03d", i), pks[i%3]
		pkOfID[id] = pk
		f.must("POST", "/dbs/db/colls/c/docs", pk, body(id, pk))
	}
	for i := 0; i < 110; i += 7 {
		id := fmt.Sprintf("d%03d", i)
		f.must("POST", "/dbs/db/colls/c/docs", pkOfID[id], body(id, pkOfID[id]), "x-ms-documentdb-is-upsert", "true")
	}
	f.must("POST", "/dbs/db/colls/c/docs", "p1", body("u-new", "p1"), "x-ms-documentdb-is-upsert", "true")
	f.compareAll("created and upserted")

	// Replaces that move documents in the order, deletes, patches.
	for i := 1; i < 110; i += 5 {
		id := fmt.Sprintf("d%03d", i)
		f.must("PUT", "/dbs/db/colls/c/docs/"+id, pkOfID[id], body(id, pkOfID[id]))
	}
	for i := 2; i < 110; i += 9 {
		id := fmt.Sprintf("d%03d", i)
		f.must("DELETE", "/dbs/db/colls/c/docs/"+id, pkOfID[id], "")
		delete(pkOfID, id)
	}
	for i := 3; i < 110; i += 8 {
		id := fmt.Sprintf("d%03d", i)
		if pkOfID[id] == "" {
			continue
		}
		ops := []string{`[{"op":"set","path":"/v","value":"patched"}]`, `[{"op":"remove","path":"/w"}]`, `[{"op":"set","path":"/w","value":2},{"op":"set","path":"/v","value":-7}]`}[i%3]
		code, out := f.send("PATCH", "/dbs/db/colls/c/docs/"+id, pkOfID[id], `{"operations":`+ops+`}`, "Content-Type", "application/json")
		if code >= 300 && code != 400 { // removing a missing /w is a 400, and changes nothing
			t.Fatalf("patch %s: %d %s", id, code, out)
		}
	}
	f.compareAll("replaced, deleted and patched")

	// A transactional batch that commits, and one that fails on its last operation and writes
	// nothing.
	op := func(kind, id, b string) map[string]any {
		m := map[string]any{"operationType": kind, "id": id}
		if b != "" {
			m["resourceBody"] = json.RawMessage(b)
		}
		return m
	}
	batch := func(ops ...map[string]any) int {
		b, _ := json.Marshal(ops)
		code, _ := f.send("POST", "/dbs/db/colls/c/docs", "p2", string(b), "x-ms-cosmos-is-batch-request", "True", "x-ms-cosmos-batch-atomic", "True")
		return code
	}
	var p2 []string
	for id, pk := range pkOfID {
		if pk == "p2" {
			p2 = append(p2, id)
		}
	}
	if len(p2) < 3 {
		t.Fatal("too few documents in p2")
	}
	if code := batch(op("Create", "b1", `{"id":"b1","pk":"p2","v":0.5,"w":1}`), op("Replace", p2[0], fmt.Sprintf(`{"id":"%s","pk":"p2","v":"zz","w":1}`, p2[0])),
		op("Delete", p2[1], ""), op("Upsert", "b2", `{"id":"b2","pk":"p2","v":-1}`)); code >= 300 {
		t.Fatalf("batch: %d", code)
	}
	delete(pkOfID, p2[1])
	if code := batch(op("Create", "b3", `{"id":"b3","pk":"p2","v":0.25}`), op("Replace", p2[2], fmt.Sprintf(`{"id":"%s","pk":"p2","v":"yy"}`, p2[2])),
		op("Delete", p2[0], ""), op("Create", "b1", `{"id":"b1","pk":"p2"}`)); code != 207 && code < 400 {
		t.Fatalf("a batch creating an existing id: %d, want it to fail", code)
	}
	if code, _ := f.send("GET", "/dbs/db/colls/c/docs/b3", "p2", ""); code != 404 {
		t.Fatalf("the failed batch's create: read %d, want 404", code)
	}
	f.compareAll("batches")

	// Items that expire: skipped once their time has passed, removed by the sweep.
	for i := range 12 {
		id, pk := fmt.Sprintf("t%02d", i), pks[i%3]
		f.must("POST", "/dbs/db/colls/c/docs", pk, fmt.Sprintf(`{"id":"%s","pk":"%s","v":%d,"w":1,"ttl":5}`, id, pk, i%4))
	}
	f.compareAll("before expiry")
	f.clock.Add(10)
	f.compareAll("expired, not swept")
	f.s.sweepExpired()
	f.compareAll("swept")

	// Empty one logical partition, then fill it again.
	for id, pk := range pkOfID {
		if pk == "p0" {
			f.must("DELETE", "/dbs/db/colls/c/docs/"+id, "p0", "")
			delete(pkOfID, id)
		}
	}
	f.compareAll("p0 emptied")
	for i := range 15 {
		id := fmt.Sprintf("r%02d", i)
		pkOfID[id] = "p0"
		f.must("POST", "/dbs/db/colls/c/docs", "p0", body(id, "p0"))
	}
	f.compareAll("p0 filled again")
}

// firstDiff describes where two results part: their lengths and the first item that differs.
func firstDiff(got, want []any) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("%d items, want %d; item %d is %v, want %v", len(got), len(want), i, got[i], want[i])
		}
	}
	return fmt.Sprintf("%d items, want %d", len(got), len(want))
}

// TestOrderIndexesUnderConcurrentWrites pages ORDER BY queries (each shape building its index on
// first use, over the partition and over logical partitions) while other goroutines create,
// replace, patch and delete documents of the same partitions, and at the end holds the indexes to
// their lists and the queries to the full execution. Run with -race, it checks that building an
// index, walking it and writing are kept apart.
func TestOrderIndexesUnderConcurrentWrites(t *testing.T) {
	f := newOrderFixture(t)
	pks := []string{"p0", "p1", "p2"}
	for i := range 60 {
		pk := pks[i%3]
		f.must("POST", "/dbs/db/colls/c/docs", pk, fmt.Sprintf(`{"id":"d%03d","pk":"%s","v":%d,"w":%d}`, i, pk, i%7, i%3))
	}
	errs := make(chan error, 64)
	done := make(chan struct{})
	var writers, readers sync.WaitGroup
	for g := range 2 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			rng := rand.New(rand.NewSource(int64(g)))
			for i := range 150 {
				id, pk := fmt.Sprintf("d%03d", rng.Intn(80)), pks[rng.Intn(3)]
				hdr := map[string]string{"x-ms-documentdb-partitionkey": `["` + pk + `"]`}
				var code int
				switch i % 4 {
				case 0, 1:
					hdr["x-ms-documentdb-is-upsert"] = "true"
					code, _ = signedSend(f.s, "POST", "/dbs/db/colls/c/docs", hdr, fmt.Sprintf(`{"id":"%s","pk":"%s","v":%d,"w":%d}`, id, pk, rng.Intn(9), rng.Intn(3)))
				case 2:
					hdr["Content-Type"] = "application/json"
					code, _ = signedSend(f.s, "PATCH", "/dbs/db/colls/c/docs/"+id, hdr, `{"operations":[{"op":"set","path":"/v","value":"s"}]}`)
				case 3:
					code, _ = signedSend(f.s, "DELETE", "/dbs/db/colls/c/docs/"+id, hdr, "")
				}
				if code >= 500 {
					errs <- fmt.Errorf("write %d: status %d", i, code)
				}
			}
		}()
	}
	for g := range 3 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				text := orderWriteQueries[(g+i)%len(orderWriteQueries)]
				pk := []string{"", "p0", "p1", "p2"}[(g+i)%4]
				c, _ := f.s.lookupContainer("db", "c")
				hdr := map[string]string{"x-ms-documentdb-isquery": "true", "Content-Type": "application/query+json",
					"x-ms-max-item-count": "3", "x-ms-documentdb-query-enablecrosspartition": "true"}
				if pk != "" {
					hdr["x-ms-documentdb-partitionkey"] = `["` + pk + `"]`
				} else {
					hdr["x-ms-documentdb-partitionkeyrangeid"] = c.parts[0].id
				}
				body, _ := json.Marshal(map[string]any{"query": text})
				for range 100 {
					w := signedRecorder(f.s, "POST", "/dbs/db/colls/c/docs", hdr, string(body))
					if w.Code != 200 {
						errs <- fmt.Errorf("%s: %d %s", text, w.Code, w.Body.String())
						return
					}
					v := w.Header()["x-ms-continuation"]
					if len(v) == 0 {
						break
					}
					hdr["x-ms-continuation"] = v[0]
				}
			}
		}()
	}
	writers.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	f.compareAll("after concurrent writes")
}

// TestStreamedContinuationAcrossWrites resumes a streamed ORDER BY after writes between its
// pages: the document the continuation stands on deleted, a later one deleted, one created after
// the position, one moved before it. The pages after the write are the full execution's items
// after the position; nothing returned before comes again, and the index policy changing so that
// the query no longer streams (its filter, evaluated on each document walked while its path was
// excluded, now served by the index and on a path the ORDER BY does not name) runs the rest whole
// instead of failing.
func TestStreamedContinuationAcrossWrites(t *testing.T) {
	f := newOrderFixture(t)
	for i := range 20 {
		f.must("POST", "/dbs/db/colls/c/docs", "p1", fmt.Sprintf(`{"id":"d%02d","pk":"p1","v":%d,"w":1}`, i, i))
	}
	ids := func(items []any) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return out
	}
	for _, text := range []string{"SELECT c.id FROM c ORDER BY c.v", "SELECT c.id FROM c WHERE c.w = 1 ORDER BY c.w, c.v"} {
		for _, pk := range []string{"", "p1"} {
			first, cont := f.page(text, pk, 4, "")
			if got := ids(first); !reflect.DeepEqual(got, []string{"d00", "d01", "d02", "d03"}) || cont == "" {
				t.Fatalf("%s: first page %v, continuation %q", text, got, cont)
			}
			f.must("DELETE", "/dbs/db/colls/c/docs/d03", "p1", "")                                             // the position
			f.must("DELETE", "/dbs/db/colls/c/docs/d07", "p1", "")                                             // after it
			f.must("POST", "/dbs/db/colls/c/docs", "p1", `{"id":"n","pk":"p1","v":9.5,"w":1}`)                 // created after it
			f.must("PUT", "/dbs/db/colls/c/docs/d10", "p1", `{"id":"d10","pk":"p1","v":-1,"w":1}`)             // moved before it
			f.must("PUT", "/dbs/db/colls/c/docs/d05", "p1", `{"id":"d05","pk":"p1","v":5,"w":1,"x":"same v"}`) // replaced in place
			var rest []any
			for cont != "" {
				var items []any
				items, cont = f.page(text, pk, 4, cont)
				rest = append(rest, items...)
			}
			want := []string{"d04", "d05", "d06", "d08", "d09", "n", "d11", "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19"}
			if got := ids(rest); !reflect.DeepEqual(got, want) {
				t.Errorf("%s (key %q): after the writes %v, want %v", text, pk, got, want)
			}
			// Put the documents back for the next round.
			f.must("DELETE", "/dbs/db/colls/c/docs/n", "p1", "")
			for _, i := range []int{3, 7, 10} {
				f.must("POST", "/dbs/db/colls/c/docs", "p1", fmt.Sprintf(`{"id":"d%02d","pk":"p1","v":%d,"w":1}`, i, i), "x-ms-documentdb-is-upsert", "true")
			}
		}
	}

	// The filter's path is excluded, so the walk of c.v evaluates it on each document; then it
	// is indexed between pages, and an equality on a path the ORDER BY does not name does not
	// stream (index-policy.md, "Queries with a filter and ORDER BY").
	f.must("PUT", "/dbs/db/colls/c", "", `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2},"defaultTtl":-1,
		"indexingPolicy":{"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/w/?"}]}}`)
	text := "SELECT c.id FROM c WHERE c.w = 1 ORDER BY c.v"
	want := f.full(text, "p1")
	first, cont := f.page(text, "p1", 4, "")
	if cont == "" {
		t.Fatal("no continuation")
	}
	f.must("PUT", "/dbs/db/colls/c", "", `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2},"defaultTtl":-1,
		"indexingPolicy":{"includedPaths":[{"path":"/*"}]}}`)
	got := first
	for cont != "" {
		var items []any
		items, cont = f.page(text, "p1", 4, cont)
		got = append(got, items...)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s across a policy change: %s", text, firstDiff(got, want))
	}
}
