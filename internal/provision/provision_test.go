package provision

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
)

func designed() *design.Container {
	ttl := 3600
	return &design.Container{
		Name: "Orders", PartitionKey: []string{"/tenantId", "/userId"}, DefaultTTL: &ttl,
		UniqueKeys: [][]string{{"/email"}},
		Indexing: &design.Indexing{Mode: "consistent", Included: []string{"/userId/?", "/ts/?"}, Excluded: []string{"/*"},
			Composite: [][]design.CompositePath{{{Path: "/userId", Order: "asc"}, {Path: "/ts", Order: "desc"}}}},
	}
}

func TestContainerProperties(t *testing.T) {
	props := ContainerProperties(designed())
	b, err := json.Marshal(props)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"automatic":true`, `"kind":"MultiHash"`, `"version":2`, `"defaultTtl":3600`,
		`"order":"descending"`, `"paths":["/email"]`} {
		if !strings.Contains(s, want) {
			t.Errorf("properties JSON lacks %s:\n%s", want, s)
		}
	}
	if p := IndexingPolicy(nil); !p.Automatic || len(p.IncludedPaths) != 1 || p.IncludedPaths[0].Path != "/*" {
		t.Errorf("default policy: %+v", p)
	}
	if p := IndexingPolicy(&design.Indexing{Mode: "none"}); p.Automatic || p.IndexingMode != azcosmos.IndexingModeNone {
		t.Errorf("mode none: %+v", p)
	}
}

func TestDiff(t *testing.T) {
	want := ContainerProperties(designed())
	tests := []struct {
		name   string
		mutate func(p *azcosmos.ContainerProperties)
		level  string
		substr string
	}{
		{"identical (service adds _etag exclusion and quotes)", func(p *azcosmos.ContainerProperties) {
			p.IndexingPolicy.ExcludedPaths = append(p.IndexingPolicy.ExcludedPaths, azcosmos.ExcludedPath{Path: `/"_etag"/?`})
		}, "", ""},
		{"emulator ignored the indexing policy", func(p *azcosmos.ContainerProperties) {
			p.IndexingPolicy = &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
				IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}}
		}, "warn", "indexing policy differs"},
		{"no policy stored", func(p *azcosmos.ContainerProperties) { p.IndexingPolicy = nil }, "warn", "stored none"},
		{"hash instead of multihash", func(p *azcosmos.ContainerProperties) {
			p.PartitionKeyDefinition = azcosmos.PartitionKeyDefinition{Kind: azcosmos.PartitionKeyKindHash, Paths: []string{"/tenantId"}}
		}, "error", "partition key"},
		{"ttl off", func(p *azcosmos.ContainerProperties) { p.DefaultTimeToLive = nil }, "warn", "default TTL: designed 3600 s, stored off"},
		{"unique keys dropped", func(p *azcosmos.ContainerProperties) { p.UniqueKeyPolicy = nil }, "warn", "unique keys"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ContainerProperties(designed()) // a deep-enough copy for mutation
			tc.mutate(&got)
			fs := Diff("Orders", want, got)
			if tc.level == "" {
				if len(fs) != 0 {
					t.Fatalf("findings for identical containers: %+v", fs)
				}
				return
			}
			for _, f := range fs {
				if f.Level == tc.level && strings.Contains(f.Message, tc.substr) && f.Stage == "provision" {
					return
				}
			}
			t.Fatalf("no %s finding containing %q in %+v", tc.level, tc.substr, fs)
		})
	}
}
