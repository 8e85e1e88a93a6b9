package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// inflight names what the current run has created on a target and not yet removed, for the
// message of a second interrupt; "" when nothing is at stake.
var inflight struct {
	mu   sync.Mutex
	what string
}

func setInflight(what string) {
	inflight.mu.Lock()
	inflight.what = what
	inflight.mu.Unlock()
}

func inflightText() string {
	inflight.mu.Lock()
	defer inflight.mu.Unlock()
	return inflight.what
}

// notifyInterrupts returns a context that the first SIGINT or SIGTERM cancels (the run then tears
// down what it created); a second one exits at once with ExitInfra, naming what may be left.
func notifyInterrupts(stderr io.Writer) (context.Context, func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go watchInterrupts(sigs, done, cancel, stderr, os.Exit)
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// watchInterrupts cancels on the first signal and calls exit on the second, until done.
func watchInterrupts(sigs <-chan os.Signal, done <-chan struct{}, cancel func(), stderr io.Writer, exit func(int)) {
	select {
	case <-sigs:
		cancel()
	case <-done:
		return
	}
	fmt.Fprintln(stderr, "validate: interrupted; removing what this run created (interrupt again to exit at once)")
	select {
	case <-sigs:
	case <-done:
		return
	}
	if what := inflightText(); what != "" {
		fmt.Fprintf(stderr, "validate: interrupted again; exiting without finishing teardown: %s may be left in place\n", what)
	} else {
		fmt.Fprintln(stderr, "validate: interrupted again; exiting at once (nothing of this run is left on a target)")
	}
	exit(ExitInfra)
}
