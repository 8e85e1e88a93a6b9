package enginetest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// testChangeFeed exercises the latest-version change feed as azcosmos v1.5.0 reads it: feed
// ranges, the whole container and each range from the beginning, composite continuations that
// resume exactly, 304 when nothing changed, page sizes, a point in time and one logical partition.
func testChangeFeed(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient) {
	c := createContainer(ctx, t, db, azcosmos.ContainerProperties{ID: "feed",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}, 12000)
	put := func(id, pk string, n int) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"id": id, "pk": pk, "n": n})
		if _, err := c.UpsertItem(ctx, azcosmos.NewPartitionKeyString(pk), b, nil); err != nil {
			t.Fatalf("upsert %s: %v", id, err)
		}
	}
	for i := range 10 {
		put(fmt.Sprintf("f%d", i), fmt.Sprintf("p%d", i%4), i)
	}
	ranges, err := c.ReadFeedRanges(ctx, nil)
	if err != nil || len(ranges) == 0 {
		t.Fatalf("read feed ranges: %v (%d ranges)", err, len(ranges))
	}
	whole := azcosmos.FeedRange{MinInclusive: "", MaxExclusive: "FF"}

	// drain reads pages until one comes back empty; it returns the items (id → n) in order, the
	// page sizes, and the continuation to resume from.
	type change struct {
		id string
		n  int
	}
	drain := func(o azcosmos.ChangeFeedOptions) ([]change, []int, string) {
		t.Helper()
		var got []change
		var sizes []int
		for range 100 {
			r, err := c.ReadChangeFeed(ctx, &o)
			if err != nil {
				t.Fatalf("read change feed: %v", err)
			}
			if r.ContinuationToken != "" {
				tok := r.ContinuationToken
				o.Continuation, o.FeedRange = &tok, nil
			}
			if len(r.Items) == 0 {
				if r.RawResponse == nil || r.RawResponse.StatusCode != http.StatusNotModified {
					t.Errorf("an empty change-feed page: status %v, want 304", r.RawResponse)
				}
				return got, sizes, tok(o.Continuation)
			}
			sizes = append(sizes, len(r.Items))
			for _, it := range r.Items {
				var m struct {
					ID string `json:"id"`
					N  int    `json:"n"`
				}
				_ = json.Unmarshal(it, &m)
				got = append(got, change{m.ID, m.N})
			}
		}
		t.Fatalf("the change feed never drained")
		return nil, nil, ""
	}
	ids := func(cs []change) []string {
		out := make([]string, len(cs))
		for i, x := range cs {
			out[i] = x.id
		}
		sort.Strings(out)
		return out
	}

	all, sizes, cont := drain(azcosmos.ChangeFeedOptions{FeedRange: &whole, MaxItemCount: 3})
	if got := ids(all); fmt.Sprint(got) != "[f0 f1 f2 f3 f4 f5 f6 f7 f8 f9]" {
		t.Errorf("whole container from the beginning: %v, want f0..f9 once each", got)
	}
	for _, n := range sizes {
		if n > 3 {
			t.Errorf("a change-feed page of %d items, asked for at most 3", n)
		}
	}

	// Resume: a replace and a create appear once each, the replace in its latest version; a delete
	// does not appear.
	put("f2", "p2", 102)
	put("f10", "p2", 10)
	if _, err := c.DeleteItem(ctx, azcosmos.NewPartitionKeyString("p3"), "f3", nil); err != nil {
		t.Fatalf("delete: %v", err)
	}
	more, _, cont2 := drain(azcosmos.ChangeFeedOptions{Continuation: &cont, MaxItemCount: 1})
	if fmt.Sprint(more) != "[{f2 102} {f10 10}]" {
		t.Errorf("changes after the continuation: %v, want [{f2 102} {f10 10}] in write order", more)
	}
	if again, _, _ := drain(azcosmos.ChangeFeedOptions{Continuation: &cont2}); len(again) != 0 {
		t.Errorf("nothing changed, yet the feed returned %v", again)
	}

	// Each range from the beginning: together, every current item exactly once.
	var union []change
	for _, fr := range ranges {
		got, _, _ := drain(azcosmos.ChangeFeedOptions{FeedRange: &fr})
		union = append(union, got...)
	}
	if got := ids(union); fmt.Sprint(got) != "[f0 f1 f10 f2 f4 f5 f6 f7 f8 f9]" {
		t.Errorf("the feed ranges together: %v, want every current item once", got)
	}

	// A point in time: the past gives everything, the future nothing.
	past, future := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	if got, _, _ := drain(azcosmos.ChangeFeedOptions{FeedRange: &whole, StartFrom: &past}); len(got) != 10 {
		t.Errorf("from an hour ago: %d items, want 10", len(got))
	}
	if got, _, _ := drain(azcosmos.ChangeFeedOptions{FeedRange: &whole, StartFrom: &future}); len(got) != 0 {
		t.Errorf("from an hour ahead: %v, want nothing", got)
	}

	// One logical partition.
	pk := azcosmos.NewPartitionKeyString("p2")
	got, _, _ := drain(azcosmos.ChangeFeedOptions{FeedRange: &whole, PartitionKey: &pk})
	if fmt.Sprint(ids(got)) != "[f10 f2 f6]" {
		t.Errorf("the feed of key p2: %v, want f10 f2 f6", ids(got))
	}
}

func tok(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
