package engine_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmosdv/validate/internal/engine"
)

// oneKB is a 1 KB item body around id and pk.
func oneKB(id, pk string) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "pk": pk, "pad": strings.Repeat("x", 1024-40-len(id)-len(pk))})
	return b
}

// recorded is one response of the engine, replayed by the canned server.
type recorded struct {
	status int
	header http.Header
	body   []byte
}

// requestKind names the kinds of request the benchmarks make.
func requestKind(r *http.Request) string {
	switch {
	case r.URL.Path == "/" || r.URL.Path == "":
		return "account"
	case r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), "application/query+json"):
		return "query"
	case r.Method == http.MethodPost:
		return "create"
	case r.Method == http.MethodGet:
		return "read"
	}
	return "other"
}

// recorder is an SDK transport that keeps the last response of each kind.
type recorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	last map[string]recorded
}

func (rt *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	rt.mu.Lock()
	rt.last[requestKind(req)] = recorded{status: resp.StatusCode, header: resp.Header.Clone(), body: body}
	rt.mu.Unlock()
	return resp, nil
}

// engineResponses records, once, the engine's responses to the requests the benchmarks make: a
// 1 KB create, a 1 KB point read and a query that returns 10 of them.
func engineResponses(b *testing.B) map[string]recorded {
	s, err := engine.Start(context.Background(), engine.Options{Protocol: "https"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(context.Background())
	rec := &recorder{last: map[string]recorded{}}
	c := newBenchContainer(b, s, rec)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p0")
	for i := range 10 {
		if _, err := c.CreateItem(ctx, pk, oneKB(fmt.Sprintf("i%d", i), "p0"), nil); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := c.ReadItem(ctx, pk, "i1", nil); err != nil {
		b.Fatal(err)
	}
	if page, err := c.NewQueryItemsPager("SELECT * FROM c", pk, nil).NextPage(ctx); err != nil || len(page.Items) != 10 {
		b.Fatalf("query: %d items, %v", len(page.Items), err)
	}
	return rec.last
}

// cannedServer is the ceiling: for each request it reads the body and answers with the engine's
// response to that kind of request, recorded once (same status, header names and values, body
// bytes), so the SDK, TLS and HTTP/2 carry exactly what they carry for the engine and the server
// does nothing else. The gap to the engine is then the engine's own work.
func cannedServer(b *testing.B) (*azcosmos.Client, func()) {
	responses := engineResponses(b)
	for kind, rec := range responses {
		h := http.Header{}
		for k, v := range rec.header {
			switch {
			case k == "Date": // the server sets its own, as it does for the engine
			case strings.HasPrefix(k, "X-Ms-"):
				h[strings.ToLower(k)] = v // as the engine keeps them (setHeader in http.go)
			default:
				h[k] = v
			}
		}
		rec.header = h
		responses[kind] = rec
	}
	var n atomic.Uint64
	var srv *httptest.Server
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		kind := requestKind(r)
		if kind == "account" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"x","writableLocations":[{"name":"local","databaseAccountEndpoint":"%s/"}],"readableLocations":[{"name":"local","databaseAccountEndpoint":"%s/"}],"userConsistencyPolicy":{"defaultConsistencyLevel":"Session"}}`, srv.URL, srv.URL)
			return
		}
		rec, ok := responses[kind]
		if !ok {
			http.Error(w, "no canned response for "+kind, http.StatusNotImplemented)
			return
		}
		h := w.Header()
		for k, v := range rec.header {
			h[k] = v
		}
		// Header values that the service changes from response to response change here too (a
		// value HPACK has seen is sent as an index; a new one is encoded and decoded afresh): every
		// response has its own activity id, and every write a new etag and session token.
		i := n.Add(1)
		h["x-ms-activity-id"] = []string{withCounter(rec.header["x-ms-activity-id"][0], i)}
		if kind == "create" {
			h["Etag"] = []string{withCounter(rec.header["Etag"][0], i)}
			h["x-ms-session-token"] = []string{withCounter(rec.header["x-ms-session-token"][0], i)}
		}
		w.WriteHeader(rec.status)
		w.Write(rec.body)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	return sdkClient(b, srv.URL+"/", engine.EmulatorKey, &tls.Config{RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}, nil), srv.Close
}

// withCounter replaces the last digits of s (before a closing quote, if any) with n in decimal,
// keeping the length while n fits.
func withCounter(s string, n uint64) string {
	end := strings.TrimSuffix(s, `"`)
	digits := strconv.FormatUint(n, 10)
	if len(digits) > len(end) {
		return s
	}
	return end[:len(end)-len(digits)] + digits + s[len(end):]
}

// bareServer is the stricter ceiling the first measurements used: every request gets a minimal
// response (three headers and the 1 KB item without system properties) and the request body is not
// read. It leaves out work every Cosmos DB server must do (read the request, send the service's
// headers and system properties), so it says how far the protocol itself is from the bare SDK.
func bareServer(b *testing.B) (*azcosmos.Client, func()) {
	item := oneKB("id", "p")
	var docs []string
	for range 10 {
		docs = append(docs, string(item))
	}
	page := []byte(`{"_rid":"x","Documents":[` + strings.Join(docs, ",") + `],"_count":10}`)
	var srv *httptest.Server
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("x-ms-request-charge", "1")
		h.Set("x-ms-activity-id", "00000000-0000-0000-0000-000000000000")
		h.Set("Content-Type", "application/json")
		switch requestKind(r) {
		case "account":
			fmt.Fprintf(w, `{"id":"x","writableLocations":[{"name":"local","databaseAccountEndpoint":"%s/"}],"readableLocations":[{"name":"local","databaseAccountEndpoint":"%s/"}],"userConsistencyPolicy":{"defaultConsistencyLevel":"Session"}}`, srv.URL, srv.URL)
		case "query":
			w.Write(page)
		case "create":
			w.WriteHeader(201)
			w.Write(item)
		default:
			w.Write(item)
		}
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	return sdkClient(b, srv.URL+"/", engine.EmulatorKey, &tls.Config{RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}, nil), srv.Close
}

// sdkClient is an SDK client over HTTP/2; rec, when given, records its responses.
func sdkClient(b *testing.B, url, key string, tc *tls.Config, rec *recorder) *azcosmos.Client {
	cred, _ := azcosmos.NewKeyCredential(key)
	var tr http.RoundTripper = &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 64}
	if rec != nil {
		rec.base, tr = tr, rec
	}
	c, err := azcosmos.NewClientWithKey(url, cred, &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: &http.Client{Transport: tr}}})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func engineClient(b *testing.B) (*azcosmos.ContainerClient, func()) {
	s, err := engine.Start(context.Background(), engine.Options{Protocol: "https"})
	if err != nil {
		b.Fatal(err)
	}
	return newBenchContainer(b, s, nil), func() { _ = s.Close(context.Background()) }
}

