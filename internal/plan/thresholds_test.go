package plan

import (
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// thresholdDesign is one container with one point read of a small item: 1 RU a read (the published
// charge of a 1 KB point read), 700 RU/s at its peak.
const thresholdDesign = `version: 1
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
    estimate: {ru: ESTIMATE}
`

func thresholdPlan(t *testing.T, throughput, estimate string) *Plan {
	t.Helper()
	src := strings.NewReplacer("THROUGHPUT", throughput, "ESTIMATE", estimate).Replace(thresholdDesign)
	d, err := design.Parse([]byte(src), "desk.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Patterns[0].ModelRU; got != 1 {
		t.Fatalf("the point read of a small item models %g RU, want the published 1 RU", got)
	}
	return p
}

// TestThresholds_OverFactor holds the over-provisioned factor (3, assumed) at its edge both ways:
// the peak needs 700 RU/s, so 2,100 RU/s is within three times and 2,200 RU/s is not.
func TestThresholds_OverFactor(t *testing.T) {
	for _, tc := range []struct {
		throughput string
		flagged    bool
	}{{"manual: 2100", false}, {"manual: 2200", true}, {"manual: 1300", false}} {
		p := thresholdPlan(t, tc.throughput, "1")
		if got := hasWarning(p, "over-provisioned", "Tickets"); got != tc.flagged {
			t.Errorf("%s for a 700 RU/s peak: over-provisioned %v, want %v", tc.throughput, got, tc.flagged)
		}
	}
}

// TestThresholds_EstimateOff holds the estimate-off band (50% of the model's figure) at its edge
// both ways: against the modeled 1 RU, an estimate of 1.45 RU is within it and 1.55 RU is not.
func TestThresholds_EstimateOff(t *testing.T) {
	for _, tc := range []struct {
		estimate string
		flagged  bool
	}{{"1.45", false}, {"1.55", true}, {"1.2", false}} {
		p := thresholdPlan(t, "manual: 800", tc.estimate)
		if got := hasWarning(p, "estimate-off", "AP1"); got != tc.flagged {
			t.Errorf("estimate %s RU against the modeled 1 RU: estimate-off %v, want %v", tc.estimate, got, tc.flagged)
		}
	}
}
