package enginetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// testPaging checks paging as the service pages: across partitions every page holds at most the
// items asked for, a continuation token resumes exactly where the last page stopped (in a new
// pager, as a stateless web tier resumes), ORDER BY keeps its order across pages, and a page stops
// at 4 MB however many items were asked for.
func testPaging(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient) {
	c := createContainer(ctx, t, db, azcosmos.ContainerProperties{ID: "paging",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}, 24000)
	for i := range 60 {
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("i%02d", i), "pk": fmt.Sprintf("p%d", i%12), "n": i})
		if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(fmt.Sprintf("p%d", i%12)), b, nil); err != nil {
			t.Fatalf("create: %v", err)
		}
	}
	type page struct {
		ids  []string
		cont *string
	}
	read := func(query string, pk azcosmos.PartitionKey, size int32, cont *string, maxPages int) []page {
		t.Helper()
		pager := c.NewQueryItemsPager(query, pk, &azcosmos.QueryOptions{PageSizeHint: size, ContinuationToken: cont})
		var out []page
		for pager.More() && (maxPages == 0 || len(out) < maxPages) {
			r, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			var p page
			for _, it := range r.Items {
				var m struct {
					ID string `json:"id"`
				}
				_ = json.Unmarshal(it, &m)
				p.ids = append(p.ids, m.ID)
			}
			p.cont = r.ContinuationToken
			out = append(out, p)
		}
		return out
	}
	flat := func(ps []page) []string {
		var ids []string
		for _, p := range ps {
			ids = append(ids, p.ids...)
		}
		return ids
	}
	want := make([]string, 60)
	for i := range want {
		want[i] = fmt.Sprintf("i%02d", i)
	}
	sorted := func(ids []string) string {
		s := append([]string(nil), ids...)
		sort.Strings(s)
		return strings.Join(s, ",")
	}

	// Across partitions, 7 at a time.
	all := read("SELECT c.id FROM c", azcosmos.NewPartitionKey(), 7, nil, 0)
	for i, p := range all {
		if len(p.ids) > 7 {
			t.Errorf("cross-partition page %d holds %d items, asked for at most 7", i, len(p.ids))
		}
	}
	if got := flat(all); sorted(got) != strings.Join(want, ",") || len(got) != 60 {
		t.Errorf("cross-partition pages: %d items %v, want i00..i59 once each", len(got), got)
	}
	// Resume from the third page's token in a new pager.
	head := read("SELECT c.id FROM c", azcosmos.NewPartitionKey(), 7, nil, 3)
	if len(head) < 3 || head[2].cont == nil {
		t.Fatalf("three pages with a continuation expected, got %d", len(head))
	}
	rest := read("SELECT c.id FROM c", azcosmos.NewPartitionKey(), 7, head[2].cont, 0)
	if got := append(flat(head), flat(rest)...); strings.Join(got, ",") != strings.Join(flat(all), ",") {
		t.Errorf("resumed from a token: %v, want the uninterrupted order %v", got, flat(all))
	}

	// One partition, ordered, 2 at a time, resumed midway.
	pk := azcosmos.NewPartitionKeyString("p3")
	q := "SELECT c.id FROM c ORDER BY c.n DESC"
	first := read(q, pk, 2, nil, 1)
	if len(first) != 1 || len(first[0].ids) != 2 || first[0].cont == nil {
		t.Fatalf("first ordered page: %+v", first)
	}
	later := read(q, pk, 2, first[0].cont, 0)
	if got := strings.Join(append(first[0].ids, flat(later)...), ","); got != "i51,i39,i27,i15,i03" {
		t.Errorf("ordered pages resumed: %s, want i51,i39,i27,i15,i03", got)
	}
	for _, p := range later {
		if len(p.ids) > 2 {
			t.Errorf("an ordered page of %d items, asked for 2", len(p.ids))
		}
	}

	// A page stops at 4 MB: three 1.5 MB items cannot come back in one page.
	big := strings.Repeat("x", 1500*1024)
	for i := range 3 {
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("big%d", i), "pk": "big", "blob": big})
		if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString("big"), b, nil); err != nil {
			t.Fatalf("create big: %v", err)
		}
	}
	pages := read("SELECT * FROM c", azcosmos.NewPartitionKeyString("big"), -1, nil, 0)
	if got := flat(pages); len(got) != 3 {
		t.Errorf("big items: %d, want 3", len(got))
	}
	for i, p := range pages {
		if len(p.ids) > 2 {
			t.Errorf("page %d holds %d items of 1.5 MB: more than 4 MB", i, len(p.ids))
		}
	}
}
