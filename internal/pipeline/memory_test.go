package pipeline

import (
	"bytes"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestMemoryLimit: a run whose store is estimated past the floor gets a soft memory limit of half
// the store's growth over it, says so, and restores the limit before it; a small run and one whose
// environment sets GOMEMLIMIT are left alone.
func TestMemoryLimit(t *testing.T) {
	million, err := design.Load("../../testdata/million.yaml")
	if err != nil {
		t.Fatal(err)
	}
	small, err := design.Load("../../designs/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOMEMLIMIT", "") // as unset: memoryLimit reads it
	before := debug.SetMemoryLimit(-1)

	store := storeHeap(million)
	// 1,000,000 documents of about 100 B of fields: their JSON, the system properties and the
	// engine's record come to about 0.9–1.0 GB (docs/performance.md, 0.86 GB live measured).
	if store < 0.8e9 || store > 1.2e9 {
		t.Fatalf("million.yaml's store estimated at %.2f GB, want about 0.9–1.0 GB", store/1e9)
	}
	var status bytes.Buffer
	restore := memoryLimit([]*design.Design{small, million}, &status)
	got := debug.SetMemoryLimit(-1)
	want := int64(store*limitGrowth + limitHeadroom)
	if math.Abs(float64(got-want)) > 1<<20 {
		t.Errorf("limit %d, want %d", got, want)
	}
	if !strings.Contains(status.String(), "GOMEMLIMIT") {
		t.Errorf("status %q does not say how to choose another limit", status.String())
	}
	// The process's peak resident size ends above the limit: the line says what it bounds, in one line.
	if s := status.String(); strings.Count(s, "\n") != 1 || !strings.Contains(s, "Go runtime's soft memory limit") || !strings.Contains(s, "not a cap on the process's resident size") {
		t.Errorf("status %q: want one line saying the limit is the Go runtime's, not a cap on the resident size", s)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after restore %d, want %d", got, before)
	}

	status.Reset()
	memoryLimit([]*design.Design{small}, &status)()
	if status.Len() > 0 || debug.SetMemoryLimit(-1) != before {
		t.Errorf("a small run set a limit: %q", status.String())
	}
	t.Setenv("GOMEMLIMIT", "3GiB")
	memoryLimit([]*design.Design{million}, &status)()
	if status.Len() > 0 {
		t.Errorf("GOMEMLIMIT in the environment was overridden: %q", status.String())
	}
}

// TestMemoryLimit_Overlapping: two runs at once hold the larger limit while either runs, in any
// order of ending, and the limit before them comes back after both.
func TestMemoryLimit_Overlapping(t *testing.T) {
	million, err := design.Load("../../testdata/million.yaml")
	if err != nil {
		t.Fatal(err)
	}
	double := *million
	double.Containers = append(slices.Clone(million.Containers), million.Containers...)
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	small := int64(storeHeap(million)*limitGrowth + limitHeadroom)
	large := int64(storeHeap(&double)*limitGrowth + limitHeadroom)
	for _, largeEndsFirst := range []bool{true, false} {
		endSmall := memoryLimit([]*design.Design{million}, io.Discard)
		endLarge := memoryLimit([]*design.Design{&double}, io.Discard)
		if got := debug.SetMemoryLimit(-1); got != large {
			t.Fatalf("two runs: limit %d, want the larger %d", got, large)
		}
		if largeEndsFirst {
			endLarge()
			if got := debug.SetMemoryLimit(-1); got != small {
				t.Errorf("the larger run ended: limit %d, want %d", got, small)
			}
			endSmall()
		} else {
			endSmall()
			if got := debug.SetMemoryLimit(-1); got != large {
				t.Errorf("the smaller run ended: limit %d, want %d", got, large)
			}
			endLarge()
		}
		if got := debug.SetMemoryLimit(-1); got != before {
			t.Errorf("both ended: limit %d, want %d", got, before)
		}
	}
}
