package engine

import (
	"context"
	"fmt"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkMemory100k stores 100,000 items of 1 KB through the engine's write path (decode, system
// properties, index terms, partition maps; HTTP and auth skipped) and reports the live heap after a
// collection. The target is < 400 MB.
//
//	go test -run '^$' -bench Memory100k -benchtime 1x ./internal/engine/
func BenchmarkMemory100k(b *testing.B) {
	const items = 100_000
	for range b.N {
		heap := storeItems(b, items)
		b.ReportMetric(float64(heap)/(1<<20), "HeapInuse-MB")
		b.ReportMetric(float64(heap)/items, "heap-B/item")
		if heap > 400<<20 {
			b.Errorf("HeapInuse = %d MB for %d items of 1 KB, want < 400 MB", heap>>20, items)
		}
	}
}

// TestMemory_PerItem keeps the memory budget honest in the fast suite: 10,000 items of 1 KB must
// stay under a tenth of the 400 MB budget for 100,000.
func TestMemory_PerItem(t *testing.T) {
	const items = 10_000
	heap := storeItems(t, items)
	if perItem := heap / items; perItem > 4000 {
		t.Errorf("heap per 1 KB item = %d B (HeapInuse %d MB for %d items), want < 4,000 B", perItem, heap>>20, items)
	}
}

// storeItems creates n 1 KB items over 64 logical partitions and returns HeapInuse after GC,
// with the server still reachable so nothing is collected early.
func storeItems(tb testing.TB, n int) uint64 {
	tb.Helper()
	runtime.GC()
	s, err := Start(context.Background(), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close(context.Background())
	mk := func(method, path string, body string, hdr map[string]string) int {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		w := httptest.NewRecorder()
		b, err := readBody(r) // as serve reads it, with room for the system properties
		if err != nil {
			tb.Fatal(err)
		}
		q := &request{r: r, w: w, hdr: r.Header, out: w.Header(), body: b}
		q.segs = strings.Split(strings.Trim(path, "/"), "/")
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		status, err := s.route(q)
		if err != nil {
			tb.Fatalf("%s %s: %v", method, path, err)
		}
		return status
	}
	mk("POST", "/dbs", `{"id":"mem"}`, nil)
	mk("POST", "/dbs/mem/colls", `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`, nil)
	pad := strings.Repeat("x", 1024)
	for i := range n {
		pk := fmt.Sprintf("p%d", i%64)
		body := fmt.Sprintf(`{"id":"i%d","pk":"%s","pad":"%s"}`, i, pk, pad[:1024-40-len(pk)-len(fmt.Sprint(i))])
		mk("POST", "/dbs/mem/colls/c/docs", body, map[string]string{"x-ms-documentdb-partitionkey": `["` + pk + `"]`})
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(s)
	return ms.HeapInuse
}
