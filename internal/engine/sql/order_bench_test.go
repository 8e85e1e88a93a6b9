package sql

import (
	"fmt"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/cosmosdv/validate/internal/engine/index"
)

// cpuNow is the process's CPU time so far (user + system, every thread: the collector's included).
func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkOrderByGrowth measures the CPU one execution takes at 1,000, 10,000 and 100,000
// documents of about 1 KB in one partition, and reports it with its growth from 1k to 100k
// (issue 17: the goal for ORDER BY is at most 2×; a scan of an excluded path grows linearly, 100×).
// Each figure is the median of 5 batches (of about 20 ms of CPU each), each batch CPU time ÷ executions, so that other work on a
// shared machine moves it less than wall time would; each size has only its own documents in
// the heap. Read the reported metrics, not ns/op (the sub-benchmarks only report). Run it with
// -benchtime 1x.
//
//   - top10: SELECT TOP 10 … ORDER BY, the index-order query an SDK pages;
//   - firstpage: the first page (100 items, the service's default) of ORDER BY without TOP;
//   - excludedscan: an equality on a path the policy excludes, a full scan;
//   - eqtop10: TOP 10 with an equality filter (a third of the documents) served with the ORDER BY
//     by a composite index (status ASC, n DESC): a walk from the equality's prefix; the filtered
//     path is first in the ORDER BY too (ORDER BY c.status, c.n DESC), as the service needs to use
//     the composite index (index-policy.md, "Queries with a filter and ORDER BY"; without it the
//     query sorts every match);
//   - lpktop10: TOP 10 in one logical partition (every document's pk is "k1") with the equality on
//     the partition key and a composite index (pk ASC, n DESC), the common single-partition ORDER
//     BY, written ORDER BY c.pk, c.n DESC likewise;
//   - eqlookup: SELECT * with an indexed equality that 10 documents match (issue 32: the lookup's
//     charge once counted index entries over every document of the partition);
//   - inlookup: the same with IN of two values (20 documents);
//   - rangelookup: BETWEEN over a unique number, 10 documents;
//   - lpkeqlookup: the equality beside the partition key's (every document matches that one).
//
// The source keeps its ORDER BY indexes and its value indexes as the engine's does (an OrderIndex
// per order, a ValueIndex per path, built on first use): one execution of each query before the
// measured batches builds them, as the first query of a container does in the engine.
var benchParams = map[string]any{"@k": "k1", "@v": "v7", "@lo": float64(500), "@hi": float64(509)}

// benchSource is an orderedSource that answers value lookups as the engine's partitions do.
type benchSource struct {
	*orderedSource
	*valueSource
}

func (s benchSource) Scan(fn func(d *Document) bool) { s.orderedSource.Scan(fn) }
func (s benchSource) Len() int                       { return s.orderedSource.Len() }

var (
	_ ValueSource   = benchSource{}
	_ OrderedSource = benchSource{}
)

func BenchmarkOrderByGrowth(b *testing.B) {
	excl, err := index.Compile(index.Policy{IncludedPaths: []index.Path{{Path: "/*"}}, ExcludedPaths: []index.Path{{Path: "/status/?"}}})
	if err != nil {
		b.Fatal(err)
	}
	comp, err := index.Compile(index.Policy{IncludedPaths: []index.Path{{Path: "/*"}}, CompositeIndexes: [][]index.CompositePath{
		{{Path: "/status", Order: "ascending"}, {Path: "/n", Order: "descending"}},
		{{Path: "/pk", Order: "ascending"}, {Path: "/n", Order: "descending"}},
	}})
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name, text string
		pol        *index.Compiled
		page       *Page
	}{
		{"top10", "SELECT TOP 10 * FROM c ORDER BY c.n DESC", nil, nil},
		{"firstpage", "SELECT * FROM c ORDER BY c.n", nil, &Page{Size: 100, MaxBytes: 4 << 20}},
		{"excludedscan", "SELECT VALUE c.id FROM c WHERE c.status = 'held'", excl, nil},
		{"eqtop10", "SELECT TOP 10 * FROM c WHERE c.status = 'held' ORDER BY c.status, c.n DESC", comp, nil},
		{"lpktop10", "SELECT TOP 10 * FROM c WHERE c.pk = @k ORDER BY c.pk, c.n DESC", comp, nil},
		{"eqlookup", "SELECT * FROM c WHERE c.k = @v", nil, nil},
		{"inlookup", "SELECT * FROM c WHERE c.k IN ('v3', @v)", nil, nil},
		{"rangelookup", "SELECT * FROM c WHERE c.r BETWEEN @lo AND @hi", nil, nil},
		{"lpkeqlookup", "SELECT * FROM c WHERE c.pk = @k AND c.k = @v", nil, nil},
	}
	queries := make([]*Query, len(cases))
	for i, c := range cases {
		if queries[i], err = Parse(c.text); err != nil {
			b.Fatal(err)
		}
	}
	sizes := []int{1_000, 10_000, 100_000}
	for range b.N {
		// per[case][size]. Each size has only its own documents in the heap, so the collector's
		// work at 1k is that of 1k documents.
		per := make([][]time.Duration, len(cases))
		for i := range per {
			per[i] = make([]time.Duration, len(sizes))
		}
		for si, n := range sizes {
			docs := benchDocs(b, n)
			for i, d := range docs {
				d.Body["pk"] = "k1" // one logical partition: the source is its documents
				d.Body["k"] = fmt.Sprintf("v%d", i/10)
				d.Body["r"] = float64(i)
			}
			src := benchSource{newOrderedSource(docs), newValueSource(docs, nil)}
			for ci, c := range cases { // builds the ORDER BY indexes
				if _, err := Execute(queries[ci], src, Options{Policy: c.pol, Page: c.page, Params: benchParams}); err != nil {
					b.Fatal(err)
				}
			}
			runtime.GC()
			for ci, c := range cases {
				// Enough executions for a batch of about 20 ms of CPU, so that the clock's
				// resolution does not decide a figure of a few microseconds.
				reps := 2
				for {
					start := cpuNow()
					for range reps {
						if _, err := Execute(queries[ci], src, Options{Policy: c.pol, Page: c.page, Params: benchParams}); err != nil {
							b.Fatal(err)
						}
					}
					if cpuNow()-start >= 20*time.Millisecond || reps >= 1<<20 {
						break
					}
					reps *= 2
				}
				var batches []time.Duration
				for range 5 {
					start := cpuNow()
					for range reps {
						if _, err := Execute(queries[ci], src, Options{Policy: c.pol, Page: c.page, Params: benchParams}); err != nil {
							b.Fatal(err)
						}
					}
					batches = append(batches, (cpuNow()-start)/time.Duration(reps))
				}
				slices.Sort(batches)
				per[ci][si] = batches[len(batches)/2]
			}
		}
		for ci, c := range cases {
			b.Run(c.name, func(b *testing.B) {
				p := per[ci]
				b.ReportMetric(float64(p[0].Nanoseconds())/1e3, "µs-cpu/q@1k")
				b.ReportMetric(float64(p[1].Nanoseconds())/1e3, "µs-cpu/q@10k")
				b.ReportMetric(float64(p[2].Nanoseconds())/1e3, "µs-cpu/q@100k")
				b.ReportMetric(float64(p[2])/float64(max(p[0], 1)), "growth-1k→100k")
			})
		}
	}
}
