package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func TestReadBody(t *testing.T) {
	body := strings.Repeat("b", 3000)
	tests := []struct {
		name    string
		r       io.Reader
		length  int64
		want    string
		status  int
		exactly bool // the buffer holds the body and exactly systemRoom more
	}{
		{"announced", strings.NewReader(body), 3000, body, 0, true},
		{"not announced", strings.NewReader(body), -1, body, 0, false},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader(body)), 3000, body, 0, true},
		{"longer than announced", strings.NewReader(body), 10, body, 0, false},
		{"empty", strings.NewReader(""), 0, "", 0, true},
		{"announced too large", strings.NewReader(""), maxRequestBytes + 1, "", 413, false},
		{"too large", strings.NewReader(strings.Repeat("x", maxRequestBytes+1)), -1, "", 413, false},
		{"just fits", strings.NewReader(strings.Repeat("x", maxRequestBytes)), -1, strings.Repeat("x", maxRequestBytes), 0, false},
		{"read error", iotest.ErrReader(errors.New("reset")), -1, "", 400, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/dbs", tt.r)
			r.ContentLength = tt.length
			b, err := readBody(r)
			if tt.status != 0 {
				var ae *apiError
				if !errors.As(err, &ae) || ae.status != tt.status {
					t.Fatalf("error %v, want status %d", err, tt.status)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Fatalf("read %d bytes, want %d", len(b), len(tt.want))
			}
			if cap(b)-len(b) < systemRoom || tt.exactly && cap(b)-len(b) != systemRoom {
				t.Errorf("room after the body = %d, want %d", cap(b)-len(b), systemRoom)
			}
		})
	}
}

// TestStoredItem_HoldsItsTextOnce checks that a stored item's decoded strings point into its stored
// JSON (no second copy), that the JSON and the decoded body agree, and that system properties
// appear once, whether the item was spliced into the request's buffer or re-encoded (a body that
// carries system properties, as a replace of an item read back does).
func TestStoredItem_HoldsItsTextOnce(t *testing.T) {
	s, client := startEngine(t, Options{})
	c := newContainer(t, client, "db", azcosmos.ContainerProperties{ID: "c"}, 0)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	long := strings.Repeat("long text ", 20)
	mustCreate(t, c, pk, map[string]any{"id": "a", "pk": "p", "text": long, "esc": "line\nbreak", "n": 1.5,
		"nested": map[string]any{"list": []any{long, "é"}}})
	read, err := c.ReadItem(ctx, pk, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Replace with the body as read: it carries _rid, _etag, _ts and the rest.
	var m map[string]any
	_ = json.Unmarshal(read.Value, &m)
	m["text"] = long + "changed"
	b, _ := json.Marshal(m)
	if _, err := c.ReplaceItem(ctx, pk, "a", b, nil); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, c, pk, map[string]any{"id": "b", "pk": "p", "text": long})

	for _, id := range []string{"a", "b"} {
		d := storedDoc(t, s, "db", "c", id)
		if d.fresh != nil {
			t.Errorf("%s: the write's decoded body is still held after commit", id)
		}
		body := d.body()
		var want map[string]any
		if err := json.Unmarshal(d.raw, &want); err != nil {
			t.Fatalf("%s: stored JSON does not decode: %v", id, err)
		}
		if got, _ := json.Marshal(body); !bytes.Equal(got, mustMarshal(want)) {
			t.Errorf("%s: decoded body %s differs from the stored JSON %s", id, got, d.raw)
		}
		if n := bytes.Count(d.raw, []byte(`"_rid"`)); n != 1 {
			t.Errorf("%s: _rid appears %d times in %s", id, n, d.raw)
		}
		for _, k := range []string{"text", "_self", "_rid"} {
			v := body[k].(string)
			p := uintptr(unsafe.Pointer(unsafe.StringData(v)))
			lo := uintptr(unsafe.Pointer(unsafe.SliceData(d.raw)))
			if p < lo || p >= lo+uintptr(len(d.raw)) {
				t.Errorf("%s: %s is a second copy, not a view of the stored JSON", id, k)
			}
		}
		if d.rid != body["_rid"] {
			t.Errorf("%s: rid %q, body _rid %q", id, d.rid, body["_rid"])
		}
	}
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// storedDoc finds an item in the server's store.
func storedDoc(t *testing.T, s *Server, db, coll, id string) *doc {
	t.Helper()
	s.mu.RLock()
	c := s.dbs[db].colls[coll]
	s.mu.RUnlock()
	for _, p := range c.parts {
		p.mu.RLock()
		for _, lp := range p.logical {
			if d := lp.byID[id]; d != nil {
				p.mu.RUnlock()
				return d
			}
		}
		p.mu.RUnlock()
	}
	t.Fatalf("item %s not stored", id)
	return nil
}

// TestRequestHeaderNamesAreCanonical reads the engine's sources for q.header("...") and checks
// that each name is canonical: request.header looks names up without canonicalising them.
func TestRequestHeaderNamesAreCanonical(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	re := regexp.MustCompile(`q\.header\("([^"]+)"\)`)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			n++
			if c := http.CanonicalHeaderKey(m[1]); c != m[1] {
				t.Errorf("%s: q.header(%q) will never match: the server stores it as %q", f, m[1], c)
			}
		}
	}
	if n == 0 {
		t.Fatal("no q.header calls found: the test reads the wrong files")
	}
}

