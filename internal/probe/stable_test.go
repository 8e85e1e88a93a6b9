package probe

import (
	"testing"

	"github.com/cosmosdv/validate/internal/record"
)

func TestMedianInterval(t *testing.T) {
	m, lo, hi := medianInterval([]float64{5, 1, 3, 2, 4})
	if m != 3 || lo != 1 || hi != 5 {
		t.Errorf("median %v [%v, %v], want 3 [1, 5]", m, lo, hi)
	}
	if m, _, _ := medianInterval([]float64{1, 2, 3, 4}); m != 2.5 {
		t.Errorf("even median %v, want 2.5", m)
	}
	if m, lo, hi := medianInterval(nil); m != 0 || lo != 0 || hi != 0 {
		t.Error("empty sample")
	}
}

func execs(rus ...float64) []record.Execution {
	out := make([]record.Execution, len(rus))
	for i, ru := range rus {
		out[i] = record.Execution{RU: ru}
	}
	return out
}

func TestWantMore(t *testing.T) {
	flat := execs(3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3)
	if wantMore(flat, 20, 200) {
		t.Error("identical charges: the median is settled at the minimum")
	}
	if !wantMore(flat[:10], 20, 200) {
		t.Error("under the minimum: want more")
	}
	// Two modes, half and half: never settled, so sampling stops at the bound.
	var mixed []float64
	for i := range 200 {
		mixed = append(mixed, 3+4*float64(i%2))
	}
	if !wantMore(execs(mixed[:20]...), 20, 200) {
		t.Error("two even modes at 20: want more")
	}
	if wantMore(execs(mixed...), 20, 200) {
		t.Error("at the bound: no more")
	}
	// Between checks the probe completes its step of ten.
	if !wantMore(execs(mixed[:25]...), 20, 200) {
		t.Error("mid-step: want more")
	}
	// Failed executions do not count; all failed is settled.
	failed := []record.Execution{{Error: "x"}, {Error: "x"}}
	if wantMore(failed, 2, 20) {
		t.Error("all failed: no more")
	}
}
