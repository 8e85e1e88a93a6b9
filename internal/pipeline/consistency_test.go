package pipeline

import (
	"bytes"
	"context"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// The design's account default consistency is applied by a run on the embedded engine, as lint and
// plan assume: a Strong account's point reads cost twice what a Session account's do
// (optimize-cost-reads-writes.md).
func TestValidate_DesignConsistency(t *testing.T) {
	readRU := func(level string) float64 {
		t.Helper()
		d := tinyDesign(t, t.TempDir(), "[]")
		d.Consistency = level
		var stdout, stderr bytes.Buffer
		out, err := Validate(context.Background(), []*design.Design{d}, config(&stdout, &stderr))
		if err != nil {
			t.Fatalf("%s: %v\n%s", level, err, stderr.String())
		}
		for _, p := range out.Reports[0].Patterns {
			if p.ID == "R1" && p.Modeled != nil {
				return p.Modeled.Median
			}
		}
		t.Fatalf("%s: no modeled charge for R1", level)
		return 0
	}
	session, strong := readRU("Session"), readRU("Strong")
	if session <= 0 || strong < 1.9*session || strong > 2.1*session {
		t.Errorf("point read: Session %.2f RU, Strong %.2f RU; want Strong twice Session", session, strong)
	}
}
