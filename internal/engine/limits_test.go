package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A throughput past the service's maximum is refused with its 400 before any partition is built
// (5×10^7 simulated partitions exhausted memory before the bound).
func TestLimits_ThroughputBounded(t *testing.T) {
	s, _ := startEngine(t, Options{})
	resp, body := raw(t, s, "POST", "/dbs", nil, []byte(`{"id":"db"}`))
	if resp.StatusCode != 201 {
		t.Fatalf("create database: %d %s", resp.StatusCode, body)
	}
	for _, hdr := range []map[string]string{
		{"x-ms-offer-throughput": "300000000000"},
		{"x-ms-offer-throughput": "1000001"},
		{"x-ms-cosmos-offer-autopilot-settings": `{"maxThroughput":300000000000}`},
	} {
		resp, body := raw(t, s, "POST", "/dbs/db/colls", hdr, []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`))
		if resp.StatusCode != 400 || !strings.Contains(string(body), "1000000") {
			t.Errorf("%v: %d %s, want 400 naming the maximum", hdr, resp.StatusCode, body)
		}
	}
	resp, body = raw(t, s, "POST", "/dbs", map[string]string{"x-ms-offer-throughput": "2000000"}, []byte(`{"id":"db2"}`))
	if resp.StatusCode != 400 {
		t.Errorf("database over the maximum: %d %s", resp.StatusCode, body)
	}
	resp, body = raw(t, s, "POST", "/dbs/db/colls", map[string]string{"x-ms-offer-throughput": "1000000"}, []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`))
	if resp.StatusCode != 201 {
		t.Fatalf("the maximum itself: %d %s", resp.StatusCode, body)
	}
	c, _ := s.lookupContainer("db", "c")
	if len(c.parts) != 167 {
		t.Errorf("partitions at 1,000,000 RU/s = %d, want 167", len(c.parts))
	}
}

func TestLimits_PartitionsBounded(t *testing.T) {
	s, _ := startEngine(t, Options{Partitions: func(string, string, int) int { return 1 << 40 }})
	resp, body := raw(t, s, "POST", "/dbs", nil, []byte(`{"id":"db"}`))
	if resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	resp, body = raw(t, s, "POST", "/dbs/db/colls", map[string]string{"x-ms-offer-throughput": "400"}, []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`))
	if resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	c, _ := s.lookupContainer("db", "c")
	if len(c.parts) != maxPartitions {
		t.Errorf("partitions = %d, want the bound %d", len(c.parts), maxPartitions)
	}
}

// A snapshot asking for 5×10^7 partitions or an impossible throughput is an error naming the file.
func TestLimits_SnapshotBounded(t *testing.T) {
	for name, coll := range map[string]string{
		"partitions": `"partitions":50000000`,
		"throughput": `"partitions":1,"offer":{"manual":300000000000}`,
	} {
		path := filepath.Join(t.TempDir(), "snap.json")
		snap := `{"version":1,"databases":[{"resource":{"id":"db"},"containers":[{"resource":{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}},` + coll + `,"items":[]}]}]}`
		if err := os.WriteFile(path, []byte(snap), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Start(context.Background(), Options{PersistPath: path})
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want an error naming %s", name, err, path)
		}
	}
}

// limitsContainer creates db/c (partition key /pk, one partition) with n documents, each with an
// array arr of k strings of size bytes.
func limitsContainer(t *testing.T, s *Server, n, k, size int) {
	t.Helper()
	if resp, body := raw(t, s, "POST", "/dbs", nil, []byte(`{"id":"db"}`)); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if resp, body := raw(t, s, "POST", "/dbs/db/colls", nil, []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`)); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	arr := make([]string, k)
	for i := range arr {
		arr[i] = strings.Repeat(string(rune('a'+i%26)), size)
	}
	for i := range n {
		body := mustMarshal(map[string]any{"id": fmt.Sprint(i), "pk": "p", "arr": arr})
		if resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}, body); resp.StatusCode != 201 {
			t.Fatalf("create: %d %s", resp.StatusCode, b)
		}
	}
}