// newBenchContainer creates the benchmarks' container (400 RU/s, one physical partition, /pk) in s.
func newBenchContainer(b *testing.B, s *engine.Server, rec *recorder) *azcosmos.ContainerClient {
	client := sdkClient(b, s.URL(), s.Key(), s.TLSConfig(), rec)
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "bench"}, nil); err != nil {
		b.Fatal(err)
	}
	db, _ := client.NewDatabase("bench")
	tp := azcosmos.NewManualThroughputProperties(400)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2},
		IndexingPolicy:         &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent, IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}}},
		&azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
		b.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	return c
}

func cannedContainer(b *testing.B) (*azcosmos.ContainerClient, func()) {
	client, stop := cannedServer(b)
	db, _ := client.NewDatabase("bench")
	c, _ := db.NewContainer("c")
	return c, stop
}

type target struct {
	name string
	open func(*testing.B) (*azcosmos.ContainerClient, func())
}

func bareContainer(b *testing.B) (*azcosmos.ContainerClient, func()) {
	client, stop := bareServer(b)
	db, _ := client.NewDatabase("bench")
	c, _ := db.NewContainer("c")
	return c, stop
}

var targets = []target{{"bare", bareContainer}, {"ceiling", cannedContainer}, {"engine", engineClient}}

// workload is one kind of operation the benchmarks time: seed prepares a container, op runs
// operation i.
type workload struct {
	name string
	seed func(c *azcosmos.ContainerClient)
	op   func(c *azcosmos.ContainerClient, i int64) error
}

