package target

import (
	"strings"
	"testing"
)

// TestServedCharges: a serve's label is kept only as cost.ChargesLabel writes it: printable ASCII,
// "model (…)", bounded; anything else is dropped and the charges read plain "model".
func TestServedCharges(t *testing.T) {
	for in, want := range map[string]string{
		"model (calibrated: acct.documents.azure.com, 2026-11-20)": "model (calibrated: acct.documents.azure.com, 2026-11-20)",
		"model (rate card: card.json)":                             "model (rate card: card.json)",
		"model":                                                    "",
		"":                                                         "",
		"service":                                                  "",
		"model (calibrated: a\x1b[31m, x)":                         "",
		"model (" + strings.Repeat("x", 400) + ")": "",
	} {
		if got := servedCharges(in); got != want {
			t.Errorf("servedCharges(%q) = %q, want %q", in, got, want)
		}
	}
}
