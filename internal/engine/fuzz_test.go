package engine

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// FuzzServe sends signed requests with arbitrary methods, paths, headers and bodies to a server
// holding a database, a hierarchical-key container and a few items. The server must never answer
// 500 (a panic or an unclassified error): every bad request is the client's, a 4xx. Each input gets
// a fresh server with the same contents, so a failure reproduces from its input alone.
//
//	go test ./internal/engine -run '^$' -fuzz FuzzServe -fuzztime 60s
func FuzzServe(f *testing.F) {
	// fresh starts a server and fills it as every input expects; send signs and serves one request.
	type sender func(method, path, pk, contentType string, body []byte) int
	fresh := func(tb testing.TB) sender {
		s, err := Start(context.Background(), Options{})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { _ = s.Close(context.Background()) })
		send := func(method, path, pk, contentType string, body []byte) int {
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
			if strings.Contains(contentType, "batch") {
				r.Header.Set("x-ms-cosmos-is-batch-request", "True")
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			return w.Code
		}
		for _, c := range []struct{ path, body string }{
			{"/dbs", `{"id":"db"}`},
			{"/dbs/db/colls", `{"id":"c","partitionKey":{"paths":["/t","/u"],"kind":"MultiHash","version":2},"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/email"]}]}}`},
			{"/dbs/db/colls/c/docs", `{"id":"a","t":"x","u":"y","n":1,"email":"a@x"}`},
			{"/dbs/db/colls/c/docs", `{"id":"b","t":"x","u":"z","arr":[1,{"k":"v"}]}`},
		} {
			if code := send("POST", c.path, "", "", []byte(c.body)); code != http.StatusCreated {
				tb.Fatalf("setting up: POST %s = %d", c.path, code)
			}
		}
		return send
	}
	seeds := []struct{ method, path, pk, ct, body string }{
		{"POST", "/dbs/db/colls/c/docs", `["x","y"]`, "", `{"id":"c","t":"x","u":"y"}`},
		{"PUT", "/dbs/db/colls/c/docs/a", `["x","y"]`, "", `{"id":"a","t":"x","u":"y","n":2}`},
		{"PATCH", "/dbs/db/colls/c/docs/a", `["x","y"]`, "", `{"operations":[{"op":"incr","path":"/n","value":1},{"op":"move","from":"/n","path":"/m"}]}`},
		{"POST", "/dbs/db/colls/c/docs", `["x","y"]`, "application/json; batch", `[{"operationType":"Create","resourceBody":{"id":"d","t":"x","u":"y"}},{"operationType":"Patch","id":"a","resourceBody":{"operations":[{"op":"set","path":"/q","value":1}]}}]`},
		{"POST", "/dbs/db/colls/c/docs", "", "application/query+json", `{"query":"SELECT c.t, COUNT(1) AS n FROM c WHERE c.t = @t GROUP BY c.t","parameters":[{"name":"@t","value":"x"}]}`},
		{"POST", "/dbs/db/colls/c/docs", `["x"]`, "application/query+json", `{"query":"SELECT * FROM c WHERE ARRAY_CONTAINS(c.arr, {\"k\":\"v\"}, true) ORDER BY c.n"}`},
		{"DELETE", "/dbs/db/colls/c/docs/b", `["x","z"]`, "", ``},
		{"PUT", "/dbs/db/colls/c", "", "", `{"id":"c","partitionKey":{"paths":["/t","/u"],"kind":"MultiHash","version":2},"indexingPolicy":{"excludedPaths":[{"path":"/*"}],"includedPaths":[{"path":"/n/?"}]}}`},
		{"GET", "/dbs/db/colls/c/pkranges", "", "", ``},
		// Issue 30's reproductions: extreme builtin arguments in a query and a patch condition, a
		// move from the id.
		{"POST", "/dbs/db/colls/c/docs", "", "application/query+json", `{"query":"SELECT VALUE SUBSTRING('x', 9223372036854775807, 1) FROM c"}`},
		{"PATCH", "/dbs/db/colls/c/docs/a", `["x","y"]`, "", `{"condition":"FROM c WHERE LEFT(c.t, 1e308) = 'x'","operations":[{"op":"move","from":"/id","path":"/m"}]}`},
		{"POST", "/dbs/db/colls/c/docs", `["x","y"]`, "", "{\"id\":\"\\ud800\",\"t\":\"x\",\"u\":\"y\",\"e\":1e400}"},
		// Extreme numbers where the service takes a number: a patch increment, a query parameter,
		// a builtin's argument, a throughput.
		{"PATCH", "/dbs/db/colls/c/docs/a", `["x","y"]`, "", `{"operations":[{"op":"incr","path":"/n","value":1e308},{"op":"incr","path":"/n","value":1e308}]}`},
		{"PATCH", "/dbs/db/colls/c/docs/a", `["x","y"]`, "", `{"operations":[{"op":"incr","path":"/n","value":9223372036854775807},{"op":"incr","path":"/n","value":1}]}`},
		{"PATCH", "/dbs/db/colls/c/docs/a", `["x","y"]`, "", `{"operations":[{"op":"set","path":"/arr/9223372036854775808","value":-0}]}`},
		{"POST", "/dbs/db/colls/c/docs", "", "application/query+json", `{"query":"SELECT VALUE [REPLICATE(\"ab\", @n), LEFT(\"abc\", @n), SUBSTRING(\"abc\", @n, @n), ROUND(@n), POWER(@n, @n), ARRAY_SLICE([1,2], @n, @n)] FROM c","parameters":[{"name":"@n","value":1e300}]}`},
		{"POST", "/dbs/db/colls/c/docs", "", "application/query+json", `{"query":"SELECT TOP @n * FROM c OFFSET @n LIMIT @n","parameters":[{"name":"@n","value":9223372036854775808}]}`},
		{"POST", "/dbs/db/colls/c/docs", "", "application/query+json", `{"query":"SELECT VALUE [REPLICATE(\"ab\", -0), LOG(-0), 1/-0, SQRT(-1e300), EXP(1e300)] FROM c"}`},
		{"PUT", "/offers/x", "", "", `{"content":{"offerThroughput":1e300}}`},
	}
	for _, sd := range seeds {
		f.Add(sd.method, sd.path, sd.pk, sd.ct, []byte(sd.body))
	}
	f.Fuzz(func(t *testing.T, method, path, pk, ct string, body []byte) {
		switch method {
		case "GET", "POST", "PUT", "PATCH", "DELETE":
		default:
			return
		}
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, "?#% \t\r\n") || len(body) > 1<<16 {
			return
		}
		if strings.ContainsAny(pk+ct, "\r\n\x00") {
			return
		}
		if code := fresh(t)(method, path, pk, ct, body); code >= 500 {
			t.Fatalf("%s %s (pk %q, content type %q) with %q: status %d", method, path, pk, ct, body, code)
		}
	})
}
