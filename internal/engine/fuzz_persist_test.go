package engine

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cosmosdv/validate/internal/testenv"
)

// fuzzSend signs a master-key request to s as the SDK does and serves it in process.
func fuzzSend(s *Server, method, path, pk, contentType string, body []byte) (int, []byte) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	rtype, link := resourceOf(segs)
	date := time.Now().UTC().Format(http.TimeFormat)
	mac := hmac.New(sha256.New, s.key)
	mac.Write([]byte(strings.ToLower(method) + "\n" + rtype + "\n" + link + "\n" + strings.ToLower(date) + "\n\n"))
	r := httptest.NewRequest(method, "http://x/", bytes.NewReader(body))
	r.URL.Path = path
	r.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+base64.StdEncoding.EncodeToString(mac.Sum(nil))))
	r.Header.Set("x-ms-date", date)
	if pk != "" {
		r.Header.Set("x-ms-documentdb-partitionkey", pk)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w.Code, w.Body.Bytes()
}

// persistedItems reads every item of /dbs/db/colls/c (nil when the container is not there).
func persistedItems(t *testing.T, s *Server) map[string]any {
	t.Helper()
	code, body := fuzzSend(s, "GET", "/dbs/db/colls/c/docs", "", "", nil)
	if code == http.StatusNotFound {
		return nil
	}
	if code != http.StatusOK {
		t.Fatalf("read feed after replay: %d %s", code, body)
	}
	var feed struct{ Documents []map[string]any }
	if err := json.Unmarshal(body, &feed); err != nil {
		t.Fatalf("read feed after replay: %v", err)
	}
	out := map[string]any{}
	for _, d := range feed.Documents {
		id, _ := d["id"].(string)
		for k := range d {
			if strings.HasPrefix(k, "_") {
				delete(d, k) // system properties (_ts, _etag, …) may be regenerated
			}
		}
		out[id] = d
	}
	return out
}

// FuzzPersistReplay starts the engine from a snapshot and an arbitrary persist log (FILE.log, as a
// crash leaves it). Start either refuses with an error or comes up; when it comes up the items
// read back without a server error, Close compacts them into the snapshot, and a second start
// from that snapshot holds exactly the same items. Never a panic, never a hang.
//
//	go test ./internal/engine -run '^$' -fuzz FuzzPersistReplay -fuzztime 60s
func FuzzPersistReplay(f *testing.F) {
	ctx := context.Background()
	dir := f.TempDir()
	path := filepath.Join(dir, "state.json")
	s, err := Start(ctx, Options{PersistPath: path})
	if err != nil {
		f.Fatal(err)
	}
	steps := []struct{ method, path, pk, body string }{
		{"POST", "/dbs", "", `{"id":"db"}`},
		{"POST", "/dbs/db/colls", "", `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`},
		{"POST", "/dbs/db/colls/c/docs", `["p"]`, `{"id":"a","pk":"p","n":1}`},
		{"POST", "/dbs/db/colls/c/docs", `["p"]`, `{"id":"b","pk":"p","s":"x"}`},
		{"PUT", "/dbs/db/colls/c/docs/a", `["p"]`, `{"id":"a","pk":"p","n":2}`},
		{"PATCH", "/dbs/db/colls/c/docs/a", `["p"]`, `{"operations":[{"op":"incr","path":"/n","value":1}]}`},
		{"DELETE", "/dbs/db/colls/c/docs/b", `["p"]`, ``},
		{"POST", "/dbs/db/colls/c/docs", `["q"]`, `{"id":"c","pk":"q","arr":[1,{"k":"v"}],"e":-0}`},
	}
	for _, st := range steps {
		if code, body := fuzzSend(s, st.method, st.path, st.pk, "", []byte(st.body)); code >= 300 {
			f.Fatalf("%s %s: %d %s", st.method, st.path, code, body)
		}
	}
	// The log as a crash would leave it: every write above is in it and fsynced.
	logBytes, err := os.ReadFile(path + ".log")
	if err != nil {
		f.Fatal(err)
	}
	snapshot, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		f.Fatal(err)
	}
	if len(logBytes) == 0 {
		f.Fatal("the persist log is empty after four item writes")
	}
	f.Add(logBytes)
	f.Add(append(append([]byte{}, logBytes...), logBytes...)) // replayed twice
	f.Add(logBytes[:len(logBytes)/2])                         // torn
	f.Add(logBytes[:len(logBytes)-1])
	flipped := append([]byte{}, logBytes...)
	flipped[len(flipped)/3] ^= 0x40
	f.Add(flipped)
	f.Add([]byte{})
	f.Add([]byte("\x00\x00\x00\x00"))
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff"))

	f.Fuzz(func(t *testing.T, log []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "state.json")
		if err := os.WriteFile(path, snapshot, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+".log", log, 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := testenv.FuzzHangBound(context.Background(), 2*time.Minute)
		defer cancel()
		s, err := Start(ctx, Options{PersistPath: path})
		if err != nil {
			return // refused, with an error: a damaged log may stop the start
		}
		items := persistedItems(t, s)
		if err := s.Close(ctx); err != nil {
			t.Fatalf("close after replay: %v", err)
		}
		again, err := Start(ctx, Options{PersistPath: path})
		if err != nil {
			t.Fatalf("restart from the compacted snapshot: %v", err)
		}
		defer again.Close(context.Background())
		if got := persistedItems(t, again); !reflect.DeepEqual(got, items) {
			t.Fatalf("after compaction and restart the items differ:\nbefore %v\nafter  %v", items, got)
		}
	})
}

