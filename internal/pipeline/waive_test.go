package pipeline

import (
	"os"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestDesignFindings_Waived: a run's report repeats the design review with the design's own
// waivers applied, as lint and plan do (#45 point 5): AP9's lost-partition-key, waived by AP9's
// waive: entry, is listed marked waived with the reason and the waiver's line; expired, it is
// listed as it is.
func TestDesignFindings_Waived(t *testing.T) {
	src, err := os.ReadFile("../../testdata/review/report-every-second.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		expires string
		waived  bool
	}{{"2999-12-31", true}, {"2020-01-31", false}} {
		text := string(src) + "    waive:\n      - code: lost-partition-key\n        reason: the admin report reads every tenant on purpose\n        expires: " + tc.expires + "\n"
		d, err := design.Parse([]byte(text), "report.yaml")
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(DesignFindings(d, 1).Review["AP9"], "\n")
		if !strings.Contains(got, "[lost-partition-key]") {
			t.Fatalf("AP9's review lacks its lost-partition-key: %q", got)
		}
		if marked := strings.Contains(got, "— waived: the admin report reads every tenant on purpose (owner (no owner), until "+tc.expires+"; report.yaml:134:"); marked != tc.waived {
			t.Errorf("expires %s: marked waived %v, want %v: %q", tc.expires, marked, tc.waived, got)
		}
	}
}
