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
// message of a second interrupt; "" when nothing is at stake. stopping is what the command does on
// the first interrupt, for its message ("" = stopping).
var inflight struct {
	mu       sync.Mutex
	what     string
	stopping string
}

// setStopping says what the command does when interrupted once: run removes what it created, serve
// stops the server; other commands just stop.
func setStopping(what string) {
	inflight.mu.Lock()
	inflight.stopping = what
	inflight.mu.Unlock()
}

func stoppingText() string {
	inflight.mu.Lock()
	defer inflight.mu.Unlock()
	if inflight.stopping == "" {
		return "stopping"
	}
	return inflight.stopping
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
	fmt.Fprintf(stderr, "validate: interrupted; %s (interrupt again to exit at once)\n", stoppingText())
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