func TestFormatETag(t *testing.T) {
	for _, n := range []uint64{0, 1, 0xabc, 1 << 48, 0xffffffffffffffff} {
		want := fmt.Sprintf("\"%s-0000-0000-%04x-%012x\"", "1a2b3c4d", (n>>48)&0xffff, n&0xffffffffffff)
		if got := formatETag("1a2b3c4d", n); got != want {
			t.Errorf("formatETag(%#x) = %s, want %s", n, got, want)
		}
	}
}

func TestPublicURL(t *testing.T) {
	s, _ := startEngine(t, Options{Protocol: "https", PublicURL: "https://cosmos.example:8083"})
	resp, body := raw(t, s, "GET", "/", nil, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /: %d %s", resp.StatusCode, body)
	}
	var acct struct {
		Writable []struct{ DatabaseAccountEndpoint string } `json:"writableLocations"`
	}
	_ = json.Unmarshal(body, &acct)
	if len(acct.Writable) != 1 || acct.Writable[0].DatabaseAccountEndpoint != "https://cosmos.example:8083/" {
		t.Errorf("advertised %+v, want https://cosmos.example:8083/", acct.Writable)
	}
	if resp.Header.Get(EngineHeader) == "" {
		t.Errorf("GET / without the %s header", EngineHeader)
	}
	if err := resp.TLS.PeerCertificates[0].VerifyHostname("cosmos.example"); err != nil {
		t.Errorf("the certificate does not cover the public host: %v", err)
	}
	for _, bad := range []string{"cosmos.example:8083", "ftp://x/", "http://x:1/", "https://", "https://u:p@x:1/",
		"https://x:1/path", "https://x:1/?q=1"} {
		if _, err := Start(context.Background(), Options{Protocol: "https", PublicURL: bad}); err == nil {
			t.Errorf("PublicURL %q accepted", bad)
		}
	}
}

// TestStoredItem_KeepsNothingElseAlive covers the ways a body can reach buildDoc other than the
// SDK's announced-length create: trailing whitespace, no Content-Length, a batch, and a replace
// with the system properties of a read. In each, the stored JSON keeps little spare capacity, and
// the body's strings, the id and the key values point into it and nowhere else.
func TestStoredItem_KeepsNothingElseAlive(t *testing.T) {
	s, client := startEngine(t, Options{})
	newContainer(t, client, "db", azcosmos.ContainerProperties{ID: "c"}, 0)
	long := strings.Repeat("text ", 2000) // 10 KB
	item := func(id string) []byte {
		b, _ := json.Marshal(map[string]any{"id": id, "pk": "p", "text": long})
		return b
	}
	pkHdr := map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}
	send := func(name string, resp *http.Response, body []byte) {
		t.Helper()
		if resp.StatusCode >= 300 {
			t.Fatalf("%s: %d %s", name, resp.StatusCode, body)
		}
	}
	resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", pkHdr, append(item("spaces"), bytes.Repeat([]byte(" "), 1<<20)...))
	send("trailing whitespace", resp, b)
	resp, b = rawReader(t, s, "POST", "/dbs/db/colls/c/docs", nil, io.MultiReader(bytes.NewReader(item("chunked"))))
	send("no Content-Length, no key header", resp, b)
	ops, _ := json.Marshal([]map[string]any{{"operationType": "Create", "resourceBody": json.RawMessage(item("batched"))}})
	resp, b = raw(t, s, "POST", "/dbs/db/colls/c/docs", map[string]string{"x-ms-documentdb-partitionkey": `["p"]`,
		"x-ms-cosmos-is-batch-request": "True", "x-ms-cosmos-batch-atomic": "True"}, ops)
	send("batch", resp, b)
	resp, b = raw(t, s, "POST", "/dbs/db/colls/c/docs", pkHdr, item("readback"))
	send("create", resp, b)
	resp, b = raw(t, s, "GET", "/dbs/db/colls/c/docs/readback", pkHdr, nil)
	send("read", resp, b)
	resp, b = raw(t, s, "PUT", "/dbs/db/colls/c/docs/readback", pkHdr, b) // the read body, system properties and all
	send("replace with system properties", resp, b)

	for _, id := range []string{"spaces", "chunked", "batched", "readback"} {
		d := storedDoc(t, s, "db", "c", id)
		if spare := cap(d.raw) - len(d.raw); spare > maxSpare {
			t.Errorf("%s: the stored JSON keeps %d bytes of spare capacity, want at most %d", id, spare, maxSpare)
		}
		inside := func(v string) bool {
			p := uintptr(unsafe.Pointer(unsafe.StringData(v)))
			lo := uintptr(unsafe.Pointer(unsafe.SliceData(d.raw)))
			return p >= lo && p < lo+uintptr(len(d.raw))
		}
		if !inside(d.body()["text"].(string)) {
			t.Errorf("%s: the text is a second copy", id)
		}
		if !inside(d.id) {
			t.Errorf("%s: the id points outside the stored JSON", id)
		}
		if pk, ok := d.pkVals[0].(string); !ok || pk != "p" {
			t.Errorf("%s: key values %v", id, d.pkVals)
		}
	}
}
