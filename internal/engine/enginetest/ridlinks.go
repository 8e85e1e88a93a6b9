package enginetest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	azpolicy "github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// ridAddress is the context value that makes ridPolicy send a request to a resource-id address.
type ridAddress struct {
	match  string // the SDK's name-based path to readdress; other requests pass unchanged
	path   string // the path to send instead of the SDK's name-based one
	signed string // the resource id to sign over; "" keeps the SDK's signature
}

type ridKey struct{}

// ridPolicy readdresses a request, as older SDKs and tools address resources: by resource id.
// It runs after the SDK's own signing policy and signs again with the master key over the rid.
type ridPolicy struct{ key []byte }

func (p ridPolicy) Do(req *azpolicy.Request) (*http.Response, error) {
	a, ok := req.Raw().Context().Value(ridKey{}).(ridAddress)
	if !ok || strings.Trim(req.Raw().URL.Path, "/") != a.match {
		return req.Next()
	}
	u := *req.Raw().URL
	u.Path, u.RawPath = a.path, ""
	req.Raw().URL = &u
	if a.signed != "" {
		h := req.Raw().Header
		rtype := ridResourceType(a.path)
		mac := hmac.New(sha256.New, p.key)
		mac.Write([]byte(strings.ToLower(req.Raw().Method) + "\n" + rtype + "\n" + strings.ToLower(a.signed) + "\n" +
			strings.ToLower(h.Get("x-ms-date")) + "\n\n"))
		h.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+base64.StdEncoding.EncodeToString(mac.Sum(nil))))
	}
	return req.Next()
}

// ridResourceType is the resource type of an address: its last segment for a feed, the one before
// it for a resource.
func ridResourceType(path string) string {
	var segs []string
	for _, s := range strings.Split(path, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	if len(segs)%2 == 1 {
		return segs[len(segs)-1]
	}
	return segs[len(segs)-2]
}

// testRIDLinks addresses a container and an item by their resource ids (the _self links the
// service returns), with a doubled slash as joined links carry, for reads and a query; a request
// signed over the name while addressed by rid is refused.
func testRIDLinks(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient, o Options) {
	if o.NewClient == nil || o.Key == "" {
		t.Skip("no key to sign resource-id requests with")
	}
	key, err := base64.StdEncoding.DecodeString(o.Key)
	if err != nil {
		t.Fatalf("key: %v", err)
	}
	c := createContainer(ctx, t, db, azcosmos.ContainerProperties{ID: "ridlinks",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}, 0)
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := c.CreateItem(ctx, pk, []byte(`{"id":"a b","pk":"p","n":1}`), nil); err != nil {
		t.Fatalf("create: %v", err)
	}
	r, err := c.ReadItem(ctx, pk, "a b", nil)
	if err != nil {
		t.Fatalf("read by name: %v", err)
	}
	var item struct {
		Self string `json:"_self"`
	}
	_ = json.Unmarshal(r.Value, &item)
	segs := strings.Split(strings.Trim(item.Self, "/"), "/")
	if len(segs) != 6 || segs[0] != "dbs" || segs[2] != "colls" || segs[4] != "docs" {
		t.Fatalf("item _self %q: want dbs/{rid}/colls/{rid}/docs/{rid}/", item.Self)
	}
	dbRID, collRID, docRID := segs[1], segs[3], segs[5]

	client, err := o.NewClient(ridPolicy{key: key})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	dbID := dbIDOf(t, ctx, db)
	rc, _ := client.NewContainer(dbID, "ridlinks")
	byName := "dbs/" + dbID + "/colls/ridlinks"
	at := func(match, path, signed string) context.Context {
		return context.WithValue(ctx, ridKey{}, ridAddress{match: match, path: path, signed: signed})
	}

	got, err := rc.ReadItem(at(byName+"/docs/a b", "/dbs/"+dbRID+"//colls/"+collRID+"/docs/"+docRID+"/", docRID), pk, "a b", nil)
	if err != nil {
		t.Fatalf("read the item by its _self link: %v", err)
	}
	var m map[string]any
	_ = json.Unmarshal(got.Value, &m)
	if m["id"] != "a b" || m["n"] != float64(1) {
		t.Errorf("read by rid: %v", m)
	}
	cr, err := rc.Read(at(byName, "/dbs/"+dbRID+"/colls/"+collRID, collRID), nil)
	if err != nil || cr.ContainerProperties.ID != "ridlinks" {
		t.Errorf("read the container by rid: %v", err)
	}
	pager := rc.NewQueryItemsPager("SELECT c.id FROM c", pk, nil)
	n := 0
	for pager.More() {
		page, err := pager.NextPage(at(byName+"/docs", "/dbs/"+dbRID+"/colls/"+collRID+"/docs", collRID))
		if err != nil {
			t.Fatalf("query by rid: %v", err)
		}
		n += len(page.Items)
	}
	if n != 1 {
		t.Errorf("query by rid: %d items, want 1", n)
	}
	_, err = rc.ReadItem(at(byName+"/docs/a b", "/dbs/"+dbRID+"/colls/"+collRID+"/docs/"+docRID, ""), pk, "a b", nil)
	wantStatus(t, "rid address signed over the name", err, http.StatusUnauthorized)
}

func dbIDOf(t *testing.T, ctx context.Context, db *azcosmos.DatabaseClient) string {
	t.Helper()
	r, err := db.Read(ctx, nil)
	if err != nil {
		t.Fatalf("read database: %v", err)
	}
	return r.DatabaseProperties.ID
}