// workloads are the three: 1 KB creates, 1 KB point reads, single-partition queries that
// return 10 items of 1 KB (64 logical partitions).
func workloads() []workload {
	ctx := context.Background()
	seed := func(n int) func(c *azcosmos.ContainerClient) {
		return func(c *azcosmos.ContainerClient) {
			for i := range n {
				pk := fmt.Sprintf("p%d", i%64)
				_, _ = c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), oneKB(fmt.Sprintf("i%d", i), pk), nil)
			}
		}
	}
	var created atomic.Int64
	return []workload{
		{"Create", func(*azcosmos.ContainerClient) {}, func(c *azcosmos.ContainerClient, _ int64) error {
			i := created.Add(1)
			pk := fmt.Sprintf("p%d", i%64)
			_, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), oneKB(fmt.Sprintf("n%d", i), pk), nil)
			return err
		}},
		{"PointRead", seed(1000), func(c *azcosmos.ContainerClient, i int64) error {
			i %= 1000
			_, err := c.ReadItem(ctx, azcosmos.NewPartitionKeyString(fmt.Sprintf("p%d", i%64)), fmt.Sprintf("i%d", i), nil)
			return err
		}},
		{"Query10", seed(640), func(c *azcosmos.ContainerClient, i int64) error {
			p := c.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKeyString(fmt.Sprintf("p%d", i%64)), nil)
			page, err := p.NextPage(ctx)
			if err == nil && len(page.Items) != 10 {
				err = fmt.Errorf("%d items, want 10", len(page.Items))
			}
			return err
		}},
	}
}

// benchOneSide runs one workload against each target separately (16 goroutines), for profiling;
// BenchmarkPaired gives the ratios.
func benchOneSide(b *testing.B, name string) {
	var w workload
	for _, x := range workloads() {
		if x.name == name {
			w = x
		}
	}
	for _, tg := range targets {
		b.Run(tg.name, func(b *testing.B) {
			c, stop := tg.open(b)
			defer stop()
			w.seed(c)
			var n atomic.Int64
			b.SetParallelism(16 / runtime.GOMAXPROCS(0))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := w.op(c, n.Add(1)); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
			b.StopTimer() // the server's shutdown (deferred) is not part of the workload
		})
	}
}

// BenchmarkCreate measures 1 KB creates through the SDK over HTTPS, one target at a time.
func BenchmarkCreate(b *testing.B) { benchOneSide(b, "Create") }

// BenchmarkPointRead measures 1 KB point reads, one target at a time.
func BenchmarkPointRead(b *testing.B) { benchOneSide(b, "PointRead") }

// BenchmarkQuery10 measures single-partition queries returning 10 items of 1 KB, one target at a time.
func BenchmarkQuery10(b *testing.B) { benchOneSide(b, "Query10") }

// BenchmarkStart measures start-up and shutdown of an HTTPS engine.
func BenchmarkStart(b *testing.B) {
	for range b.N {
		s, err := engine.Start(context.Background(), engine.Options{Protocol: "https"})
		if err != nil {
			b.Fatal(err)
		}
		_ = s.Close(context.Background())
	}
}

