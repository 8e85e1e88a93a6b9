package engine

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// clock is an injectable time source for Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// startEngine starts a server and returns it with an SDK client.
func startEngine(t *testing.T, o Options) (*Server, *azcosmos.Client) {
	t.Helper()
	s, err := Start(context.Background(), o)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s, sdkFor(t, s)
}

func sdkFor(t *testing.T, s *Server) *azcosmos.Client {
	t.Helper()
	cred, err := azcosmos.NewKeyCredential(s.Key())
	if err != nil {
		t.Fatal(err)
	}
	client, err := azcosmos.NewClientWithKey(s.URL(), cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// newContainer creates database db (if needed) and a container in it.
func newContainer(t *testing.T, client *azcosmos.Client, db string, p azcosmos.ContainerProperties, ru int32) *azcosmos.ContainerClient {
	t.Helper()
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: db}, nil); err != nil && !strings.Contains(err.Error(), "409") {
		t.Fatalf("create database: %v", err)
	}
	d, _ := client.NewDatabase(db)
	if p.IndexingPolicy == nil {
		p.IndexingPolicy = &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}}
	}
	if p.PartitionKeyDefinition.Paths == nil {
		p.PartitionKeyDefinition = azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}
	}
	var opts *azcosmos.CreateContainerOptions
	if ru > 0 {
		tp := azcosmos.NewManualThroughputProperties(ru)
		opts = &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}
	}
	if _, err := d.CreateContainer(ctx, p, opts); err != nil {
		t.Fatalf("create container: %v", err)
	}
	c, _ := d.NewContainer(p.ID)
	return c
}

func mustCreate(t *testing.T, c *azcosmos.ContainerClient, pk azcosmos.PartitionKey, body map[string]any) azcosmos.ItemResponse {
	t.Helper()
	b, _ := json.Marshal(body)
	r, err := c.CreateItem(context.Background(), pk, b, nil)
	if err != nil {
		t.Fatalf("create %v: %v", body["id"], err)
	}
	return r
}

// raw sends a request signed with the master key, as the SDK would, and returns the response with
// its body read.
func raw(t *testing.T, s *Server, method, path string, hdr map[string]string, body []byte) (*http.Response, []byte) {
	t.Helper()
	return rawReader(t, s, method, path, hdr, bytes.NewReader(body))
}

// rawReader is raw with the body from r: a reader other than *bytes.Reader, *bytes.Buffer or
// *strings.Reader has no known length, so the request goes without Content-Length (chunked).
func rawReader(t *testing.T, s *Server, method, path string, hdr map[string]string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	segs := strings.Split(strings.Trim(path, "/"), "/")
	rtype, link := resourceOf(segs)
	date := time.Now().UTC().Format(http.TimeFormat)
	mac := hmac.New(sha256.New, s.key)
	mac.Write([]byte(strings.ToLower(method) + "\n" + rtype + "\n" + link + "\n" + strings.ToLower(date) + "\n\n"))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	req, err := http.NewRequest(method, strings.TrimSuffix(s.URL(), "/")+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+sig))
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", "2020-07-15")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	client := http.DefaultClient
	if tc := s.TLSConfig(); tc != nil { // an HTTPS engine: trust its generated certificate
		client = &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func kb(id, pk string, size int) map[string]any {
	return map[string]any{"id": id, "pk": pk, "pad": strings.Repeat("x", max(size-60, 0))}
}

func TestPartitionKeyRanges(t *testing.T) {
	s, client := startEngine(t, Options{Partitions: func(db, coll string, ru int) int {
		if coll == "five" {
			return 5
		}
		return 0 // at least 1
	}})
	tests := []struct {
		id   string
		ru   int32
		want int
	}{
		{"five", 400, 5},
		{"one", 400, 1},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			c := newContainer(t, client, "ranges", azcosmos.ContainerProperties{ID: tt.id}, tt.ru)
			fr, err := c.ReadFeedRanges(context.Background(), nil)
			if err != nil {
				t.Fatalf("read feed ranges: %v", err)
			}
			if len(fr) != tt.want {
				t.Fatalf("%d ranges, want %d", len(fr), tt.want)
			}
			if fr[0].MinInclusive != "" || fr[len(fr)-1].MaxExclusive != "FF" {
				t.Errorf("ranges do not cover the EPK space: first %q, last %q", fr[0].MinInclusive, fr[len(fr)-1].MaxExclusive)
			}
			for i := 1; i < len(fr); i++ {
				if fr[i].MinInclusive != fr[i-1].MaxExclusive || fr[i].MinInclusive <= fr[i-1].MinInclusive {
					t.Errorf("range %d [%s,%s) does not follow [%s,%s)", i, fr[i].MinInclusive, fr[i].MaxExclusive, fr[i-1].MinInclusive, fr[i-1].MaxExclusive)
				}
			}
		})
	}
	t.Run("default from throughput", func(t *testing.T) {
		s2, client2 := startEngine(t, Options{})
		_ = s2
		c := newContainer(t, client2, "ranges", azcosmos.ContainerProperties{ID: "big"}, 12000)
		fr, err := c.ReadFeedRanges(context.Background(), nil)
		if err != nil || len(fr) != 2 {
			t.Errorf("12,000 RU/s: %d ranges (%v), want ceil(12000/6000) = 2", len(fr), err)
		}
	})
	_ = s
}

