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

// TestHotPartition_TrafficSkew: peak traffic concentrated on one key (rps.hotKeyShare) sizes the
// busiest logical partition apart from the data: 3,000 holds/s of one event's on-sale overrun a
// physical partition although the events' documents spread evenly, the busiest partition's storage
// stays that of the data, and the plan says which skew it used.
func TestHotPartition_TrafficSkew(t *testing.T) {
	const src = `version: 1
name: tickets
containers:
  - name: Holds
    partitionKey: [/eventId]
    throughput: {manual: 60000}
    documents:
      - type: hold
        count: 2000
        fields:
          eventId: {gen: code, prefix: ev-, cardinality: 500}
          seat: {gen: code}
accessPatterns:
  - id: AP1
    name: Hold a seat
    container: Holds
    op: create
    document: hold
    rps: {avg: 100, peakSKEW}
    estimate: {ru: 6}
`
	build := func(skew string) *Plan {
		d, err := design.Parse([]byte(strings.Replace(src, "SKEW", skew, 1)), "tickets.yaml")
		if err != nil {
			t.Fatal(err)
		}
		p, err := Build(d, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	hot := func(p *Plan) string {
		for _, w := range p.Warnings {
			if w.Code == "hot-partition" {
				return w.Message
			}
		}
		return ""
	}
	even, skewed := build(": 3000"), build(": 3000, hotKeyShare: 1")
	if m := hot(even); m != "" {
		t.Errorf("traffic following the data (1 of 500 events): hot-partition %q, want none", m)
	}
	if !strings.Contains(even.Containers[0].BusiestBasis, "data skew") {
		t.Errorf("basis %q, want data skew named", even.Containers[0].BusiestBasis)
	}
	m := hot(skewed)
	if !strings.Contains(m, "busiest logical partition needs") || !strings.Contains(m, "rps.hotKeyShare (traffic skew: AP1 1)") {
		t.Errorf("all of the peak on one event: hot-partition %q, want the busiest logical partition over a physical partition, sized by rps.hotKeyShare", m)
	}
	e, s := even.Containers[0], skewed.Containers[0]
	if s.BusiestRUs < 10000 || s.BusiestRUs <= e.BusiestRUs*100 {
		t.Errorf("busiest logical partition %g RU/s with hotKeyShare 1 (%g without), want the whole peak", s.BusiestRUs, e.BusiestRUs)
	}
	if s.BusiestGB != e.BusiestGB {
		t.Errorf("busiest logical partition %g GB with traffic skew, %g without: traffic skew must not change the data", s.BusiestGB, e.BusiestGB)
	}
}

// TestOverProvisioned: throughput far above what the peak needs is flagged with the idle
// capacity's monthly cost and the setting to paste; headroom within three times is not.
func TestOverProvisioned(t *testing.T) {
	const src = `version: 1
name: desk
containers:
  - name: Tickets
    partitionKey: [/tenantId]
    throughput: {THROUGHPUT}
    documents:
      - type: ticket
        count: 300
        fields:
          tenantId: {gen: code, cardinality: 30}
accessPatterns:
  - id: AP1
    name: Open a ticket
    container: Tickets
    op: read
    sample: ticket
    rps: {avg: 200, peak: 700}
    estimate: {ru: 1}
`
	for _, tc := range []struct{ throughput, want string }{
		{"manual: 12000", "designed manual 12000 RU/s is 17× the modeled peak of 700 RU/s"},
		{"manual: 2000", ""},
		{"autoscaleMax: 1000", ""},
	} {
		d, err := design.Parse([]byte(strings.Replace(src, "THROUGHPUT", tc.throughput, 1)), "desk.yaml")
		if err != nil {
			t.Fatal(err)
		}
		p, err := Build(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, w := range p.Warnings {
			if w.Code == "over-provisioned" {
				got = w.Message
			}
		}
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s: over-provisioned %q, want none", tc.throughput, got)
		case tc.want != "" && (!strings.Contains(got, tc.want) || !strings.Contains(got, "$659.92/month") || !strings.Contains(got, "throughput: {manual: 700}")):
			t.Errorf("%s: over-provisioned %q, want %q with the idle cost and the setting to paste", tc.throughput, got, tc.want)
		}
	}
}

// TestQuery_UnpinnedKeyLevelFilters (#37): orders keyed [/status, /customerId] and queried by the
// customer alone (AP2): the customer is the key's second level, which the query does not give, so
// its equality narrows like any filter — 2 of the 3,000 seeded orders a customer (3,000 orders
// over 4,000 drawn customers: about one each, by hand), not every order.
func TestQuery_UnpinnedKeyLevelFilters(t *testing.T) {
	d, err := design.Load("../../testdata/advise/orders-status-tight.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d.Containers[0].PartitionKey = []string{"/status", "/customerId"}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pp := range p.Patterns {
		if pp.ID == "AP2" && pp.ModelRU > 30 {
			t.Errorf("AP2 (customer alone on [/status, /customerId]) costs %.1f RU: the unpinned level filters nothing", pp.ModelRU)
		}
	}
}
