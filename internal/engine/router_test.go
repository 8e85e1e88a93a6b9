package engine

import (
	"context"
	"strings"
	"testing"
)

// signedSend sends one signed request to s and returns the status and body.
func signedSend(s *Server, method, path string, hdr map[string]string, body string) (int, string) {
	w := signedRecorder(s, method, path, hdr, body)
	return w.Code, w.Body.String()
}

// TestRouter walks the routing table: each row reaches its handler, a known path with another
// method is 405, an unknown path 404, and a missing container is 404 whatever the method.
func TestRouter(t *testing.T) {
	s, err := Start(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Close bounds its own grace (engine.closeGrace) and then closes every connection; a
		// deadline of the caller's would leave connections open once a busy machine reached it.
		_ = s.Close(context.Background())
	})
	query := map[string]string{"Content-Type": "application/query+json", "x-ms-documentdb-isquery": "true", "x-ms-documentdb-query-enablecrosspartition": "true"}
	pk := map[string]string{"x-ms-documentdb-partitionkey": `["a"]`}
	batch := map[string]string{"x-ms-documentdb-partitionkey": `["a"]`, "x-ms-cosmos-is-batch-request": "True"}
	steps := []struct {
		method, path string
		hdr          map[string]string
		body         string
		status       int
		contains     string
	}{
		{"GET", "/", nil, "", 200, "writableLocations"},
		{"POST", "/", nil, "", 405, "method POST is not allowed"},
		{"GET", "/nowhere", nil, "", 404, `resource path \"/nowhere\" is not known`},
		{"POST", "/dbs", nil, `{"id":"db"}`, 201, `"id":"db"`},
		{"GET", "/dbs", nil, "", 200, `"Databases"`},
		{"POST", "/dbs", query, `{"query":"SELECT * FROM root r"}`, 200, `"Databases"`},
		{"PUT", "/dbs", nil, "", 405, "method PUT"},
		{"GET", "/dbs/db", nil, "", 200, `"id":"db"`},
		{"PATCH", "/dbs/db", nil, "", 405, "method PATCH"},
		{"GET", "/dbs/db/users", nil, "", 404, "is not known"},
		{"POST", "/dbs/db/colls", nil, `{"id":"c","partitionKey":{"paths":["/k"],"kind":"Hash","version":2}}`, 201, `"id":"c"`},
		{"GET", "/dbs/db/colls", nil, "", 200, `"DocumentCollections"`},
		{"POST", "/dbs/db/colls", query, `{"query":"SELECT * FROM root r"}`, 200, `"DocumentCollections"`},
		{"GET", "/dbs/db/colls/c", nil, "", 200, `"id":"c"`},
		{"POST", "/dbs/db/colls/c", nil, "", 405, "method POST"},
		{"GET", "/dbs/db/colls/c/pkranges", nil, "", 200, `"PartitionKeyRanges"`},
		{"POST", "/dbs/db/colls/c/pkranges", nil, "", 405, "method POST"},
		{"POST", "/dbs/db/colls/c/docs", pk, `{"id":"i","k":"a","n":1}`, 201, `"id":"i"`},
		{"GET", "/dbs/db/colls/c/docs/i", pk, "", 200, `"n":1`},
		{"PUT", "/dbs/db/colls/c/docs/i", pk, `{"id":"i","k":"a","n":2}`, 200, `"n":2`},
		{"PATCH", "/dbs/db/colls/c/docs/i", pk, `{"operations":[{"op":"incr","path":"/n","value":1}]}`, 200, `"n":3`},
		// Patch never touches id or a system property, incr included (the service answers 400).
		{"PATCH", "/dbs/db/colls/c/docs/i", pk, `{"operations":[{"op":"incr","path":"/_ts","value":5}]}`, 400, "system properties"},
		{"PATCH", "/dbs/db/colls/c/docs/i", pk, `{"operations":[{"op":"incr","path":"/_rid","value":5}]}`, 400, "system properties"},
		{"PATCH", "/dbs/db/colls/c/docs/i", pk, `{"operations":[{"op":"incr","path":"/_etag","value":5}]}`, 400, "system properties"},
		{"PATCH", "/dbs/db/colls/c/docs/i", pk, `{"operations":[{"op":"incr","path":"/_self","value":5}]}`, 400, "system properties"},
		{"PATCH", "/dbs/db/colls/c/docs/i", pk, `{"operations":[{"op":"set","path":"/_ts","value":5}]}`, 400, "system properties"},
		{"PATCH", "/dbs/db/colls/c/docs/i", pk, `{"operations":[{"op":"incr","path":"/id","value":5}]}`, 400, "system properties"},
		{"POST", "/dbs/db/colls/c/docs", query, `{"query":"SELECT VALUE r.n FROM r"}`, 200, `"Documents":[3]`},
		{"POST", "/dbs/db/colls/c/docs", batch, `[{"operationType":"Read","id":"i"}]`, 200, `"statusCode":200`},
		{"GET", "/dbs/db/colls/c/docs", nil, "", 200, `"Documents"`},
		{"PUT", "/dbs/db/colls/c/docs", nil, "", 405, "method PUT"},
		{"POST", "/dbs/db/colls/c/docs/i", pk, "", 405, "method POST"},
		{"GET", "/dbs/db/colls/c/docs/i/more", pk, "", 404, "is not known"},
		// The container is resolved before the method is judged.
		{"PUT", "/dbs/db/colls/nope/docs", nil, "", 404, ""},
		{"POST", "/dbs/db/colls/nope/docs/i", nil, "", 404, ""},
		{"DELETE", "/dbs/db/colls/c/docs/i", pk, "", 204, ""},
		{"GET", "/offers", nil, "", 200, `"Offers"`},
		{"GET", "/offers/none", nil, "", 404, "Offer"},
		{"GET", "/offers/a/b", nil, "", 405, "method GET"},
		{"DELETE", "/dbs/db/colls/c", nil, "", 204, ""},
		{"DELETE", "/dbs/db", nil, "", 204, ""},
	}
	for _, st := range steps {
		status, body := signedSend(s, st.method, st.path, st.hdr, st.body)
		if status != st.status || !strings.Contains(body, st.contains) {
			t.Errorf("%s %s: %d %s; want %d with %q", st.method, st.path, status, body, st.status, st.contains)
		}
	}
}

func TestCompileRoutes(t *testing.T) {
	for _, bad := range []route{
		{pattern: "GET /a"},
		{pattern: "GET /a/{x...}/b", handle: (*Server).account},
		{pattern: "GET /dbs/{db}/docs", item: (*Server).readFeed},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("route %q compiled", bad.pattern)
				}
			}()
			compileRoutes([]route{bad})
		}()
	}
	r := compileRoutes([]route{{pattern: "/offers/{rest...}", handle: (*Server).offers}}).rest[0]
	for path, want := range map[string]bool{"offers": true, "offers/a": true, "offers/a/b": true, "dbs": false, "": false} {
		var segs []string
		if path != "" {
			segs = strings.Split(path, "/")
		}
		if got := r.matches(segs); got != want {
			t.Errorf("/offers/{rest...} matches %q: %v, want %v", path, got, want)
		}
	}
}