// pageRanges runs a query to the end and returns the range id of every page, the items and the
// summed charge.
func pageRanges(t *testing.T, c *azcosmos.ContainerClient, query string, pk azcosmos.PartitionKey, o *azcosmos.QueryOptions) (ranges []string, items []map[string]any, charge float64) {
	t.Helper()
	pager := c.NewQueryItemsPager(query, pk, o)
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatalf("query %q: %v", query, err)
		}
		ranges = append(ranges, page.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid"))
		charge += float64(page.RequestCharge)
		for _, it := range page.Items {
			var m map[string]any
			_ = json.Unmarshal(it, &m)
			items = append(items, m)
		}
	}
	return ranges, items, charge
}

func TestQuery_RoutingByWhere(t *testing.T) {
	_, client := startEngine(t, Options{Partitions: func(string, string, int) int { return 4 }})
	c := newContainer(t, client, "routing", azcosmos.ContainerProperties{ID: "sessions",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2,
			Paths: []string{"/tenantId", "/userId"}}}, 400)
	rangeOf := map[string]string{} // "tenant/user" -> range id reported by a point read
	for tn := range 4 {
		for u := range 3 {
			tenant, user := fmt.Sprintf("t%d", tn), fmt.Sprintf("u%d", u)
			pk := azcosmos.NewPartitionKeyString(tenant).AppendString(user)
			for i := range 2 {
				r := mustCreate(t, c, pk, map[string]any{"id": fmt.Sprintf("%s-%s-%d", tenant, user, i), "tenantId": tenant, "userId": user, "n": u*10 + i})
				rangeOf[tenant+"/"+user] = r.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid")
			}
		}
	}
	empty := azcosmos.NewPartitionKey()

	t.Run("full key in WHERE reads one range", func(t *testing.T) {
		ranges, items, _ := pageRanges(t, c, "SELECT * FROM c WHERE c.tenantId = @t AND c.userId = @u", empty,
			&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@t", Value: "t2"}, {Name: "@u", Value: "u1"}}})
		if len(items) != 2 || len(ranges) != 1 || ranges[0] != rangeOf["t2/u1"] {
			t.Errorf("got %d items from ranges %v, want 2 from [%s]", len(items), ranges, rangeOf["t2/u1"])
		}
	})
	t.Run("prefix in WHERE reads the ranges that can hold it", func(t *testing.T) {
		ranges, items, _ := pageRanges(t, c, "SELECT * FROM c WHERE c.tenantId = 't1'", empty, nil)
		if len(items) != 6 {
			t.Errorf("%d items, want 6", len(items))
		}
		want := rangeOf["t1/u0"]
		if len(ranges) != 1 || ranges[0] != want {
			t.Errorf("prefix read ranges %v, want only [%s]", ranges, want)
		}
	})
	t.Run("no key fans out to every range and costs more", func(t *testing.T) {
		ranges, items, fanCharge := pageRanges(t, c, "SELECT * FROM c WHERE c.n = 11", empty, nil)
		if len(items) != 4 || len(ranges) != 4 {
			t.Errorf("fan-out: %d items over ranges %v, want 4 items over 4 ranges", len(items), ranges)
		}
		_, _, oneCharge := pageRanges(t, c, "SELECT * FROM c WHERE c.n = 11 AND c.tenantId = 't0' AND c.userId = 'u1'", empty, nil)
		if fanCharge <= oneCharge {
			t.Errorf("fan-out charge %.2f <= routed charge %.2f; every range checked must be paid", fanCharge, oneCharge)
		}
	})
	t.Run("ORDER BY pinned to one partition is served", func(t *testing.T) {
		_, items, _ := pageRanges(t, c, "SELECT * FROM c WHERE c.tenantId = 't3' AND c.userId = 'u2' ORDER BY c.n DESC", empty, nil)
		if len(items) != 2 || items[0]["n"].(float64) < items[1]["n"].(float64) {
			t.Errorf("ORDER BY in one partition: %v", items)
		}
		pager := c.NewQueryItemsPager("SELECT VALUE COUNT(1) FROM c WHERE c.tenantId = 't3' AND c.userId = 'u2'", empty, nil)
		page, err := pager.NextPage(context.Background())
		if err != nil || len(page.Items) != 1 || string(page.Items[0]) != "2" {
			t.Errorf("COUNT in one partition: %q (%v), want [2]", page.Items, err)
		}
	})
	t.Run("ORDER BY across partitions is refused", func(t *testing.T) {
		for _, q := range []string{
			"SELECT * FROM c ORDER BY c.n",
			"SELECT TOP 1 * FROM c WHERE c.userId = 'u1'",
			"SELECT VALUE COUNT(1) FROM c",
		} {
			pager := c.NewQueryItemsPager(q, empty, nil)
			_, err := pager.NextPage(context.Background())
			if err == nil || !strings.Contains(err.Error(), "400") {
				t.Errorf("%s: err %v, want 400", q, err)
			}
		}
	})
}

