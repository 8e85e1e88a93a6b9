package testenv

import (
	"context"
	"flag"
	"time"
)

// Fuzzing reports whether this test binary is fuzzing (go test -fuzz, in the coordinator and in its
// workers) rather than running the seed corpus as ordinary tests.
func Fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// FuzzHangBound bounds ctx by d while fuzzing and leaves it unbounded otherwise. Go's fuzzing has
// no deadline per input (a fuzz worker has no -timeout alarm), so a fuzz target that can hang
// bounds each input itself; run as an ordinary test (the seed corpus in make test) the input has
// no wall-clock bound that a busy machine could reach, and a hang is ended by go test's -timeout
// with every goroutine's stack. d is a hang detector, generous beside an input's milliseconds.
func FuzzHangBound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if !Fuzzing() {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
