package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/report"
)

// TestCorpusDraftsRunEndToEnd takes every golden draft of the importer's corpus, lints it and runs it
// on the embedded engine through the same adapter the run tool uses. Seeded counts are capped to keep
// the test small; the drafts themselves are unchanged.
func TestCorpusDraftsRunEndToEnd(t *testing.T) {
	files, err := filepath.Glob("../importer/testdata/golden/*.yaml")
	if err != nil || len(files) < 14 {
		t.Fatalf("want the 14 golden drafts, got %d (%v)", len(files), err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			d, err := design.Load(f)
			if err != nil {
				t.Fatalf("the draft does not parse:\n%v", err)
			}
			for _, fd := range lint.Check(d) {
				t.Logf("lint: %s", fd)
			}
			for ci := range d.Containers {
				for ti := range d.Containers[ci].Documents {
					dt := &d.Containers[ci].Documents[ti]
					dt.Count = min(dt.Count, 30)
					if dt.Parent != nil {
						dt.Parent.Per.Max = min(dt.Parent.Per.Max, 3)
						dt.Parent.Per.Min = min(dt.Parent.Per.Min, dt.Parent.Per.Max)
					}
				}
			}
			rep, _, err := runEmbedded(context.Background(), d, 2, 1, "test")
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if len(rep.Patterns) != len(d.AccessPatterns) {
				t.Fatalf("%d pattern results for %d patterns", len(rep.Patterns), len(d.AccessPatterns))
			}
			// A draft the importer produced must run: an Error verdict (no execution succeeded) is
			// a broken draft or a broken run, not a finding to log.
			for _, p := range rep.Patterns {
				if p.Verdict == report.Error {
					t.Errorf("%s %s: %s %v", p.ID, p.Verdict, p.Reasons, p.Errors)
				}
			}
		})
	}
}
