package jsonorder

import "testing"

// Every value sorts by type first, in the service's order, then by value within scalars.
func TestCompare(t *testing.T) {
	ordered := []any{Undefined{}, nil, false, true, -1.5, 0.0, 2.0, "", "A", "a", []any{1.0}, map[string]any{"a": 1.0}}
	for i := range ordered {
		for j := range ordered {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := Compare(ordered[i], ordered[j]); got != want {
				t.Errorf("Compare(%#v, %#v) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
	if Compare([]any{1.0}, []any{2.0}) != 0 || Compare(map[string]any{}, map[string]any{"a": 1.0}) != 0 {
		t.Error("arrays, and objects, compare equal among themselves")
	}
	if Rank(struct{}{}) != RankUndefined {
		t.Error("a value that is not JSON ranks as undefined")
	}
}
