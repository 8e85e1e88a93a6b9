package pipeline

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/plan"
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

// TestPlanWith_LintFindings: plan and lint give one set of findings. For every design of the
// review corpus, each lint finding (not a note) is among PlanWith's warnings with its code, and a
// plan warning lint weighed as negligible (a note) is not: `validate plan` exits as `validate lint`
// does.
func TestPlanWith_LintFindings(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "review", "*.yaml"))
	if err != nil || len(files) < 20 {
		t.Fatalf("review corpus: %v (%d files)", err, len(files))
	}
	for _, file := range files {
		d, err := design.Load(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		p, err := PlanWith(d, plan.Options{}, lint.Options{})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		warned := map[string]bool{}
		for _, w := range p.Warnings {
			warned[w.Code] = true
		}
		mistakes := 0
		for _, f := range lint.Check(d) {
			if f.Note {
				if f.FromPlan && warned[f.Code] {
					t.Errorf("%s: plan warns %s, which lint weighed as a note: %s", filepath.Base(file), f.Code, f)
				}
				continue
			}
			mistakes++
			if !warned[f.Code] {
				t.Errorf("%s: lint's %s is not in plan's warnings: %s", filepath.Base(file), f.Code, f)
			}
		}
		if mistakes == 0 && planMistakes(p) > 0 {
			t.Errorf("%s: lint passes, plan warns: %v", filepath.Base(file), p.Warnings)
		}
	}
}

// planMistakes counts plan's warnings that make `validate plan` exit 1 beyond lint's: every warning
// but the rough static disagreement (estimate-off) and the notes plan keeps for itself.
func planMistakes(p *plan.Plan) int {
	n := 0
	for _, w := range p.Warnings {
		if w.Code != "estimate-off" {
			n++
		}
	}
	return n
}
