package pipeline

import (
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestDesignFindings: the driver hands report plan's capacity warnings and lint's unknown-field
// findings of each query (report, a stage, imports neither tool).
func TestDesignFindings(t *testing.T) {
	src := `version: 1
name: short
containers:
  - name: Feed
    partitionKey: [/ownerId]
    throughput: {autoscaleMax: 1000}
    documents:
      - type: feedItem
        count: 50
        fields:
          ownerId: {gen: code, prefix: u-, cardinality: 5}
accessPatterns:
  - id: X1
    name: An owner's feed
    container: Feed
    op: query
    sample: feedItem
    query: SELECT * FROM c WHERE c.owner = @owner
    params: {"@owner": "{ownerId}"}
    rps: {avg: 500, peak: 2000}
    estimate: {ru: 3}
`
	d, err := design.Parse([]byte(src), "owner.yaml")
	if err != nil {
		t.Fatal(err)
	}
	st := DesignFindings(d, 1)
	capacity, unknown := st.Capacity, st.UnknownFields
	short := false
	for _, w := range capacity {
		short = short || (w.Code == "throughput-short" && w.Container == "Feed")
	}
	if !short {
		t.Errorf("capacity %+v: want plan's throughput-short for Feed", capacity)
	}
	if got := unknown["X1"]; len(got) != 1 || !strings.Contains(got[0], "did you mean ownerId? [unknown-field]") {
		t.Errorf("unknown fields of X1: %q", got)
	}
}

// TestDesignFindings_Review: lint's design-review findings reach the report as plain data, a
// pattern's by its ID and a container's on their own; notes and other codes do not.
func TestDesignFindings_Review(t *testing.T) {
	d, err := design.Load("../../testdata/review/ttl-ignored.yaml")
	if err != nil {
		t.Fatal(err)
	}
	st := DesignFindings(d, 1)
	if len(st.DesignReview) != 1 || !strings.Contains(st.DesignReview[0], "[ttl-ignored]") || len(st.Review) != 0 {
		t.Errorf("container review %q, pattern review %q: want the one ttl-ignored of the container", st.DesignReview, st.Review)
	}
	d, err = design.Load("../../testdata/review/pk-template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	st = DesignFindings(d, 1)
	if got := st.Review["AP4"]; len(got) != 1 || !strings.Contains(got[0], "[partition-key-template]") || len(st.DesignReview) != 0 {
		t.Errorf("review of AP4 %q, of the design %q: want AP4's partition-key-template", got, st.DesignReview)
	}
}
