package plan

import (
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestHotPartition_CountsOnlyKeyScopedLoad: a container-wide query's load spreads over every
// physical partition, so a container short of its peak because of one is throughput-short, not
// also hot-partition (issue 14's walkthrough: both fired, with the same load halved); a hot key
// that keeps its physical partition over its share at the peak's throughput still is.
func TestHotPartition_CountsOnlyKeyScopedLoad(t *testing.T) {
	const src = `version: 1
name: hot
scale: {storageGB: 200}
containers:
  - name: Events
    partitionKey: [/tenantId]
    throughput: {manual: 4000}
    documents:
      - type: event
        count: 2000
        production: 100000000
        targetBytes: 2000
        fields:
          tenantId: {gen: code, cardinality: 100, dist: DIST}
          kind: {oneOf: [a, b, c]}
accessPatterns:
  - id: AP1
    name: PATTERN
    container: Events
    op: QUERY_OR_READ
    sample: event
    QUERY
    rps: {avg: RPS, peak: RPS}
    estimate: {ru: 3}
`
	codes := func(p *Plan) map[string]bool {
		out := map[string]bool{}
		for _, w := range p.Warnings {
			if w.Subject == "Events" {
				out[w.Code] = true
			}
		}
		return out
	}
	build := func(r *strings.Replacer) *Plan {
		d, err := design.Parse([]byte(r.Replace(src)), "hot.yaml")
		if err != nil {
			t.Fatal(err)
		}
		p, err := Build(d, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	// A scan of every tenant's events at 5 per second: far over 4000 RU/s, spread evenly.
	cross := build(strings.NewReplacer("DIST", "uniform", "PATTERN", "all events of a kind", "QUERY_OR_READ", "query",
		"QUERY", `query: "SELECT * FROM c WHERE c.kind = 'a'"`, "RPS", "5"))
	if c := codes(cross); !c["throughput-short"] || c["hot-partition"] {
		t.Errorf("container-wide query: warnings %v, want throughput-short and no hot-partition", cross.Warnings)
	}

	// One tenant of a zipf key takes most point reads: still hot at the throughput the peak needs.
	hot := build(strings.NewReplacer("DIST", "hot", "PATTERN", "read an event", "QUERY_OR_READ", "read",
		"QUERY", "", "RPS", "12000"))
	if c := codes(hot); !c["hot-partition"] {
		t.Errorf("hot key: warnings %v, want hot-partition", hot.Warnings)
	}
}
