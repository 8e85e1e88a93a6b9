package engine

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosmosdv/validate/internal/engine/sql"
)

// plainSource hides a source's ORDER BY indexes: Execute visits every document and sorts.
type plainSource struct{ sql.Source }

// TestStreamedOrderPagesMatchFullExecution pages ORDER BY queries through the engine with small
// pages and continuations, over random documents (mixed types, ties, missing values, documents
// whose time to live has passed, several logical partitions), each query both over the whole
// partition and over one logical partition, and holds the items to the full execution of the same
// query (every document visited and sorted) in the same order.
func TestStreamedOrderPagesMatchFullExecution(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix())
	s, err := Start(context.Background(), Options{Now: func() time.Time { return time.Unix(clock.Load(), 0) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	send := func(method, path string, hdr map[string]string, body string) (int, string, map[string]string) {
		t.Helper()
		code, out := signedSend(s, method, path, hdr, body)
		if code >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, code, out)
		}
		return code, out, nil
	}
	send("POST", "/dbs", nil, `{"id":"db"}`)
	send("POST", "/dbs/db/colls", nil, `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2},"defaultTtl":-1,
		"indexingPolicy":{"includedPaths":[{"path":"/*"}],"compositeIndexes":[[{"path":"/v","order":"ascending"},{"path":"/w","order":"descending"}],
		[{"path":"/pk","order":"ascending"},{"path":"/v","order":"descending"}],[{"path":"/w","order":"ascending"},{"path":"/v","order":"ascending"}]]}}`)
	rng := rand.New(rand.NewSource(17))
	vals := []string{`null`, `true`, `false`, `0`, `1.5`, `-2`, `"a"`, `"B"`, `""`, `[1]`, `[]`, `{"k":1}`}
	pks := []string{"p0", "p1", "p2"}
	for i := range 240 {
		body := fmt.Sprintf(`{"id":"d%03d","pk":"%s"`, i, pks[rng.Intn(len(pks))])
		if rng.Intn(6) != 0 {
			body += `,"v":` + vals[rng.Intn(len(vals))]
		}
		if rng.Intn(4) != 0 {
			body += `,"w":` + strconv.Itoa(rng.Intn(3))
		}
		if rng.Intn(8) == 0 {
			body += `,"ttl":5` // expired by the time of the queries
		}
		send("POST", "/dbs/db/colls/c/docs", map[string]string{"x-ms-documentdb-partitionkey": `["` + pkOf(body) + `"]`}, body+"}")
	}
	// Replace and delete some, so the indexes see every kind of write.
	for i := 0; i < 240; i += 17 {
		id := fmt.Sprintf("d%03d", i)
		c, _ := s.lookupContainer("db", "c")
		var pk string
		for _, p := range c.parts {
			for _, d := range p.all.items {
				if d != nil && d.id == id {
					pk = d.lpk
				}
			}
		}
		var vals []any
		_ = json.Unmarshal([]byte(pk), &vals)
		pkv, _ := vals[0].(string)
		hdr := map[string]string{"x-ms-documentdb-partitionkey": `["` + pkv + `"]`}
		if i%2 == 0 {
			send("DELETE", "/dbs/db/colls/c/docs/"+id, hdr, "")
		} else {
			send("PUT", "/dbs/db/colls/c/docs/"+id, hdr, fmt.Sprintf(`{"id":"%s","pk":"%s","v":%d}`, id, pkv, i%3))
		}
	}
	clock.Add(60)
	c, _ := s.lookupContainer("db", "c")
	full := func(text, lpk string) []any {
		t.Helper()
		q, err := sql.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		p := c.parts[0]
		p.mu.RLock()
		defer p.mu.RUnlock()
		src := &partSource{c: c, p: p, list: &p.all, now: clock.Load(), lpk: lpk}
		if lpk != "" {
			src.list = nil
			if lp := p.logical[lpk]; lp != nil {
				src.list = &lp.docs
			}
		}
		res, err := sql.Execute(q, plainSource{src}, sql.Options{Policy: c.policy, Whole: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Streamed {
			t.Fatal("the reference execution streamed")
		}
		return sentItems(res)
	}
	paged := func(text, pk string, size int) []any {
		t.Helper()
		var out []any
		cont := ""
		for range 1000 {
			hdr := map[string]string{"x-ms-documentdb-isquery": "true", "Content-Type": "application/query+json",
				"x-ms-max-item-count": strconv.Itoa(size), "x-ms-documentdb-query-enablecrosspartition": "true"}
			if pk != "" {
				hdr["x-ms-documentdb-partitionkey"] = `["` + pk + `"]`
			} else {
				hdr["x-ms-documentdb-partitionkeyrangeid"] = c.parts[0].id // as SDK query pipelines ask
			}
			if cont != "" {
				hdr["x-ms-continuation"] = cont
			}
			body, _ := json.Marshal(map[string]any{"query": text})
			w := signedRecorder(s, "POST", "/dbs/db/colls/c/docs", hdr, string(body))
			if w.Code != 200 {
				t.Fatalf("%s: %d %s", text, w.Code, w.Body.String())
			}
			var env struct{ Documents []any }
			if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
				t.Fatal(err)
			}
			if len(env.Documents) > size {
				t.Fatalf("%s: a page of %d items for a page size of %d", text, len(env.Documents), size)
			}
			out = append(out, env.Documents...)
			cont = ""
			if v := w.Header()["x-ms-continuation"]; len(v) > 0 { // set under its lower-case name
				cont = v[0]
			}
			if cont == "" {
				return out
			}
		}
		t.Fatalf("%s: pages do not end", text)
		return nil
	}
	sels := []string{"*", "c.id", "VALUE c.id", "VALUE c.w", "c.id, c.v"}
	orders := []string{"c.v", "c.v DESC", "c.w", "c.w DESC", "c.v ASC, c.w DESC", "c.v DESC, c.w ASC"}
	// Filters that stream: an equality on the leading ORDER BY path of a composite index (the
	// partition key's included, the common single-partition ORDER BY, written as index-policy.md's
	// "Queries with a filter and ORDER BY" has it: the filtered path first in the ORDER BY), a range
	// on the first ORDER BY path, a filter the index does not serve; and ones that do not stream (an
	// equality on a path the ORDER BY does not name, an IN).
	wheres := []string{"", "", "c.pk = 'p1'", "c.w = 1", "c.v > 0", "c.v <= 'a'", "c.v >= 1.5 AND c.v < 9",
		"UPPER(c.id) > 'D1'", "c.w = 2 AND LOWER(c.id) != 'd002'", "c.w IN (0, 2)"}
	for _, lpk := range []string{"", "p1"} {
		for range 80 {
			where := wheres[rng.Intn(len(wheres))]
			order := orders[rng.Intn(len(orders))]
			switch where {
			case "c.pk = 'p1'":
				order = []string{"c.pk, c.v DESC", "c.pk DESC, c.v ASC", "c.v DESC"}[rng.Intn(3)]
			case "c.w = 1", "c.w = 2 AND LOWER(c.id) != 'd002'":
				order = []string{"c.w, c.v", "c.w DESC, c.v DESC", "c.v"}[rng.Intn(3)]
			}
			if where != "" {
				where = " WHERE " + where
			}
			text := fmt.Sprintf("SELECT %s FROM c%s ORDER BY %s", sels[rng.Intn(len(sels))], where, order)
			switch rng.Intn(3) {
			case 1:
				text = fmt.Sprintf("SELECT TOP %d %s", rng.Intn(60), text[len("SELECT "):])
			case 2:
				text += fmt.Sprintf(" OFFSET %d LIMIT %d", rng.Intn(50), rng.Intn(60))
			}
			canon := ""
			if lpk != "" {
				canon = canonicalPK([]any{lpk})
			}
			want := full(text, canon)
			if want == nil {
				want = []any{}
			}
			size := 1 + rng.Intn(12)
			got := paged(text, lpk, size)
			if got == nil {
				got = []any{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s (key %q, pages of %d):\n got %v\nwant %v", text, lpk, size, got, want)
			}
		}
	}
}

// TestStreamedPageSendsStoredItems holds the items of a streamed SELECT * page to the stored bytes
// a point read returns (keys in the order written, not re-encoded), and its charge to a repeat of
// the same query, in one logical partition and over a physical partition of a few: the engine
// finds a returned document among those the walk loaded (partSource.docOf).
func TestStreamedPageSendsStoredItems(t *testing.T) {
	s, err := Start(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	send := func(method, path string, hdr map[string]string, body string) *httptest.ResponseRecorder {
		t.Helper()
		w := signedRecorder(s, method, path, hdr, body)
		if w.Code >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body.String())
		}
		return w
	}
	send("POST", "/dbs", nil, `{"id":"db"}`)
	send("POST", "/dbs/db/colls", nil, `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`)
	stored := map[string]string{}
	// 20 logical partitions in the one physical partition: a body's stored bytes are found in its
	// own logical partition however many there are (byBody), so a page is the same bytes and the
	// same charge every time.
	for i := range 60 {
		pk := fmt.Sprintf("p%d", i%20)
		id := fmt.Sprintf("d%02d", i)
		// Keys out of order and a character json.Marshal escapes: re-encoding would differ.
		body := fmt.Sprintf(`{"z":"<%d>","pk":"%s","n":%d,"id":"%s"}`, i, pk, i%7, id)
		hdr := map[string]string{"x-ms-documentdb-partitionkey": `["` + pk + `"]`}
		send("POST", "/dbs/db/colls/c/docs", hdr, body)
		stored[id] = send("GET", "/dbs/db/colls/c/docs/"+id, hdr, "").Body.String()
	}
	c, _ := s.lookupContainer("db", "c")
	for _, hdr := range []map[string]string{
		{"x-ms-documentdb-partitionkey": `["p1"]`},
		{"x-ms-documentdb-partitionkeyrangeid": c.parts[0].id, "x-ms-documentdb-query-enablecrosspartition": "true"},
	} {
		hdr["x-ms-documentdb-isquery"] = "true"
		hdr["Content-Type"] = "application/query+json"
		hdr["x-ms-max-item-count"] = "4"
		for _, q := range []string{"SELECT * FROM c ORDER BY c.n DESC", "SELECT * FROM c WHERE c.n >= 0"} {
			var charges []string
			for range 2 {
				w := send("POST", "/dbs/db/colls/c/docs", hdr, `{"query":"`+q+`"}`)
				var env struct{ Documents []json.RawMessage }
				if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
					t.Fatal(err)
				}
				if len(env.Documents) < 3 {
					t.Fatalf("%v: %s: %d items, want a page", hdr, q, len(env.Documents))
				}
				for _, it := range env.Documents {
					var m struct{ ID string }
					_ = json.Unmarshal(it, &m)
					if string(it) != stored[m.ID] {
						t.Errorf("%v: item %s sent as\n%s\nstored as\n%s", hdr, m.ID, it, stored[m.ID])
					}
				}
				charges = append(charges, w.Header()["x-ms-request-charge"][0])
			}
			if charges[0] != charges[1] {
				t.Errorf("%v: charges %v, want the same twice", hdr, charges)
			}
		}
	}
}

