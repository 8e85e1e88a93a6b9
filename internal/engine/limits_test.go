package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A throughput past the service's maximum is refused with its 400 before any partition is built
// (5×10^7 simulated partitions exhausted memory before the bound).
func TestLimits_ThroughputBounded(t *testing.T) {
	s, _ := startEngine(t, Options{})
	resp, body := raw(t, s, "POST", "/dbs", nil, []byte(`{"id":"db"}`))
	if resp.StatusCode != 201 {
		t.Fatalf("create database: %d %s", resp.StatusCode, body)
	}
	for _, hdr := range []map[string]string{
		{"x-ms-offer-throughput": "300000000000"},
		{"x-ms-offer-throughput": "1000001"},
		{"x-ms-cosmos-offer-autopilot-settings": `{"maxThroughput":300000000000}`},
	} {
		resp, body := raw(t, s, "POST", "/dbs/db/colls", hdr, []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`))
		if resp.StatusCode != 400 || !strings.Contains(string(body), "1000000") {
			t.Errorf("%v: %d %s, want 400 naming the maximum", hdr, resp.StatusCode, body)
		}
	}
	resp, body = raw(t, s, "POST", "/dbs", map[string]string{"x-ms-offer-throughput": "2000000"}, []byte(`{"id":"db2"}`))
	if resp.StatusCode != 400 {
		t.Errorf("database over the maximum: %d %s", resp.StatusCode, body)
	}
	resp, body = raw(t, s, "POST", "/dbs/db/colls", map[string]string{"x-ms-offer-throughput": "1000000"}, []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`))
	if resp.StatusCode != 201 {
		t.Fatalf("the maximum itself: %d %s", resp.StatusCode, body)
	}
	c, _ := s.lookupContainer("db", "c")
	if len(c.parts) != 167 {
		t.Errorf("partitions at 1,000,000 RU/s = %d, want 167", len(c.parts))
	}
}

func TestLimits_PartitionsBounded(t *testing.T) {
	s, _ := startEngine(t, Options{Partitions: func(string, string, int) int { return 1 << 40 }})
	resp, body := raw(t, s, "POST", "/dbs", nil, []byte(`{"id":"db"}`))
	if resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	resp, body = raw(t, s, "POST", "/dbs/db/colls", map[string]string{"x-ms-offer-throughput": "400"}, []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`))
	if resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	c, _ := s.lookupContainer("db", "c")
	if len(c.parts) != maxPartitions {
		t.Errorf("partitions = %d, want the bound %d", len(c.parts), maxPartitions)
	}
}

// A snapshot asking for 5×10^7 partitions or an impossible throughput is an error naming the file.
func TestLimits_SnapshotBounded(t *testing.T) {
	for name, coll := range map[string]string{
		"partitions": `"partitions":50000000`,
		"throughput": `"partitions":1,"offer":{"manual":300000000000}`,
	} {
		path := filepath.Join(t.TempDir(), "snap.json")
		snap := `{"version":1,"databases":[{"resource":{"id":"db"},"containers":[{"resource":{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}},` + coll + `,"items":[]}]}]}`
		if err := os.WriteFile(path, []byte(snap), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Start(context.Background(), Options{PersistPath: path})
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want an error naming %s", name, err, path)
		}
	}
}
