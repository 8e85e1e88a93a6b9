package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmosdv/validate/internal/engine"
)

// statusOf is the HTTP status of an SDK call's outcome (-1 when it has none).
func statusOf(resp azcosmos.ItemResponse, err error) int {
	if err != nil {
		var re *azcore.ResponseError
		if !errors.As(err, &re) {
			return -1
		}
		return re.StatusCode
	}
	return resp.RawResponse.StatusCode
}

// TestGateways holds the routing gateway (the account's endpoint) and the compute gateway
// (Options.ComputeAddr) to the item addresses each serves, as the azcosmos emulator suite's
// TestItemIdEncodingRoutingGW and TestItemIdEncodingComputeGW have the service: every id is
// created (201) through either; reading it back through the routing gateway is 401 when its
// second decoding, a backslash, a '#' or trailing white space changes the link, and 400 for a
// control character; the compute gateway reads every one.
func TestGateways(t *testing.T) {
	ctx := context.Background()
	s, routing := start(t, engine.Options{ComputeAddr: "127.0.0.1:0"})
	if s.ComputeURL() == "" || s.ComputeURL() == s.URL() {
		t.Fatalf("compute gateway URL = %q (routing %q)", s.ComputeURL(), s.URL())
	}
	cred, _ := azcosmos.NewKeyCredential(s.Key())
	compute, err := azcosmos.NewClientWithKey(s.ComputeURL(), cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := routing.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "gw"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := routing.NewDatabase("gw")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	containers := map[string]*azcosmos.ContainerClient{}
	for name, cl := range map[string]*azcosmos.Client{"routing": routing, "compute": compute} {
		containers[name], _ = cl.NewContainer("gw", "c")
	}
	for _, tt := range []struct {
		id      string
		routing int // read, replace and delete through the routing gateway
	}{
		{"Test", 200},
		{" Test", 200},
		{"Test ", 401},
		{"Test\u00a0", 401},
		{"a%20", 401},
		{"a%E9%B1%80", 401},
		{"a?b", 200},
		{"a/b", 401},
		{`a\b`, 401},
		{"a#b", 401},
		{"a\tb", 400},
		{"a\nb", 400},
		{"鱀", 200},
	} {
		for _, gw := range []string{"routing", "compute"} {
			c := containers[gw]
			want := tt.routing
			if gw == "compute" {
				want = 200
			}
			pk := azcosmos.NewPartitionKeyString(tt.id)
			body, _ := json.Marshal(map[string]string{"id": tt.id, "pk": tt.id})
			if got := statusOf(c.CreateItem(ctx, pk, body, nil)); got != http.StatusCreated {
				t.Errorf("%s: create %q = %d, want 201", gw, tt.id, got)
			}
			if got := statusOf(c.ReadItem(ctx, pk, tt.id, nil)); got != want {
				t.Errorf("%s: read %q = %d, want %d", gw, tt.id, got, want)
			}
			if got := statusOf(c.ReplaceItem(ctx, pk, tt.id, body, nil)); got != want {
				t.Errorf("%s: replace %q = %d, want %d", gw, tt.id, got, want)
			}
			// The compute gateway cleans up what the routing gateway cannot address.
			if got := statusOf(containers["compute"].DeleteItem(ctx, pk, tt.id, nil)); got != http.StatusNoContent {
				t.Errorf("%s: delete %q through the compute gateway = %d, want 204", gw, tt.id, got)
			}
		}
	}
}

// TestCrossPartitionFullLastPage: a cross-partition page filled by its item count carries a
// continuation even when nothing follows, and the page after it is empty (azcosmos emulator suite,
// TestCrossPartitionQuery: 20 items, pages of 5, 5 pages); a single-partition query's last full
// page ends the query.
func TestCrossPartitionFullLastPage(t *testing.T) {
	ctx := context.Background()
	_, client := start(t, engine.Options{})
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "q"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("q")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	for i := range 10 {
		pk := fmt.Sprint(i % 2)
		body, _ := json.Marshal(map[string]string{"id": fmt.Sprint(i), "pk": pk})
		if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), body, nil); err != nil {
			t.Fatal(err)
		}
	}
	pages := func(pk azcosmos.PartitionKey) (sizes []int, ids []string) {
		p := c.NewQueryItemsPager("SELECT * FROM c", pk, &azcosmos.QueryOptions{PageSizeHint: 5})
		for p.More() {
			page, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, len(page.Items))
			for _, it := range page.Items {
				var m map[string]any
				_ = json.Unmarshal(it, &m)
				ids = append(ids, fmt.Sprint(m["id"]))
			}
		}
		return sizes, ids
	}
	sizes, ids := pages(azcosmos.NewPartitionKey())
	if fmt.Sprint(sizes) != "[5 5 0]" || fmt.Sprint(ids) != "[0 1 2 3 4 5 6 7 8 9]" {
		t.Errorf("cross-partition pages = %v, ids %v; want [5 5 0] in insertion order", sizes, ids)
	}
	if sizes, _ := pages(azcosmos.NewPartitionKeyString("0")); fmt.Sprint(sizes) != "[5]" {
		t.Errorf("single-partition pages = %v, want [5]", sizes)
	}
}