// TestQuery_CrossPartitionShapesOnOnePhysicalPartition: whether the gateway serves ORDER BY, TOP,
// aggregates and the rest depends on whether the query names one logical partition, not on how
// many physical partitions the container has; one physical partition refuses them as many do.
func TestQuery_CrossPartitionShapesOnOnePhysicalPartition(t *testing.T) {
	_, client := startEngine(t, Options{})
	c := newContainer(t, client, "onepart", azcosmos.ContainerProperties{ID: "h",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2,
			Paths: []string{"/tenantId", "/userId"}}}, 400)
	for i := range 6 {
		tenant, user := fmt.Sprintf("t%d", i%2), fmt.Sprintf("u%d", i%3)
		b, _ := json.Marshal(map[string]any{"id": strconv.Itoa(i), "tenantId": tenant, "userId": user, "n": i})
		if _, err := c.CreateItem(context.Background(), azcosmos.NewPartitionKeyString(tenant).AppendString(user), b, nil); err != nil {
			t.Fatal(err)
		}
	}
	query := func(q string) error {
		_, err := c.NewQueryItemsPager(q, azcosmos.NewPartitionKey(), nil).NextPage(context.Background())
		return err
	}
	for _, q := range []string{
		"SELECT * FROM c ORDER BY c.n",
		"SELECT * FROM c WHERE c.tenantId = 't0' ORDER BY c.n",
		"SELECT VALUE COUNT(1) FROM c WHERE c.tenantId = 't0'",
		"SELECT DISTINCT c.userId FROM c WHERE c.tenantId IN ('t0', 't1') AND c.userId = 'u0'",
	} {
		if err := query(q); err == nil || !strings.Contains(err.Error(), "400") {
			t.Errorf("%s: err %v, want 400 (cross-partition for the gateway)", q, err)
		}
	}
	for _, q := range []string{
		"SELECT * FROM c WHERE c.tenantId = 't0' AND c.userId = 'u0' ORDER BY c.n",
		"SELECT * FROM c WHERE c.tenantId = 't0'", // no clause that needs a query engine
	} {
		if err := query(q); err != nil {
			t.Errorf("%s: %v, want it served", q, err)
		}
	}
}

