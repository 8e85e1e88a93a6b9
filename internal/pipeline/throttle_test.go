package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/testenv"
)

// `run --throttle` end to end: 200 documents of ~1.5 KB (about 1,500 RU of writes) cannot fit in the
// 400 RU/s of two one-second budgets, so the engine throttles the seeding; the report counts the
// 429s (the SDK's retries included) and every planned document is seeded once.
func TestValidate_ThrottleShowsInTheReport(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "tiny.yaml")
	yaml := strings.ReplaceAll(strings.ReplaceAll(tinyYAML, "EXCLUDED", `["/body/?"]`), "count: 300", "count: 200")
	if err := os.WriteFile(f, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := design.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	c := config(&stdout, &stderr)
	c.Throttle = true
	// The engine's budgets are whole seconds of its clock. On the wall clock a machine slow enough
	// (under 53 writes a second) would fit every write in its budgets and see no 429; on this clock
	// time stands still until a 429 asks for a wait, so the writes exceed a budget on any machine.
	clk := testenv.NewThrottleClock()
	c.Target.Engine.Now = clk.Now
	c.Target.EnginePerRetry = []policy.Policy{clk.Policy()}
	out, err := Validate(context.Background(), []*design.Design{d}, c)
	if err != nil {
		t.Fatalf("Validate: %v\n%s", err, stderr.String())
	}
	if len(out.Reports) != 1 {
		t.Fatalf("%d reports", len(out.Reports))
	}
	r := out.Reports[0]
	if len(r.Seeding) != 1 {
		t.Fatalf("seeding: %+v", r.Seeding)
	}
	s := r.Seeding[0]
	if s.Documents != 200 {
		t.Errorf("seeded %d documents, want the 200 planned", s.Documents)
	}
	t.Logf("seeding: %.0f RU, %d × 429, %.0f ms asked", s.RU, s.Throttled, s.RetryWaitMs)
	if s.Throttled == 0 || s.RetryWaitMs <= 0 {
		t.Errorf("seeding: throttled %d, retry wait %v ms; want both > 0 (about 1,500 RU at 400 RU/s)", s.Throttled, s.RetryWaitMs)
	}
	for _, f := range r.StageFindings {
		if f.Level == "error" {
			t.Errorf("finding: %+v", f)
		}
	}
	if !strings.Contains(stdout.String(), "Throttling (429 responses") || !strings.Contains(stdout.String(), "seeding item in Items: ") {
		t.Errorf("the text report does not show the throttling:\n%s", stdout.String())
	}
}
