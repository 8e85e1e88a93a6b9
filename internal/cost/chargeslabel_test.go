package cost

import (
	"os"
	"path/filepath"
	"testing"
)

// TestChargesLabel: one label per card, every one starting with "model"; a card file is named by
// its base name, kept to letters, digits and . - _.
func TestChargesLabel(t *testing.T) {
	cal := Current.Clone()
	cal.Calibration = &CalibrationRef{Account: "acct.documents.azure.com", Date: "2026-11-20"}
	dir := t.TempDir()
	file := filepath.Join(dir, "my card\x1b.json")
	if err := os.WriteFile(file, []byte(`{"queryMin": {"value": 2.6}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, err := LoadRateCard(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		card *RateCard
		want string
	}{
		{nil, "model"},
		{Current, "model"},
		{cal, "model (calibrated: acct.documents.azure.com, 2026-11-20)"},
		{fromFile, "model (rate card: my_card_.json)"},
	} {
		if got := ChargesLabel(c.card); got != c.want {
			t.Errorf("ChargesLabel = %q, want %q", got, c.want)
		}
	}
}
