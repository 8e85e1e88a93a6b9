package seed

import (
	"context"
	"testing"
)

func TestLimiter_AIMD(t *testing.T) {
	ctx := context.Background()
	l := newLimiter(16)
	for range 16 {
		if err := l.acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Sixteen writes in flight all receive a 429: one halving, not sixteen.
	for range 16 {
		l.throttled()
	}
	if got := l.current(); got != 8 {
		t.Fatalf("limit after a burst of 429s = %d, want 8", got)
	}
	// The window that saw the cut completes: no increase yet.
	for range 8 {
		l.release()
	}
	if got := l.current(); got != 8 {
		t.Fatalf("limit after the throttled window = %d, want 8", got)
	}
	// A 429 in the next window cuts again.
	l.throttled()
	if got := l.current(); got != 4 {
		t.Fatalf("limit after a 429 in the next window = %d, want 4", got)
	}
	for range 8 { // the rest of the first sixteen complete; the window of the second cut ends
		l.release()
	}
	// Clean windows raise the limit by one each, up to the configured concurrency.
	want := 4
	for want < 16 {
		for range want {
			if err := l.acquire(ctx); err != nil {
				t.Fatal(err)
			}
			l.release()
		}
		want++
		if got := l.current(); got != want {
			t.Fatalf("limit after a clean window = %d, want %d", got, want)
		}
	}
	for range 100 {
		_ = l.acquire(ctx)
		l.release()
	}
	if got := l.current(); got != 16 {
		t.Fatalf("limit = %d, want the maximum 16", got)
	}
	for range 40 {
		l.throttled()
		for range l.current() {
			_ = l.acquire(ctx)
			l.release()
		}
	}
	if got := l.current(); got != 1 {
		t.Fatalf("limit under steady 429s = %d, want 1", got)
	}
}

func TestLimiter_AcquireEndsWithContext(t *testing.T) {
	l := newLimiter(1)
	if err := l.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { errc <- l.acquire(ctx) }()
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Fatalf("acquire = %v, want context.Canceled", err)
	}
}