// signedRecorder sends one signed request to s and returns the recorded response.
func signedRecorder(s *Server, method, path string, hdr map[string]string, body string) *httptest.ResponseRecorder {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	rtype, link := resourceOf(segs)
	date := time.Now().UTC().Format(http.TimeFormat)
	mac := hmac.New(sha256.New, s.key)
	mac.Write([]byte(strings.ToLower(method) + "\n" + rtype + "\n" + link + "\n" + strings.ToLower(date) + "\n\n"))
	r := httptest.NewRequest(method, "http://x/", bytes.NewReader([]byte(body)))
	r.URL.Path = path
	r.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+base64.StdEncoding.EncodeToString(mac.Sum(nil))))
	r.Header.Set("x-ms-date", date)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

// pkOf returns the pk property of a test body.
func pkOf(body string) string {
	var m map[string]any
	_ = json.Unmarshal([]byte(body+"}"), &m)
	s, _ := m["pk"].(string)
	return s
}

// sentItems are res's items as the engine sends them, decoded from JSON: a stored document returned
// whole as its stored JSON (the item holds only what the query read of it), any other encoded.
func sentItems(res *sql.Result) []any {
	out := []any{}
	for i, it := range res.Items {
		b, _ := json.Marshal(it)
		if res.Stored != nil && res.Stored[i] != nil {
			b = res.Stored[i].Raw
		}
		var v any
		_ = json.Unmarshal(b, &v)
		out = append(out, v)
	}
	return out
}
