package pipeline

import (
	"bytes"
	"context"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// The design's account default consistency is applied by a run on the embedded engine, as lint and
// plan assume: a Strong account's point reads cost twice what a Session account's do
// (optimize-cost-reads-writes.md), and so do its queries.
func TestValidate_DesignConsistency(t *testing.T) {
	charges := func(level string) (read, query float64) {
		t.Helper()
		d := tinyDesign(t, t.TempDir(), "[]")
		d.Consistency = level
		var stdout, stderr bytes.Buffer
		out, err := Validate(context.Background(), []*design.Design{d}, config(&stdout, &stderr))
		if err != nil {
			t.Fatalf("%s: %v\n%s", level, err, stderr.String())
		}
		for _, p := range out.Reports[0].Patterns {
			if p.Modeled == nil {
				continue
			}
			switch p.ID {
			case "R1":
				read = p.Modeled.Median
			case "Q1":
				query = p.Modeled.Median
			}
		}
		if read == 0 || query == 0 {
			t.Fatalf("%s: no modeled charge for R1 or Q1", level)
		}
		return read, query
	}
	sessionRead, sessionQuery := charges("Session")
	strongRead, strongQuery := charges("Strong")
	if strongRead < 1.9*sessionRead || strongRead > 2.1*sessionRead {
		t.Errorf("point read: Session %.2f RU, Strong %.2f RU; want Strong twice Session", sessionRead, strongRead)
	}
	if strongQuery < 1.9*sessionQuery || strongQuery > 2.1*sessionQuery {
		t.Errorf("query: Session %.2f RU, Strong %.2f RU; want Strong twice Session", sessionQuery, strongQuery)
	}
}
