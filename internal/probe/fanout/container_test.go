package fanout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// served starts the engine as `validate serve` does (HTTPS here) with n physical partitions per
// container and returns a container holding docs, reached through a plain azcosmos client.
func served(t *testing.T, n int, docs []map[string]any, hierarchical bool) *azcosmos.ContainerClient {
	t.Helper()
	s, err := engine.Start(context.Background(), engine.Options{Protocol: "https",
		Partitions: func(string, string, int) int { return n }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	cred, err := azcosmos.NewKeyCredential(s.Key())
	if err != nil {
		t.Fatal(err)
	}
	opts := &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{
		Transport: &http.Client{Transport: &http.Transport{TLSClientConfig: s.TLSConfig()}}}}
	client, err := azcosmos.NewClientWithKey(s.URL(), cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	pk := azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}
	if hierarchical {
		pk = azcosmos.PartitionKeyDefinition{Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2, Paths: []string{"/tenant", "/pk"}}
	}
	props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: pk,
		IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths:    []azcosmos.IncludedPath{{Path: "/*"}},
			CompositeIndexes: [][]azcosmos.CompositeIndex{{{Path: "/n", Order: azcosmos.CompositeIndexAscending}, {Path: "/id", Order: azcosmos.CompositeIndexAscending}}}}}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	for _, d := range docs {
		b, _ := json.Marshal(d)
		key := azcosmos.NewPartitionKeyString(d["pk"].(string))
		if hierarchical {
			key = azcosmos.NewPartitionKeyString(d["tenant"].(string)).AppendString(d["pk"].(string))
		}
		if _, err := c.CreateItem(ctx, key, b, nil); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func sampleDocs(n int) []map[string]any {
	var out []map[string]any
	for i := range n {
		d := map[string]any{"id": fmt.Sprintf("d%03d", i), "pk": fmt.Sprintf("p%02d", i%17), "tenant": fmt.Sprintf("t%d", i%3),
			"n": float64((i * 7) % 23), "cat": []string{"a", "b", "c"}[i%3], "ts": float64(1000 + i)}
		if i%5 == 0 {
			d["n"] = "five" // mixed types: SUM and AVG are undefined over them
		}
		if i%11 == 0 {
			delete(d, "n")
		}
		out = append(out, d)
	}
	return out
}

// TestContainerBackend runs the pipeline through azcosmos against the engine over HTTPS (the
// conformance of the pipeline with the gateway's formats): every supported shape, against the
// same query evaluated over all the documents in one partition.
func TestContainerBackend(t *testing.T) {
	docs := sampleDocs(90)
	c := served(t, 4, docs, false)
	pol, err := index.Compile(index.Policy{IndexingMode: "consistent", Automatic: true, IncludedPaths: []index.Path{{Path: "/*"}},
		CompositeIndexes: [][]index.CompositePath{{{Path: "/n", Order: "ascending"}, {Path: "/id", Order: "ascending"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var all []*sql.Document
	for _, d := range docs {
		all = append(all, &sql.Document{Body: d, Size: 64})
	}
	queries := []string{
		"SELECT c.id, c.n FROM c ORDER BY c.n DESC, c.id DESC",
		"SELECT TOP 7 c.id FROM c WHERE c.cat = 'b' ORDER BY c.ts DESC",
		"SELECT c.id FROM c ORDER BY c.ts OFFSET 10 LIMIT 15",
		"SELECT VALUE COUNT(1) FROM c",
		"SELECT VALUE SUM(c.n) FROM c",
		"SELECT VALUE SUM(c.n) FROM c WHERE IS_NUMBER(c.n)",
		"SELECT VALUE AVG(c.n) FROM c WHERE IS_NUMBER(c.n)",
		"SELECT VALUE MIN(c.n) FROM c",
		"SELECT VALUE MAX(c.n) FROM c WHERE c.pk = 'p03'",
		"SELECT VALUE MIN(c.n) FROM c WHERE c.pk = 'nobody'",
		"SELECT DISTINCT VALUE c.cat FROM c ORDER BY c.cat DESC",
		"SELECT c.cat, COUNT(1) AS cnt, MAX(c.ts) AS last FROM c GROUP BY c.cat",
		"SELECT VALUE c.id FROM c WHERE c.ts > @t ORDER BY c.ts",
	}
	for _, q := range queries {
		t.Run(q, func(t *testing.T) {
			res, err := Run(context.Background(), NewContainer(c), q, Options{PageSize: 4,
				Params: []azcosmos.QueryParameter{{Name: "@t", Value: 1080}}})
			if err != nil {
				t.Fatal(err)
			}
			pq, _ := sql.Parse(q)
			want, err := sql.Execute(pq, memSource(all), sql.Options{Params: map[string]any{"@t": 1080.0}, Policy: pol})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]string, len(res.Items))
			for i, it := range res.Items {
				got[i] = canonical(decode(it))
			}
			exp := make([]string, len(want.Items))
			for i, it := range want.Items {
				b, _ := json.Marshal(it)
				exp[i] = canonical(decode(b))
			}
			if strings.Contains(q, "GROUP BY") {
				sortStrings(got)
				sortStrings(exp)
			}
			if strings.Join(got, "\n") != strings.Join(exp, "\n") {
				t.Errorf("got  %v\nwant %v", got, exp)
			}
			sum := 0.0
			for _, r := range res.Ranges {
				sum += r.Charge
			}
			if res.Charge <= 0 || sum != res.Charge-res.PlanCharge {
				t.Errorf("charge %v, per range %+v", res.Charge, res.Ranges)
			}
		})
	}
	// A full partition key in WHERE pins one range.
	res, err := Run(context.Background(), NewContainer(c), "SELECT VALUE COUNT(1) FROM c WHERE c.pk = 'p05'", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ranges) != 1 || string(res.Items[0]) != "5" {
		t.Errorf("pinned COUNT: ranges %+v, items %s", res.Ranges, res.Items)
	}
}

// TestHierarchicalPrefix: "all posts of an author, newest first" on a prefix of a hierarchical
// key runs on the ranges that can hold the prefix, in order.
func TestHierarchicalPrefix(t *testing.T) {
	docs := sampleDocs(60)
	c := served(t, 8, docs, true)
	res, err := Run(context.Background(), NewContainer(c), "SELECT VALUE c.ts FROM c WHERE c.tenant = 't1' ORDER BY c.ts DESC", Options{PageSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 59; i >= 0; i-- {
		if i%3 == 1 {
			want = append(want, fmt.Sprint(1000+i))
		}
	}
	var got []string
	for _, it := range res.Items {
		got = append(got, string(it))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if len(res.Ranges) == 0 || len(res.Ranges) >= 8 {
		t.Errorf("a prefix should touch some but not all of 8 ranges: %+v", res.Ranges)
	}
}

// TestFanOutChargeGrowsByFloor: the same fan-out ORDER BY over 1, 4 and 16 physical partitions
// costs about the per-request query minimum more for each partition added (every range runs the
// query and pays its floor; cost.Current.QueryMin).
func TestFanOutChargeGrowsByFloor(t *testing.T) {
	docs := sampleDocs(48)
	charges := map[int]float64{}
	for _, n := range []int{1, 4, 16} {
		c := served(t, n, docs, false)
		res, err := Run(context.Background(), NewContainer(c), "SELECT c.id, c.ts FROM c ORDER BY c.ts DESC", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) != 48 || len(res.Ranges) != n {
			t.Fatalf("%d partitions: %d items over %d ranges", n, len(res.Items), len(res.Ranges))
		}
		charges[n] = res.Charge
	}
	// The service's figures for each physical partition whose index a query checks, written here as
	// published (not read from the rate card under test): "a minimum of about 2.5 RUs ... even if no
	// items in the physical partition match" (how-to-query-container.md) and "2-3 RU/s additional
	// charge for every physical partition" (partitioning-overview.md). A range's execution through
	// the pipeline is a whole single-partition query, so each partition added costs within 2-3 RU.
	const floor, ceil = 2.0, 3.0
	for _, step := range [][2]int{{1, 4}, {4, 16}} {
		per := (charges[step[1]] - charges[step[0]]) / float64(step[1]-step[0])
		t.Logf("%d → %d partitions: %.2f → %.2f RU, %.2f RU per partition added (%.2f–%.2f)", step[0], step[1], charges[step[0]], charges[step[1]], per, floor, ceil)
		if per < floor-0.1 || per > ceil+0.1 {
			t.Errorf("%d → %d partitions: %.2f RU per partition added, want %.2f–%.2f", step[0], step[1], per, floor, ceil)
		}
	}
}

// TestRefusals: what the service refuses across partitions stays refused through the pipeline.
func TestRefusals(t *testing.T) {
	c := served(t, 2, sampleDocs(10), false)
	for q, want := range map[string]string{
		"SELECT c.id FROM c ORDER BY c.cat, c.ts":               "composite index",
		"SELECT VALUE COUNT(1) + 1 FROM c":                      "only supports 'VALUE",
		"SELECT c.cat, COUNT(1) + 1 AS n FROM c GROUP BY c.cat": "root of a projection",
	} {
		_, err := Run(context.Background(), NewContainer(c), q, Options{})
		var re *azcore.ResponseError
		if err == nil || !errors.As(err, &re) || re.StatusCode != 400 || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want a 400 mentioning %q, got %v", q, want, err)
		}
	}
	// EnableCrossPartitionQuery false: a cross-partition query fails as on the service.
	off := false
	pager := c.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{EnableCrossPartitionQuery: &off})
	if _, err := pager.NextPage(context.Background()); err == nil || !strings.Contains(err.Error(), "Cross partition query is required but disabled") {
		t.Errorf("EnableCrossPartitionQuery false: got %v", err)
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
