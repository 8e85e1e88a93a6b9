package pipeline

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/plan"
)

// The embedded engine keeps every seeded document in this process's heap, and Go's collector lets
// the heap grow to twice what is live before it collects (GOGC=100): a run seeded at 1,000,000
// small documents held about 0.86 GB live and peaked at 2.4 GB resident. A soft memory limit
// (runtime/debug.SetMemoryLimit) makes the collector run sooner as the heap nears it, and changes
// nothing below it: with the limit at 1.5 GB the same run peaked at 1.56 GB in the same wall time
// (docs/performance.md).
const (
	// limitFloor: below this estimated store the default collector's headroom is left alone; a
	// small run's heap is dominated by what is not the store (assumed).
	limitFloor = 512 << 20
	// limitHeadroom is the heap beside the store: the SDK, the seeder's buffers, the reports
	// (assumed: the million-document run's heap between collections less its live store was
	// about 0.2 GB).
	limitHeadroom = 256 << 20
	// limitGrowth is how far the heap may grow over the store between collections: half of it,
	// where GOGC=100 lets it grow by all of it (assumed: the trade between memory and collections
	// measured on the million-document run cost no wall time).
	limitGrowth = 1.5
)

// storeHeap estimates the heap the embedded engine's store takes for the documents d seeds, from
// the plan's document counts and stored sizes (engine.ItemHeap per document).
func storeHeap(d *design.Design) float64 {
	pl, err := plan.Build(d, plan.Options{})
	if err != nil {
		return 0
	}
	total := 0.0
	for _, c := range pl.Containers {
		for _, doc := range c.Documents {
			total += doc.Count * engine.ItemHeap(doc.Bytes)
		}
	}
	return total
}

// limits are the memory limits of the runs under way in this process (an MCP server may run
// several at once), and base the limit before the first: the process's limit is the largest of
// them, and base again once none is left.
var limits struct {
	sync.Mutex
	active []int64
	base   int64
}

// memoryLimit sets Go's soft memory limit for a run whose largest design's store is estimated
// past limitFloor (the designs run one after the other, each on its own database), unless the
// environment sets GOMEMLIMIT, and says so on status. It returns the function that ends the run's
// claim on it.
func memoryLimit(designs []*design.Design, status io.Writer) (restore func()) {
	restore = func() {}
	if os.Getenv("GOMEMLIMIT") != "" {
		return restore
	}
	store := 0.0
	for _, d := range designs {
		store = max(store, storeHeap(d))
	}
	if store < limitFloor {
		return restore
	}
	limit := int64(math.Min(store*limitGrowth+limitHeadroom, math.MaxInt64/2))
	limits.Lock()
	if len(limits.active) == 0 {
		limits.base = debug.SetMemoryLimit(-1)
	}
	limits.active = append(limits.active, limit)
	debug.SetMemoryLimit(slices.Max(limits.active))
	limits.Unlock()
	// The limit bounds, softly, the memory the Go runtime has mapped and not released (not the
	// binary, nor memory outside the runtime: runtime/debug.SetMemoryLimit), so the process's
	// resident size can end above it; the line says so.
	fmt.Fprintf(status, "memory: the embedded store is estimated at %.2f GB; the Go runtime's soft memory limit is set to %.2f GB (Go's collector runs sooner near it; it is not a cap on the process's resident size, which can end above it; set GOMEMLIMIT to choose another)\n",
		store/1e9, float64(limit)/1e9)
	return func() {
		limits.Lock()
		defer limits.Unlock()
		limits.active = slices.Delete(limits.active, slices.Index(limits.active, limit), slices.Index(limits.active, limit)+1)
		if len(limits.active) == 0 {
			debug.SetMemoryLimit(limits.base)
		} else {
			debug.SetMemoryLimit(slices.Max(limits.active))
		}
	}
}
