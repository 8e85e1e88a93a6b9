package engine_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
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

// cannedServer answers every request the benchmarks make with a fixed response: the ceiling the
// SDK reaches on this machine.
func cannedServer(b *testing.B) (*azcosmos.Client, func()) {
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
		switch {
		case r.URL.Path == "/":
			fmt.Fprintf(w, `{"id":"x","writableLocations":[{"name":"local","databaseAccountEndpoint":"%s/"}],"readableLocations":[{"name":"local","databaseAccountEndpoint":"%s/"}],"userConsistencyPolicy":{"defaultConsistencyLevel":"Session"}}`, srv.URL, srv.URL)
		case r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), "application/query+json"):
			w.Write(page)
		case r.Method == http.MethodPost:
			w.WriteHeader(201)
			w.Write(item)
		default:
			w.Write(item)
		}
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	return sdkClient(b, srv.URL+"/", engine.EmulatorKey, &tls.Config{RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}), srv.Close
}

func sdkClient(b *testing.B, url, key string, tc *tls.Config) *azcosmos.Client {
	cred, _ := azcosmos.NewKeyCredential(key)
	tr := &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 64}
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
	client := sdkClient(b, s.URL(), s.Key(), s.TLSConfig())
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
	return c, func() { _ = s.Close(context.Background()) }
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

var targets = []target{{"ceiling", cannedContainer}, {"engine", engineClient}}

// BenchmarkCreate measures 1 KB creates through the SDK over HTTPS, 16 goroutines.
func BenchmarkCreate(b *testing.B) {
	for _, tg := range targets {
		b.Run(tg.name, func(b *testing.B) {
			c, stop := tg.open(b)
			defer stop()
			var n atomic.Int64
			b.SetParallelism(16 / runtime.GOMAXPROCS(0))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					pk := fmt.Sprintf("p%d", i%64)
					if _, err := c.CreateItem(context.Background(), azcosmos.NewPartitionKeyString(pk), oneKB(fmt.Sprintf("i%d", i), pk), nil); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkPointRead measures 1 KB point reads, 16 goroutines.
func BenchmarkPointRead(b *testing.B) {
	for _, tg := range targets {
		b.Run(tg.name, func(b *testing.B) {
			c, stop := tg.open(b)
			defer stop()
			ctx := context.Background()
			for i := range 1000 {
				pk := fmt.Sprintf("p%d", i%64)
				_, _ = c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), oneKB(fmt.Sprintf("i%d", i), pk), nil)
			}
			var n atomic.Int64
			b.SetParallelism(16 / runtime.GOMAXPROCS(0))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1) % 1000
					if _, err := c.ReadItem(ctx, azcosmos.NewPartitionKeyString(fmt.Sprintf("p%d", i%64)), fmt.Sprintf("i%d", i), nil); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkQuery10 measures single-partition queries returning 10 items of 1 KB, 16 goroutines.
func BenchmarkQuery10(b *testing.B) {
	for _, tg := range targets {
		b.Run(tg.name, func(b *testing.B) {
			c, stop := tg.open(b)
			defer stop()
			ctx := context.Background()
			for i := range 640 {
				pk := fmt.Sprintf("p%d", i%64)
				_, _ = c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), oneKB(fmt.Sprintf("i%d", i), pk), nil)
			}
			probe := c.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKeyString("p1"), nil)
			if _, err := probe.NextPage(ctx); err != nil {
				b.Skipf("query not available: %v", err)
			}
			var n atomic.Int64
			b.SetParallelism(16 / runtime.GOMAXPROCS(0))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					p := c.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKeyString(fmt.Sprintf("p%d", i%64)), nil)
					page, err := p.NextPage(ctx)
					if err != nil || len(page.Items) != 10 {
						b.Errorf("query: %d items, %v", len(page.Items), err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

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

// BenchmarkPaired runs the ceiling and the engine in alternating rounds of 2,000 operations (16
// goroutines) and reports both rates and their ratio. Alternating makes the ratio robust against
// the load of other processes drifting during a run, which separate benchmarks are not.
//
//	go test -run '^$' -bench Paired -benchtime 5x ./internal/engine/
func BenchmarkPaired(b *testing.B) {
	type workload struct {
		name string
		seed func(c *azcosmos.ContainerClient)
		op   func(c *azcosmos.ContainerClient, i int64) error
	}
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
	workloads := []workload{
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
	const round, workers = 2000, 16
	run := func(c *azcosmos.ContainerClient, op func(*azcosmos.ContainerClient, int64) error) (time.Duration, error) {
		var next atomic.Int64
		var firstErr atomic.Value
		var wg sync.WaitGroup
		start := time.Now()
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
		if err, _ := firstErr.Load().(error); err != nil {
			return 0, err
		}
		return time.Since(start), nil
	}
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) {
			ceil, stopCeil := cannedContainer(b)
			defer stopCeil()
			eng, stopEng := engineClient(b)
			defer stopEng()
			w.seed(eng)
			var tCeil, tEng time.Duration
			for range b.N {
				d, err := run(ceil, w.op)
				if err != nil {
					b.Fatal(err)
				}
				tCeil += d
				if d, err = run(eng, w.op); err != nil {
					b.Fatal(err)
				}
				tEng += d
			}
			ops := float64(b.N * round)
			b.ReportMetric(ops/tCeil.Seconds(), "ceiling-ops/s")
			b.ReportMetric(ops/tEng.Seconds(), "engine-ops/s")
			b.ReportMetric(100*tCeil.Seconds()/tEng.Seconds(), "%-of-ceiling")
		})
	}
}
