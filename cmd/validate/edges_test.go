package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/testenv"
)

// A design name cannot take its baseline file outside the baseline directory.
func TestEdges_BaselineFileStaysInItsDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"../../x", "..", "a/b", `..\..\y`, "/etc/passwd"} {
		got := pipeline.BaselineFile(dir+string(os.PathSeparator), &design.Design{Name: name})
		if filepath.Dir(got) != dir || !strings.HasSuffix(got, ".baseline.json") {
			t.Errorf("design %q: baseline file %s, want one inside %s", name, got, dir)
		}
	}
}

// Files the CLI reads are bounded: /dev/zero as a baseline, a report or a config file is refused
// with exit 2 instead of being read until memory runs out.
func TestEdges_BoundedReads(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		testenv.Need(t, "no /dev/zero")
	}
	good := repo("baselines", "embedded", "ecommerce.baseline.json")
	for _, args := range [][]string{
		{"compare", "/dev/zero", good},
		{"compare", good, "/dev/zero"},
		{"--config", "/dev/zero", "plan", repo("designs", "ecommerce.yaml")},
	} {
		code, _, errOut := runCLI(t, args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d; stderr %q", args, code, ExitUsage, errOut)
		}
	}
	code, _, errOut := runCLI(t, "run", "--baseline", "/dev/zero", repo("designs", "ecommerce.yaml"))
	if code != ExitUsage || !strings.Contains(errOut, "/dev/zero") {
		t.Errorf("run --baseline /dev/zero: exit %d; stderr %q", code, errOut)
	}
}

// A second interrupt exits at once, naming what may be left; the first cancels the run.
func TestEdges_SecondInterruptExits(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	done := make(chan struct{})
	var cancelled atomic.Bool
	exited := make(chan int, 1)
	var stderr bytes.Buffer
	setInflight(`database "shop-1" on account`)
	defer setInflight("")
	finished := make(chan struct{})
	go func() {
		watchInterrupts(sigs, done, func() { cancelled.Store(true) }, &stderr, func(code int) { exited <- code })
		close(finished)
	}()
	sigs <- os.Interrupt
	sigs <- os.Interrupt
	code := <-exited
	<-finished
	if !cancelled.Load() || code != ExitInfra {
		t.Errorf("cancelled %v, exit %d; want cancelled and %d", cancelled.Load(), code, ExitInfra)
	}
	if !strings.Contains(stderr.String(), `database "shop-1" on account may be left`) {
		t.Errorf("stderr %q does not name what may be left", stderr.String())
	}
}

// The first interrupt says what the command does about it: run removes what it created, serve stops
// the server, other commands stop.
func TestEdges_FirstInterruptSaysWhatHappens(t *testing.T) {
	for _, tc := range []struct{ stopping, want string }{
		{"", "validate: interrupted; stopping (interrupt again"},
		{"removing what this run created", "validate: interrupted; removing what this run created (interrupt again"},
		{"stopping the server", "validate: interrupted; stopping the server (interrupt again"},
	} {
		setStopping(tc.stopping)
		sigs := make(chan os.Signal, 1)
		done := make(chan struct{})
		cancelled := make(chan struct{})
		var stderr bytes.Buffer
		finished := make(chan struct{})
		go func() {
			watchInterrupts(sigs, done, func() { close(cancelled) }, &stderr, func(int) { t.Error("exited on one interrupt") })
			close(finished)
		}()
		sigs <- os.Interrupt
		<-cancelled
		close(done)
		<-finished
		if !strings.HasPrefix(stderr.String(), tc.want) {
			t.Errorf("stopping %q: stderr %q, want %q", tc.stopping, stderr.String(), tc.want)
		}
	}
	setStopping("")
}

// TestQuerySyntax_IsADesignError: a query that does not parse makes run, plan and advise refuse the
// design before anything is provisioned (exit 2, with lint's file:line:col line), not run every
// execution into an error. run's target is unreachable: reaching it would be exit 3.
func TestQuerySyntax_IsADesignError(t *testing.T) {
	src, err := os.ReadFile(repo("designs", "ecommerce.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	good := "WHERE c.userId = @userId AND c.type = 'order'"
	if !strings.Contains(string(src), good) {
		t.Fatalf("designs/ecommerce.yaml no longer has %q", good)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(src), good, "WHERE c.userId = @userId WHERE c.type = 'order'", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, lintOut, lintErr := runCLI(t, "lint", bad)
	want := ""
	for _, line := range strings.Split(lintOut+lintErr, "\n") {
		if strings.HasSuffix(line, "[query-syntax]") {
			want = line
		}
	}
	if !strings.HasPrefix(want, bad+":") {
		t.Fatalf("lint does not report the syntax error at a line of %s:\n%s%s", bad, lintOut, lintErr)
	}
	for _, args := range [][]string{
		{"run", "--target", "emulator", "--endpoint", "http://127.0.0.1:1", "--progress", "none", bad},
		{"plan", bad},
		{"advise", bad},
	} {
		t.Run(args[0], func(t *testing.T) {
			code, _, errOut := runCLI(t, args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, ExitUsage, errOut)
			}
			if strings.TrimSpace(errOut) != want {
				t.Errorf("stderr %q, want lint's line %q alone", errOut, want)
			}
		})
	}
}
