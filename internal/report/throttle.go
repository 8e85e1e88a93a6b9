package report

import (
	"fmt"

	"github.com/cosmosdv/validate/internal/record"
)

// throttleFrom copies onto the report's patterns the 429 counts of the run the report rests on
// (run.Patterns[i].Throttled, RetryWaitMs), matched by pattern id.
func throttleFrom(r *Report, run *record.Run) {
	if run == nil {
		return
	}
	by := map[string]*record.Pattern{}
	for i := range run.Patterns {
		by[run.Patterns[i].ID] = &run.Patterns[i]
	}
	for i := range r.Patterns {
		if p := by[r.Patterns[i].ID]; p != nil {
			r.Patterns[i].Throttled, r.Patterns[i].RetryWaitMs = p.Throttled, p.RetryWaitMs
		}
	}
}

// throttleLines says, per seeded document type and per pattern, how many 429 responses the target
// answered (the SDK's retries included) and how long they asked to wait. Empty when the target
// never throttled, so reports of unthrottled runs are unchanged.
func throttleLines(r *Report) []string {
	var out []string
	for _, s := range r.Seeding {
		if s.Throttled > 0 {
			out = append(out, fmt.Sprintf("seeding %s in %s: %s, retry waits asked %s", s.Type, s.Container,
				count429(s.Throttled), fmtWaitMs(s.RetryWaitMs)))
		}
	}
	for _, p := range r.Patterns {
		if p.Throttled > 0 {
			out = append(out, fmt.Sprintf("pattern %s: %s, retry waits asked %s", p.ID, count429(p.Throttled), fmtWaitMs(p.RetryWaitMs)))
		}
	}
	return out
}

func count429(n int64) string {
	if n == 1 {
		return "1 response 429"
	}
	return fmt.Sprintf("%d responses 429", n)
}

func fmtWaitMs(ms float64) string {
	if ms >= 10000 {
		return fmt.Sprintf("%.1f s", ms/1000)
	}
	return fmt.Sprintf("%.0f ms", ms)
}
