package engine_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmosdv/validate/internal/engine"
)

// The change feed keeps the order of last writes across a restart with --persist.
func TestChangeFeed_OrderSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snap.json")
	ctx := context.Background()
	feed := func(client *azcosmos.Client) string {
		t.Helper()
		c, _ := client.NewContainer("db", "c")
		whole := azcosmos.FeedRange{MinInclusive: "", MaxExclusive: "FF"}
		r, err := c.ReadChangeFeed(ctx, &azcosmos.ChangeFeedOptions{FeedRange: &whole})
		if err != nil {
			t.Fatalf("change feed: %v", err)
		}
		var ids []string
		for _, it := range r.Items {
			var m struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(it, &m)
			ids = append(ids, m.ID)
		}
		return strings.Join(ids, ",")
	}
	s, client := start(t, engine.Options{PersistPath: path})
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	pk := azcosmos.NewPartitionKeyString("p")
	for _, body := range []string{`{"id":"a","pk":"p"}`, `{"id":"b","pk":"p"}`, `{"id":"a","pk":"p","v":2}`} {
		if _, err := c.UpsertItem(ctx, pk, []byte(body), nil); err != nil {
			t.Fatal(err)
		}
	}
	if got := feed(client); got != "b,a" {
		t.Fatalf("before the restart: %s, want b,a", got)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, client2 := start(t, engine.Options{PersistPath: path})
	if got := feed(client2); got != "b,a" {
		t.Errorf("after the restart: %s, want b,a (the order of last writes)", got)
	}
}