// FuzzPatch applies an arbitrary patch document to an item in a fresh server. The server answers
// 200 or a 4xx, never 5xx; a refused patch leaves the item exactly as it was (a patch is atomic);
// an accepted one returns the item a read then returns, with its id and partition key unchanged.
//
//	go test ./internal/engine -run '^$' -fuzz FuzzPatch -fuzztime 60s
func FuzzPatch(f *testing.F) {
	seeds := []string{
		`{"operations":[{"op":"set","path":"/n","value":2}]}`,
		`{"operations":[{"op":"add","path":"/arr/0","value":0},{"op":"remove","path":"/s"}]}`,
		`{"operations":[{"op":"replace","path":"/o/k","value":[1,2]},{"op":"incr","path":"/n","value":-1.5}]}`,
		`{"operations":[{"op":"move","from":"/o","path":"/p"},{"op":"set","path":"/p/q","value":null}]}`,
		`{"condition":"from c where c.n = 1","operations":[{"op":"incr","path":"/n","value":1}]}`,
		`{"operations":[{"op":"set","path":"/n","value":1},{"op":"remove","path":"/missing"}]}`,
		`{"operations":[{"op":"incr","path":"/n","value":1e308},{"op":"incr","path":"/n","value":1e308}]}`,
		`{"operations":[{"op":"incr","path":"/n","value":9223372036854775807},{"op":"incr","path":"/n","value":1}]}`,
		`{"operations":[{"op":"add","path":"/arr/9223372036854775808","value":-0}]}`,
		`{"operations":[{"op":"set","path":"/id","value":"z"}]}`,
		`{"operations":[{"op":"set","path":"/pk","value":"q"}]}`,
		`{"operations":[{"op":"move","from":"/id","path":"/x"}]}`,
		`{"operations":[{"op":"add","path":"/arr/-","value":3},{"op":"add","path":"/arr/1","value":{"a":1e300}}]}`,
		`{"operations":[]}`,
		`{"operations":[{"op":"set","path":"","value":1}]}`,
		`{"operations":[{"op":"set","path":"/a~1b/~0c","value":1}]}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	const item = `{"id":"a","pk":"p","n":1,"s":"x","arr":[1,2],"o":{"k":"v"}}`
	f.Fuzz(func(t *testing.T, patch []byte) {
		if len(patch) > 1<<16 {
			return
		}
		s, err := Start(context.Background(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		for _, st := range []struct{ path, body string }{
			{"/dbs", `{"id":"db"}`},
			{"/dbs/db/colls", `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`},
			{"/dbs/db/colls/c/docs", item},
		} {
			if code, body := fuzzSend(s, "POST", st.path, `["p"]`, "", []byte(st.body)); code != http.StatusCreated {
				t.Fatalf("setting up: POST %s: %d %s", st.path, code, body)
			}
		}
		read := func() map[string]any {
			code, body := fuzzSend(s, "GET", "/dbs/db/colls/c/docs/a", `["p"]`, "", nil)
			if code != http.StatusOK {
				t.Fatalf("read after patch: %d %s", code, body)
			}
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatalf("read after patch: %v", err)
			}
			return m
		}
		before := read()
		code, body := fuzzSend(s, "PATCH", "/dbs/db/colls/c/docs/a", `["p"]`, "", patch)
		switch {
		case code >= 500:
			t.Fatalf("patch %q: status %d %s", patch, code, body)
		case code >= 300:
			if after := read(); !reflect.DeepEqual(after, before) {
				t.Fatalf("patch %q refused with %d but the item changed:\nbefore %v\nafter  %v", patch, code, before, after)
			}
		default:
			var got map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("patch %q: the response is not an item: %v", patch, err)
			}
			if got["id"] != "a" || got["pk"] != "p" {
				t.Fatalf("patch %q changed the id or partition key: %v", patch, got)
			}
			if after := read(); !reflect.DeepEqual(after, got) {
				t.Fatalf("patch %q: the response and the next read differ:\nresponse %v\nread     %v", patch, got, after)
			}
		}
	})
}
