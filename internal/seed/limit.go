package seed

import (
	"context"
	"sync"
)

// limiter bounds the writes in flight by a limit that follows what the target accepts: additive
// increase, multiplicative decrease (as TCP's congestion window). It starts at max, the
// configured concurrency, so a target that never throttles (the embedded engine, the emulators)
// is written at full concurrency from the first document. A 429 halves the limit, at most once
// per window (as many completed writes as the limit allows since the last cut), so that the
// burst of 429s that the writes in flight receive together counts as one signal; each window of
// writes without a 429 raises the limit by one, back up to max. Writes waiting out a 429 keep
// their slot, so a throttled account sees fewer requests, not the same number retried later.
type limiter struct {
	mu       sync.Mutex
	cond     *sync.Cond
	max      int
	limit    int
	inflight int
	// done counts the writes completed since the limit last changed.
	done int
	// cut is true until a window has completed since the last decrease.
	cut bool
	// lowest is the lowest limit so far.
	lowest int
}

func newLimiter(max int) *limiter {
	l := &limiter{max: max, limit: max, lowest: max}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// acquire waits for a slot; it returns ctx's error when ctx ends first.
func (l *limiter) acquire(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		l.mu.Lock()
		l.cond.Broadcast()
		l.mu.Unlock()
	})
	defer stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.inflight >= l.limit {
		if err := ctx.Err(); err != nil {
			return err
		}
		l.cond.Wait()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	l.inflight++
	return nil
}

// throttled records a 429 received by a write in flight.
func (l *limiter) throttled() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut {
		return
	}
	l.limit = max(1, l.limit/2)
	l.lowest = min(l.lowest, l.limit)
	l.done, l.cut = 0, true
}

// release frees the slot of a completed write (whatever its outcome).
func (l *limiter) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight--
	l.done++
	if l.done >= l.limit {
		if !l.cut && l.limit < l.max {
			l.limit++
		}
		l.done, l.cut = 0, false
	}
	l.cond.Broadcast()
}

// low is the lowest limit so far.
func (l *limiter) low() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lowest
}

// current is the limit now (for tests and the record of the run).
func (l *limiter) current() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit
}
