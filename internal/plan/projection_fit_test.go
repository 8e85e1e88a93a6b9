package plan

import "testing"

// TestExponent_FewItemsSnapToWhole: an exponent measured on a handful of items is only told apart
// from 0 or 1 when the items are many enough; the same ratio on hundreds is kept.
func TestExponent_FewItemsSnapToWhole(t *testing.T) {
	for _, c := range []struct {
		f1, f2, n1, n2 float64
		want           float64
	}{
		{11, 7, 1193, 598, 1},        // 0.65 ± 0.7: grows
		{1100, 700, 1193, 598, 0.65}, // 0.65 ± 0.07: kept
		{5, 5, 6, 3.5, 0},            // a key's own documents
		{201, 122, 201, 122, 1},
		{10, 10, 41, 21, 0}, // TOP
	} {
		if got := exponent(c.f1, c.f2, c.n1, c.n2, c.f1, c.f2); got != c.want && (got < c.want-0.01 || got > c.want+0.01) {
			t.Errorf("exponent(%g, %g, %g, %g) = %.3f, want %.2f", c.f1, c.f2, c.n1, c.n2, got, c.want)
		}
	}
}