// BenchmarkPaired runs the ceiling, the engine and the bare ceiling in alternating rounds of 2,000
// operations (16 goroutines) and reports, for each workload:
//
//   - %-of-ceiling: the engine's rate as a share of the ceiling's (cannedServer), the median over
//     the rounds of each round's ratio; alternating rounds and the median keep the load of other
//     processes, which drifts during a run and bursts now and then, out of the ratio;
//
//   - %-of-bare: the same against bareServer;
//
//   - each side's operations per second over all rounds, and its CPU time (user + system, the
//     whole process) per operation, which the machine's load moves much less than the rates.
//
//     go test -run '^$' -bench Paired -benchtime 10x ./internal/engine/
func BenchmarkPaired(b *testing.B) {
	workloads := workloads()
	const round, workers = 2000, 16
	cpuTime := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	// run does one round; it returns the wall time and the process CPU time it took.
	run := func(c *azcosmos.ContainerClient, op func(*azcosmos.ContainerClient, int64) error) (wall, cpu time.Duration, err error) {
		var next atomic.Int64
		var firstErr atomic.Value
		var wg sync.WaitGroup
		cpu0, start := cpuTime(), time.Now()
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1)
					if i > round {
						return
					}
					if err := op(c, i); err != nil {
						firstErr.CompareAndSwap(nil, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		wall, cpu = time.Since(start), cpuTime()-cpu0
		if err, _ := firstErr.Load().(error); err != nil {
			return 0, 0, err
		}
		return wall, cpu, nil
	}
	median := func(x []float64) float64 {
		slices.Sort(x)
		if n := len(x); n%2 == 1 {
			return x[n/2]
		}
		return (x[len(x)/2-1] + x[len(x)/2]) / 2
	}
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) {
			type side struct {
				c          *azcosmos.ContainerClient
				wall, cpu  time.Duration
				roundWalls []time.Duration
			}
			sides := make([]*side, len(targets)) // bare, ceiling, engine
			for i, tg := range targets {
				c, stop := tg.open(b)
				defer stop()
				w.seed(c)
				sides[i] = &side{c: c}
			}
			for range b.N {
				for _, sd := range sides {
					wall, cpu, err := run(sd.c, w.op)
					if err != nil {
						b.Fatal(err)
					}
					sd.wall += wall
					sd.cpu += cpu
					sd.roundWalls = append(sd.roundWalls, wall)
				}
			}
			bare, ceil, eng := sides[0], sides[1], sides[2]
			ratios := func(base *side) []float64 {
				var r []float64
				for i := range eng.roundWalls {
					r = append(r, 100*base.roundWalls[i].Seconds()/eng.roundWalls[i].Seconds())
				}
				return r
			}
			ops := float64(b.N * round)
			b.ReportMetric(median(ratios(ceil)), "%-of-ceiling")
			b.ReportMetric(median(ratios(bare)), "%-of-bare")
			b.ReportMetric(ops/bare.wall.Seconds(), "bare-ops/s")
			b.ReportMetric(ops/ceil.wall.Seconds(), "ceiling-ops/s")
			b.ReportMetric(ops/eng.wall.Seconds(), "engine-ops/s")
			b.ReportMetric(float64(ceil.cpu.Microseconds())/ops, "ceiling-cpu-µs/op")
			b.ReportMetric(float64(eng.cpu.Microseconds())/ops, "engine-cpu-µs/op")
		})
	}
}

// handlerMeter sums the CPU time the engine's handler spends on query requests.
type handlerMeter struct {
	cpu     atomic.Int64 // nanoseconds
	queries atomic.Int64
}

// heldResponse keeps what a handler writes so that it reaches the connection only after the
// handler's CPU time is read: the copy into HTTP/2 frames, and the waits for the connection's
// writer, are the transport's work, which a canned server does as well.
type heldResponse struct {
	http.ResponseWriter
	status int
	body   [][]byte
}

func (h *heldResponse) WriteHeader(status int) {
	if h.status == 0 {
		h.status = status
	}
}

func (h *heldResponse) Write(p []byte) (int, error) {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	h.body = append(h.body, p)
	return len(p), nil
}