func queryPage(t *testing.T, s *Server, text, continuation string) (int, []byte, string) {
	t.Helper()
	hdr := map[string]string{"x-ms-documentdb-isquery": "true", "Content-Type": "application/query+json",
		"x-ms-documentdb-query-enablecrosspartition": "true"}
	if continuation != "" {
		hdr["x-ms-continuation"] = continuation
	}
	resp, body := raw(t, s, "POST", "/dbs/db/colls/c/docs", hdr, mustMarshal(map[string]any{"query": text}))
	return resp.StatusCode, body, resp.Header.Get("x-ms-continuation")
}

// An ARRAY subquery over a self-JOIN makes items of 18 MB each from five documents of 300 KB: the
// engine refuses them with a 400 before encoding any (it once built a 100 MB response, and 4.9 GB
// of memory, for five documents).
func TestLimits_HugeResultRefused(t *testing.T) {
	s, _ := startEngine(t, Options{})
	limitsContainer(t, s, 5, 30, 10_000)
	status, body, _ := queryPage(t, s, "SELECT VALUE ARRAY(SELECT VALUE [x, y] FROM x IN c.arr JOIN y IN c.arr) FROM c", "")
	if status != 400 || !strings.Contains(string(body), "maximum response size") {
		t.Fatalf("status %d, %d bytes: %.200s; want a 400 naming the maximum response size", status, len(body), body)
	}
}

// Pages end at about 4 MB, the service's maximum response size, whatever the page size asked for:
// 20 documents of 600 KB come in pages of at most 6, every one of them once.
func TestLimits_PagesBySize(t *testing.T) {
	s, _ := startEngine(t, Options{})
	limitsContainer(t, s, 20, 60, 10_000)
	for _, text := range []string{"SELECT * FROM c", "SELECT c.id, c.arr FROM c"} {
		seen, pages, ct := map[string]bool{}, 0, ""
		for {
			status, body, next := queryPage(t, s, text, ct)
			if status != 200 {
				t.Fatalf("%s: %d %.200s", text, status, body)
			}
			if len(body) > 4<<20+64<<10 {
				t.Errorf("%s: a page of %d bytes", text, len(body))
			}
			var page struct{ Documents []struct{ ID string } }
			if err := json.Unmarshal(body, &page); err != nil {
				t.Fatal(err)
			}
			for _, d := range page.Documents {
				if seen[d.ID] {
					t.Errorf("%s: %s twice", text, d.ID)
				}
				seen[d.ID] = true
			}
			pages++
			if ct = next; ct == "" {
				break
			}
		}
		if len(seen) != 20 || pages < 4 {
			t.Errorf("%s: %d documents in %d pages, want 20 in at least 4", text, len(seen), pages)
		}
	}
	// The read feed pages the same way.
	resp, body := raw(t, s, "GET", "/dbs/db/colls/c/docs", nil, nil)
	if resp.StatusCode != 200 || len(body) > 4<<20+64<<10 {
		t.Errorf("read feed: %d, %d bytes", resp.StatusCode, len(body))
	}
}

// A slow body and an idle keep-alive are closed by the server (they stayed open indefinitely with
// only the header timeout).
func TestLimits_ConnectionTimeouts(t *testing.T) {
	saved := [2]time.Duration{readTimeout, idleTimeout}
	readTimeout, idleTimeout = 300*time.Millisecond, 300*time.Millisecond
	s, _ := startEngine(t, Options{})
	readTimeout, idleTimeout = saved[0], saved[1]
	host := strings.TrimSuffix(strings.TrimPrefix(s.URL(), "http://"), "/")
	closed := func(conn net.Conn) bool {
		// No deadline on this side: the server's 300 ms timeouts are what close the connection;
		// without them it stayed open and the test hangs until go test's -timeout (every stack).
		_, err := io.Copy(io.Discard, conn)
		return err == nil // EOF: the server closed it
	}
	slow, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "POST /dbs HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"id\":")
	if !closed(slow) {
		t.Error("a request whose body never completes kept its connection open")
	}
	idle, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	fmt.Fprintf(idle, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if !closed(idle) {
		t.Error("an idle keep-alive connection stayed open")
	}
}