func TestQuery_Metrics(t *testing.T) {
	_, client := startEngine(t, Options{})
	c := newContainer(t, client, "metrics", azcosmos.ContainerProperties{ID: "m"}, 0)
	pk := azcosmos.NewPartitionKeyString("p")
	for i := range 10 {
		mustCreate(t, c, pk, map[string]any{"id": strconv.Itoa(i), "pk": "p", "n": i})
	}
	pager := c.NewQueryItemsPager("SELECT * FROM c WHERE c.n = 3", pk, &azcosmos.QueryOptions{PopulateIndexMetrics: true})
	page, err := pager.NextPage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if page.QueryMetrics == nil {
		t.Fatal("no query metrics")
	}
	fields := map[string]string{}
	for _, kv := range strings.Split(*page.QueryMetrics, ";") {
		k, v, _ := strings.Cut(kv, "=")
		fields[k] = v
	}
	if fields["outputDocumentCount"] != "1" || fields["retrievedDocumentCount"] != "1" || fields["totalExecutionTimeInMs"] == "" {
		t.Errorf("query metrics = %s", *page.QueryMetrics)
	}
	if page.IndexMetrics == nil {
		t.Fatal("no index metrics")
	}
	dec, err := base64.StdEncoding.DecodeString(*page.IndexMetrics)
	if err != nil {
		t.Fatalf("index metrics are not base64: %v", err)
	}
	var im struct {
		UtilizedSingleIndexes []struct{ FilterExpression, IndexSpec string }
	}
	if err := json.Unmarshal(dec, &im); err != nil || len(im.UtilizedSingleIndexes) != 1 || im.UtilizedSingleIndexes[0].IndexSpec != "/n/?" {
		t.Errorf("index metrics = %s (%v)", dec, err)
	}
	pager = c.NewQueryItemsPager("SELECT * FROM c", pk, nil)
	page, err = pager.NextPage(context.Background())
	if err != nil || page.IndexMetrics != nil {
		t.Errorf("index metrics without asking: %v (%v)", page.IndexMetrics, err)
	}
}

func TestReadFeed(t *testing.T) {
	s, client := startEngine(t, Options{Partitions: func(string, string, int) int { return 3 }})
	c := newContainer(t, client, "feed", azcosmos.ContainerProperties{ID: "f"}, 400)
	for i := range 25 {
		pk := fmt.Sprintf("p%d", i)
		mustCreate(t, c, azcosmos.NewPartitionKeyString(pk), map[string]any{"id": strconv.Itoa(i), "pk": pk})
	}
	seen := map[string]bool{}
	ranges := map[string]bool{}
	cont := ""
	for pages := 0; ; pages++ {
		if pages > 50 {
			t.Fatal("read feed does not end")
		}
		hdr := map[string]string{"x-ms-max-item-count": "4"}
		if cont != "" {
			hdr["x-ms-continuation"] = cont
		}
		resp, body := raw(t, s, "GET", "/dbs/feed/colls/f/docs", hdr, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("read feed: %d %s", resp.StatusCode, body)
		}
		var feed struct {
			Documents []map[string]any
			Count     int `json:"_count"`
		}
		if err := json.Unmarshal(body, &feed); err != nil || feed.Count != len(feed.Documents) || len(feed.Documents) > 4 {
			t.Fatalf("feed page %s (%v)", body, err)
		}
		if ch, _ := strconv.ParseFloat(resp.Header.Get("x-ms-request-charge"), 64); ch <= 0 {
			t.Errorf("feed page charge %v", ch)
		}
		ranges[resp.Header.Get("x-ms-documentdb-partitionkeyrangeid")] = true
		for _, d := range feed.Documents {
			id := d["id"].(string)
			if seen[id] {
				t.Errorf("item %s listed twice", id)
			}
			seen[id] = true
		}
		if cont = resp.Header.Get("x-ms-continuation"); cont == "" {
			break
		}
	}
	if len(seen) != 25 || len(ranges) != 3 {
		t.Errorf("read feed listed %d items over %d ranges, want 25 over 3", len(seen), len(ranges))
	}
	resp, body := raw(t, s, "GET", "/dbs/feed/colls/f/docs", map[string]string{"x-ms-documentdb-partitionkeyrangeid": "9"}, nil)
	if resp.StatusCode != 404 {
		t.Errorf("unknown range: %d %s", resp.StatusCode, body)
	}
}