// meteredHandler serves h, timing the handler's own CPU on query requests while meter is set.
// The goroutine is kept on its thread while it runs, so the thread's CPU clock counts this
// request's work only: authentication, parsing, routing, the query, the headers and the envelope
// (and any collection its allocations are made to assist); not TLS, HTTP/2 or the SDK. Locking
// the thread costs a little when the handler blocks (its thread sleeps and another takes over);
// that cost does not depend on the data.
func meteredHandler(meter *atomic.Pointer[handlerMeter]) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			m := meter.Load()
			if m == nil || requestKind(r) != "query" {
				h.ServeHTTP(w, r)
				return
			}
			held := &heldResponse{ResponseWriter: w}
			runtime.LockOSThread()
			start := threadCPU()
			h.ServeHTTP(held, r)
			m.cpu.Add(int64(threadCPU() - start))
			runtime.UnlockOSThread()
			m.queries.Add(1)
			w.WriteHeader(held.status)
			for _, p := range held.body {
				w.Write(p)
			}
		})
	}
}

// orderDoc is a 1 KB item in the logical partition "p0" whose n takes 1,000 values, so that
// every ORDER BY key ties with the others of its value (as in sql's benchDocs).
func orderDoc(i int) []byte {
	id := fmt.Sprintf("i%06d", i)
	b, _ := json.Marshal(map[string]any{"id": id, "pk": "p0", "n": i % 1000, "pad": strings.Repeat("x", 1024-60)})
	return b
}

// loadOrderDocs creates n orderDocs in c through the SDK, 100 to a transactional batch (one
// logical partition), 8 batches at a time.
func loadOrderDocs(b *testing.B, c *azcosmos.ContainerClient, n int) {
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p0")
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(100)) - 100
				if lo >= n {
					return
				}
				batch := c.NewTransactionalBatch(pk)
				for i := lo; i < min(lo+100, n); i++ {
					batch.CreateItem(orderDoc(i), nil)
				}
				resp, err := c.ExecuteTransactionalBatch(ctx, batch, nil)
				if err == nil && !resp.Success {
					err = fmt.Errorf("batch at %d failed", lo)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}

