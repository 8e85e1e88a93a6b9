package plan

import "testing"

// TestSignedPct: differences are whole percents, but one that only rounds to -100% keeps a
// decimal, since -100% says the estimate is zero.
func TestSignedPct(t *testing.T) {
	for x, want := range map[float64]string{440: "+440%", -12.4: "-12%", -99.7: "-99.7%", -100: "-100%", 0: "+0%", -99.96: "-100.0%"} {
		if got := signedPct(x); got != want {
			t.Errorf("signedPct(%g) = %q, want %q", x, got, want)
		}
	}
}