func TestReadItem_IfNoneMatch(t *testing.T) {
	s, client := startEngine(t, Options{})
	c := newContainer(t, client, "inm", azcosmos.ContainerProperties{ID: "c"}, 0)
	r := mustCreate(t, c, azcosmos.NewPartitionKeyString("p"), map[string]any{"id": "a", "pk": "p"})
	hdr := map[string]string{"x-ms-documentdb-partitionkey": `["p"]`, "If-None-Match": string(r.ETag)}
	resp, body := raw(t, s, "GET", "/dbs/inm/colls/c/docs/a", hdr, nil)
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Errorf("current etag: %d %q, want 304 and no body", resp.StatusCode, body)
	}
	hdr["If-None-Match"] = `"old"`
	resp, body = raw(t, s, "GET", "/dbs/inm/colls/c/docs/a", hdr, nil)
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"id":"a"`)) {
		t.Errorf("stale etag: %d %s, want 200 with the item", resp.StatusCode, body)
	}
}

func TestCharges_FromCostModel(t *testing.T) {
	_, client := startEngine(t, Options{})
	ctx := context.Background()
	c := newContainer(t, client, "charges", azcosmos.ContainerProperties{ID: "c",
		IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}, ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/cold/?"}}}}, 0)
	pk := azcosmos.NewPartitionKeyString("p")
	b1, _ := json.Marshal(kb("small", "p", 1024))
	small, err := c.CreateItem(ctx, pk, b1, nil)
	if err != nil {
		t.Fatal(err)
	}
	b10, _ := json.Marshal(kb("big", "p", 10*1024))
	big, err := c.CreateItem(ctx, pk, b10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if big.RequestCharge <= small.RequestCharge {
		t.Errorf("create 10 KB = %.2f RU, 1 KB = %.2f RU; a bigger item must cost more", big.RequestCharge, small.RequestCharge)
	}
	read, err := c.ReadItem(ctx, pk, "small", nil)
	if err != nil {
		t.Fatal(err)
	}
	if read.RequestCharge < 0.9 || read.RequestCharge > 1.2 {
		t.Errorf("1 KB point read = %.2f RU, want about 1", read.RequestCharge)
	}
	strong := azcosmos.ConsistencyLevelStrong
	sr, err := c.ReadItem(ctx, pk, "small", &azcosmos.ItemOptions{ConsistencyLevel: &strong})
	if err != nil {
		t.Fatal(err)
	}
	// Charges travel with two decimals: allow the rounding of each.
	if d := float64(sr.RequestCharge) - 2*float64(read.RequestCharge); d < -0.011 || d > 0.011 {
		t.Errorf("strong read = %.2f RU, session read = %.2f RU; want twice", sr.RequestCharge, read.RequestCharge)
	}
	for i := range 100 {
		mustCreate(t, c, pk, map[string]any{"id": fmt.Sprintf("d%d", i), "pk": "p", "hot": i, "cold": i})
	}
	_, hotItems, hot := pageRanges(t, c, "SELECT * FROM c WHERE c.hot = 42", pk, nil)
	_, coldItems, cold := pageRanges(t, c, "SELECT * FROM c WHERE c.cold = 42", pk, nil)
	if len(hotItems) != 1 || len(coldItems) != 1 {
		t.Fatalf("results: %d and %d items, want 1 each", len(hotItems), len(coldItems))
	}
	if cold <= hot {
		t.Errorf("filter on an excluded path = %.2f RU, on an indexed path = %.2f RU; the scan must cost more", cold, hot)
	}
}

func TestPersistence_CloseSavesStartLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "engine.json")
	ctx := context.Background()
	s, err := Start(ctx, Options{PersistPath: path, Partitions: func(string, string, int) int { return 3 }})
	if err != nil {
		t.Fatal(err)
	}
	client := sdkFor(t, s)
	c := newContainer(t, client, "persist", azcosmos.ContainerProperties{ID: "c"}, 400)
	want := map[string][]byte{}
	for i := range 20 {
		id, pk := strconv.Itoa(i), fmt.Sprintf("p%d", i%5)
		mustCreate(t, c, azcosmos.NewPartitionKeyString(pk), map[string]any{"id": id, "pk": pk, "n": i})
		r, err := c.ReadItem(ctx, azcosmos.NewPartitionKeyString(pk), id, nil)
		if err != nil {
			t.Fatal(err)
		}
		want[id] = r.Value
	}
	if err := s.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	s2, client2 := startEngine(t, Options{PersistPath: path})
	_ = s2
	d, _ := client2.NewDatabase("persist")
	c2, _ := d.NewContainer("c")
	fr, err := c2.ReadFeedRanges(ctx, nil)
	if err != nil || len(fr) != 3 {
		t.Errorf("ranges after load: %d (%v), want 3", len(fr), err)
	}
	for i := range 20 {
		id, pk := strconv.Itoa(i), fmt.Sprintf("p%d", i%5)
		r, err := c2.ReadItem(ctx, azcosmos.NewPartitionKeyString(pk), id, nil)
		if err != nil {
			t.Fatalf("read %s after load: %v", id, err)
		}
		if !bytes.Equal(r.Value, want[id]) {
			t.Errorf("item %s after load = %s, want %s", id, r.Value, want[id])
		}
	}
}

func TestTTL_ExpiresAndSweeps(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	s, client := startEngine(t, Options{Now: clk.Now})
	ttl := int32(-1) // TTL on, items without ttl never expire
	c := newContainer(t, client, "ttl", azcosmos.ContainerProperties{ID: "c", DefaultTimeToLive: &ttl}, 0)
	pk := azcosmos.NewPartitionKeyString("p")
	mustCreate(t, c, pk, map[string]any{"id": "short", "pk": "p", "ttl": 10})
	mustCreate(t, c, pk, map[string]any{"id": "forever", "pk": "p"})
	ctx := context.Background()
	if _, err := c.ReadItem(ctx, pk, "short", nil); err != nil {
		t.Fatalf("read before expiry: %v", err)
	}
	clk.Advance(10 * time.Second)
	if _, err := c.ReadItem(ctx, pk, "short", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("read after expiry: %v, want 404", err)
	}
	_, items, _ := pageRanges(t, c, "SELECT * FROM c", pk, nil)
	if len(items) != 1 || items[0]["id"] != "forever" {
		t.Errorf("query after expiry = %v, want only forever", items)
	}
	stored := func() int {
		n := 0
		for _, p := range s.dbs["ttl"].colls["c"].parts {
			p.mu.RLock()
			n += p.all.live
			p.mu.RUnlock()
		}
		return n
	}
	if got := stored(); got != 2 {
		t.Fatalf("stored before sweep = %d, want 2 (expired items wait for the sweep)", got)
	}
	s.sweepExpired()
	if got := stored(); got != 1 {
		t.Errorf("stored after sweep = %d, want 1", got)
	}
	// The id is free again once the expired item is gone.
	mustCreate(t, c, pk, map[string]any{"id": "short", "pk": "p"})
}

func TestThrottle_BudgetPerPartition(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 250*int64(time.Millisecond))}
	s, client := startEngine(t, Options{Now: clk.Now, Throttle: true})
	newContainer(t, client, "throttle", azcosmos.ContainerProperties{ID: "c"}, 400)
	body, _ := json.Marshal(kb("x", "p", 1024))
	hdr := map[string]string{"x-ms-documentdb-partitionkey": `["p"]`, "x-ms-documentdb-is-upsert": "true", "Content-Type": "application/json"}
	spent, ok := 0.0, 0
	var last *http.Response
	var lastBody []byte
	for range 400 {
		last, lastBody = raw(t, s, "POST", "/dbs/throttle/colls/c/docs", hdr, body)
		if last.StatusCode != 200 && last.StatusCode != 201 {
			break
		}
		ch, _ := strconv.ParseFloat(last.Header.Get("x-ms-request-charge"), 64)
		spent += ch
		ok++
	}
	if last.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("no 429 after %d upserts (%.0f RU): %d %s", ok, spent, last.StatusCode, lastBody)
	}
	if spent < 400 {
		t.Errorf("429 after %.0f RU, want the 400 RU/s budget spent first", spent)
	}
	if got := last.Header.Get("x-ms-retry-after-ms"); got != "750" {
		t.Errorf("x-ms-retry-after-ms = %q, want 750 (to the next second of the injected clock)", got)
	}
	if got := last.Header.Get("x-ms-substatus"); got != "3200" {
		t.Errorf("x-ms-substatus = %q, want 3200", got)
	}
	clk.Advance(time.Second)
	resp, b := raw(t, s, "POST", "/dbs/throttle/colls/c/docs", hdr, body)
	if resp.StatusCode != 200 {
		t.Errorf("next second: %d %s, want 200", resp.StatusCode, b)
	}
}

func TestAuthorize_Malformed(t *testing.T) {
	s, _ := startEngine(t, Options{})
	date := time.Now().UTC().Format(http.TimeFormat)
	tests := []struct {
		name, auth string
	}{
		{"missing", ""},
		{"not master", url.QueryEscape("type=resource&ver=1.0&sig=AAAA")},
		{"no signature", url.QueryEscape("type=master&ver=1.0")},
		{"signature not base64", url.QueryEscape("type=master&ver=1.0&sig=!!!")},
		{"signature too long", url.QueryEscape("type=master&ver=1.0&sig=" + strings.Repeat("A", 400))},
		{"wrong signature", url.QueryEscape("type=master&ver=1.0&sig=" + base64.StdEncoding.EncodeToString(make([]byte, 32)))},
		{"bad escape", "%zz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.URL()+"dbs", nil)
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			req.Header.Set("x-ms-date", date)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", resp.StatusCode)
			}
		})
	}
}

// TestAuthorize_CachedSignatureOnlyForItsRequest replays a header that verified (and is now in the
// verification cache) against another resource, another verb and another date: each must be
// refused, as a fresh HMAC check would refuse it.
func TestAuthorize_CachedSignatureOnlyForItsRequest(t *testing.T) {
	s, _ := startEngine(t, Options{})
	date := time.Now().UTC().Format(http.TimeFormat)
	mac := hmac.New(sha256.New, s.key)
	mac.Write([]byte("get\ndbs\n\n" + strings.ToLower(date) + "\n\n"))
	auth := url.QueryEscape("type=master&ver=1.0&sig=" + base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	send := func(method, path, date string) int {
		req, _ := http.NewRequest(method, strings.TrimSuffix(s.URL(), "/")+path, nil)
		req.Header.Set("Authorization", auth)
		req.Header.Set("x-ms-date", date)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for range 2 { // the second is served from the cache
		if got := send("GET", "/dbs", date); got != 200 {
			t.Fatalf("the signed request: status %d, want 200", got)
		}
	}
	later := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	for _, r := range []struct{ method, path, date string }{
		{"GET", "/dbs/other", date}, {"POST", "/dbs", date}, {"GET", "/dbs", later}, {"GET", "/offers", date},
	} {
		if got := send(r.method, r.path, r.date); got != http.StatusUnauthorized {
			t.Errorf("%s %s at %s with the cached header: status %d, want 401", r.method, r.path, r.date, got)
		}
	}
}