// BenchmarkOrderByHTTPS measures ORDER BY as issue 17 did: the azcosmos SDK over HTTPS (HTTP/2) to
// engine.Start, 16 goroutines, 1 KB documents all in one logical partition, each query sent with
// that partition key as an application sends it, at 1,000, 10,000 and 100,000 documents. It
// reports the engine handler's CPU per query (meteredHandler: the thread CPU clock inside
// Server.ServeHTTP, the writes to the connection left out) at each size and its growth from 1k to
// 100k (the goal: at most 2×), and for scale the whole process's CPU per query (the SDK,
// TLS and HTTP/2 on both sides included; user + system from getrusage). The collector does not
// run during a batch (see below), so neither figure includes it.
//
// Each size has its own engine, all three running at once, and the measured batches alternate
// between the sizes (1k, 10k, 100k, 1k, …), so that the load other processes put on a shared
// machine, which drifts during a run, falls on every size alike; the growth is the median over
// the rounds of each round's 100k ÷ 1k. Each engine has two containers holding the same
// documents: "plain" has the default policy (every path, range indexes); "comp" adds the
// composite indexes (n DESC, id ASC) and (pk ASC, n DESC). A single-path ORDER BY is served by
// the range index with or without composites, so the composite case orders by two paths, which is
// what a composite index serves.
//
//   - top10: SELECT TOP 10 * FROM c ORDER BY c.n DESC (range index, plain);
//   - top10comp: SELECT TOP 10 * FROM c ORDER BY c.n DESC, c.id ASC (composite, comp);
//   - firstpage: the first page (default size, 100 items) of SELECT * FROM c ORDER BY c.n (plain);
//   - firstpage10: the same with a 10-item page (PageSizeHint 10);
//   - pktop10comp: SELECT TOP 10 * FROM c WHERE c.pk = @pk ORDER BY c.pk, c.n DESC, composite
//     (pk ASC, n DESC) (comp); the filtered partition key is first in the ORDER BY, as the
//     service needs to use the composite index (index-policy.md, "Queries with a filter and
//     ORDER BY"; ORDER BY c.n DESC alone sorts every document of the partition);
//   - eqlookup, inlookup, rangelookup: an indexed equality (1 item), IN (2) and BETWEEN (10) on
//     the id (issue 32: answered and charged from the value index, not a pass over the partition).
//
// Before its measured batches each query runs once at each size, which builds the ORDER BY index
// it walks, then one unmeasured batch; each figure is the median of 5 batches of 200 queries (CPU
// over the batch ÷ queries). docs-read is the documents the query loaded at 100k
// (retrievedDocumentCount in its query metrics): a page's or a TOP's worth when the query walks
// an index. The documents are loaded through the SDK in transactional batches of 100, 8 at a
// time. The sub-benchmarks only report; run it with -benchtime 1x (about 30 s):
//
//	go test -run '^$' -bench OrderByHTTPS -benchtime 1x ./internal/engine/
func BenchmarkOrderByHTTPS(b *testing.B) {
	if !threadCPUOK {
		b.Skip("needs a per-thread CPU clock (Linux)")
	}
	var meter atomic.Pointer[handlerMeter]
	defer engine.SetHandlerWrap(meteredHandler(&meter))()
	cpuTime := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	pkParam := []azcosmos.QueryParameter{{Name: "@pk", Value: "p0"}}
	cases := []struct {
		name, container, text string
		params                []azcosmos.QueryParameter
		pageSize              int32
		want                  int
	}{
		{"top10", "plain", "SELECT TOP 10 * FROM c ORDER BY c.n DESC", nil, 0, 10},
		{"top10comp", "comp", "SELECT TOP 10 * FROM c ORDER BY c.n DESC, c.id ASC", nil, 0, 10},
		{"firstpage", "plain", "SELECT * FROM c ORDER BY c.n", nil, 0, 100},
		{"firstpage10", "plain", "SELECT * FROM c ORDER BY c.n", nil, 10, 10},
		{"pktop10comp", "comp", "SELECT TOP 10 * FROM c WHERE c.pk = @pk ORDER BY c.pk, c.n DESC", pkParam, 0, 10},
		{"eqlookup", "plain", "SELECT * FROM c WHERE c.id = @id", []azcosmos.QueryParameter{{Name: "@id", Value: "i000500"}}, 0, 1},
		{"inlookup", "plain", "SELECT * FROM c WHERE c.id IN ('i000100', 'i000500')", nil, 0, 2},
		{"rangelookup", "plain", "SELECT * FROM c WHERE c.id BETWEEN 'i000100' AND 'i000109'", nil, 0, 10},
	}
	sizes := []int{1_000, 10_000, 100_000}
	const rounds, perBatch, workers = 5, 200, 16
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p0")
	median := func(x []float64) float64 {
		x = slices.Clone(x)
		slices.Sort(x)
		return x[len(x)/2]
	}
	// containers[size]["plain" or "comp"]
	containers := make([]map[string]*azcosmos.ContainerClient, len(sizes))
	for si, n := range sizes {
		s, err := engine.Start(ctx, engine.Options{Protocol: "https"})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close(ctx)
		client := sdkClient(b, s.URL(), s.Key(), s.TLSConfig(), nil)
		if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "bench"}, nil); err != nil {
			b.Fatal(err)
		}
		db, _ := client.NewDatabase("bench")
		containers[si] = map[string]*azcosmos.ContainerClient{}
		for _, name := range []string{"plain", "comp"} {
			pol := &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent, IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}}
			if name == "comp" {
				pol.CompositeIndexes = [][]azcosmos.CompositeIndex{
					{{Path: "/n", Order: azcosmos.CompositeIndexDescending}, {Path: "/id", Order: azcosmos.CompositeIndexAscending}},
					{{Path: "/pk", Order: azcosmos.CompositeIndexAscending}, {Path: "/n", Order: azcosmos.CompositeIndexDescending}},
				}
			}
			tp := azcosmos.NewManualThroughputProperties(400)
			if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: name,
				PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}, IndexingPolicy: pol},
				&azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
				b.Fatal(err)
			}
			c, _ := db.NewContainer(name)
			loadOrderDocs(b, c, n)
			containers[si][name] = c
		}
	}
	// The collector is off while a batch runs, and collects before each: a cycle over the heap
	// of every size's documents, running during some batches and not others, would charge its
	// assists to whichever queries ran then (tens of µs on a 100-item page), and a batch after
	// others with nothing collected in between would take fresh pages from the kernel (page
	// faults in the handler's system time), so the figures would depend on the order of the
	// batches. The collector's work is proportional to what the queries allocate, which the
	// handler's CPU includes.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	for range b.N {
		for _, cs := range cases {
			query := func(c *azcosmos.ContainerClient) (azcosmos.QueryItemsResponse, error) {
				page, err := c.NewQueryItemsPager(cs.text, pk, &azcosmos.QueryOptions{QueryParameters: cs.params, PageSizeHint: cs.pageSize}).NextPage(ctx)
				if err == nil && len(page.Items) != cs.want {
					err = fmt.Errorf("%s: %d items, want %d", cs.name, len(page.Items), cs.want)
				}
				return page, err
			}
			// batch runs perBatch queries on c and returns the handler's and the process's CPU
			// per query in µs.
			batch := func(c *azcosmos.ContainerClient) (handler, process float64) {
				m := &handlerMeter{}
				meter.Store(m)
				var next atomic.Int64
				var firstErr atomic.Value
				var wg sync.WaitGroup
				cpu0 := cpuTime()
				for range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for next.Add(1) <= perBatch {
							if _, err := query(c); err != nil {
								firstErr.CompareAndSwap(nil, err)
								return
							}
						}
					}()
				}
				wg.Wait()
				cpu := cpuTime() - cpu0
				meter.Store(nil)
				if err, _ := firstErr.Load().(error); err != nil {
					b.Fatal(err)
				}
				return float64(m.cpu.Load()) / 1e3 / float64(m.queries.Load()), float64(cpu.Nanoseconds()) / 1e3 / perBatch
			}
			read := make([]int, len(sizes)) // documents the query read (retrievedDocumentCount)
			for si := range sizes {
				c := containers[si][cs.container]
				page, err := query(c) // builds the ORDER BY index the query walks
				if err != nil {
					b.Fatal(err)
				}
				if page.QueryMetrics != nil {
					read[si] = retrievedDocs(*page.QueryMetrics)
				}
				batch(c) // warms the SDK's, the connection's and the caches' state
			}
			handler := make([][]float64, len(sizes)) // [size][round]
			process := make([][]float64, len(sizes))
			var growth []float64
			for range rounds {
				for si := range sizes {
					runtime.GC()
					h, p := batch(containers[si][cs.container])
					handler[si] = append(handler[si], h)
					process[si] = append(process[si], p)
				}
				growth = append(growth, handler[2][len(handler[2])-1]/handler[0][len(handler[0])-1])
			}
			b.Run(cs.name, func(b *testing.B) {
				b.ReportMetric(median(handler[0]), "handler-µs/q@1k")
				b.ReportMetric(median(handler[1]), "handler-µs/q@10k")
				b.ReportMetric(median(handler[2]), "handler-µs/q@100k")
				b.ReportMetric(median(growth), "handler-growth-1k→100k")
				b.ReportMetric(median(process[0]), "process-µs/q@1k")
				b.ReportMetric(median(process[2]), "process-µs/q@100k")
				b.ReportMetric(float64(read[2]), "docs-read/q@100k")
			})
		}
	}
}

// retrievedDocs reads retrievedDocumentCount from x-ms-documentdb-query-metrics.
func retrievedDocs(metrics string) int {
	for _, kv := range strings.Split(metrics, ";") {
		if v, ok := strings.CutPrefix(kv, "retrievedDocumentCount="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return -1
}
