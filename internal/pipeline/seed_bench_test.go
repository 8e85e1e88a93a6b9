package pipeline

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/provision"
	"github.com/cosmosdv/validate/internal/sdk"
	"github.com/cosmosdv/validate/internal/seed"
)

// loadBenchDesign is the seeding benchmarks' design: smallDesign's first container, 2,000 users and
// their 1-4 orders each, 1 KB per document, no access patterns; and its compiled seed plan.
func loadBenchDesign(b *testing.B) (*design.Design, *seed.Plan) {
	b.Helper()
	d := smallDesign()
	d.Containers = d.Containers[:1]
	d.Containers[0].Documents[0].Count = 2000 // plus 1-4 orders each
	d.Containers[0].Documents[0].TargetBytes = 1024
	d.Containers[0].Documents[1].TargetBytes = 1024
	d.AccessPatterns = nil
	plan, err := seed.Compile(d, 1)
	if err != nil {
		b.Fatal(err)
	}
	return d, plan
}

// BenchmarkSeedCeiling compares seeding (seed.Load: generation, writes, the count that verifies
// them) with the SDK's create ceiling on the same embedded engine, in alternating rounds of the same
// documents (a design of users and their orders, 1 KB each):
//
//   - the ceiling: the documents generated beforehand, then written with CreateItem from 16
//     goroutines into a fresh container, nothing else;
//   - seeding: seed.Load with its default options into another fresh container.
//
// It reports seed/ceiling, the median over the rounds of each round's ratio of rates (the load of
// other processes drifts during a run; alternating rounds keep it out of each ratio), and each
// side's documents per second over all rounds.
//
//	go test -run '^$' -bench SeedCeiling -benchtime 6x ./internal/pipeline/
func BenchmarkSeedCeiling(b *testing.B) {
	client := startEngine(b)
	ctx := context.Background()
	d, plan := loadBenchDesign(b)
	var docs []*seed.Doc
	if err := plan.Walk(ctx, func(doc *seed.Doc) error { docs = append(docs, doc); return nil }); err != nil {
		b.Fatal(err)
	}
	var ratios []float64
	var seedDocs, ceilDocs int
	var seedTime, ceilTime time.Duration
	round := 0
	fresh := func() map[string]*azcosmos.ContainerClient {
		round++
		prov, err := provision.Provision(ctx, client, d, provision.Options{Database: fmt.Sprintf("seedbench%d", round)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = prov.Teardown(context.Background()) })
		return prov.Containers
	}
	for b.Loop() {
		cs := fresh()
		t0 := time.Now()
		createAll(b, cs[d.Containers[0].Name], docs, 16)
		ct := time.Since(t0)

		cs = fresh()
		t0 = time.Now()
		res, err := seed.Load(ctx, plan, cs, seed.Options{})
		st := time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, s := range res.Stats {
			n += s.Documents
		}
		if n != len(docs) || len(res.Findings) > 0 {
			b.Fatalf("seeded %d of %d documents; findings %v", n, len(docs), res.Findings)
		}
		ceilDocs += len(docs)
		seedDocs += n
		ceilTime += ct
		seedTime += st
		ratios = append(ratios, (float64(n)/st.Seconds())/(float64(len(docs))/ct.Seconds()))
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "seed/ceiling")
	b.ReportMetric(float64(seedDocs)/seedTime.Seconds(), "seed-docs/s")
	b.ReportMetric(float64(ceilDocs)/ceilTime.Seconds(), "ceiling-docs/s")
	b.ReportMetric(0, "ns/op")
}

// createAll writes docs with CreateItem from conc goroutines.
func createAll(b *testing.B, c *azcosmos.ContainerClient, docs []*seed.Doc, conc int) {
	var wg sync.WaitGroup
	next := make(chan *seed.Doc, conc*4)
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for doc := range next {
				if _, err := c.CreateItem(context.Background(), sdk.PartitionKey(doc.PK), doc.Body, nil); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	for _, doc := range docs {
		next <- doc
	}
	close(next)
	wg.Wait()
}
