package importer

import "testing"

// The level a sentence states is the one it names first; the template's list of choices states none.
func TestConsistencyIn(t *testing.T) {
	for in, want := range map[string]string{
		"session (not strong)":                               "Session",
		"session everywhere; strong is not worth 2x read ru": "Session",
		"[session/eventual/strong - with justification]":     "",
		"strong for the ledger":                              "Strong",
		"bounded staleness, 5 seconds":                       "BoundedStaleness",
		"会话一致性":                                              "Session",
		"no level named":                                     "",
	} {
		if got := consistencyIn(in); got != want {
			t.Errorf("consistencyIn(%q) = %q, want %q", in, got, want)
		}
	}
}
