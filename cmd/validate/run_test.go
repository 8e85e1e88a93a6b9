package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/target/targettest"
)

// Every example design runs end to end in internal/pipeline (TestValidate_Examples), through the
// same entry point this command calls; the tests here cover the mapping of flags and exit codes.

// TestRun_FilesOnlyStillSaysTheVerdict: with reports going to files only, the terminal still gets
// each design's verdict line.
func TestRun_FilesOnlyStillSaysTheVerdict(t *testing.T) {
	code, stdout, stderr := runCLI(t, "run", "--target", "embedded", "--progress", "none",
		"--out", t.TempDir(), "--format", "json", repo("designs", "saas.yaml"))
	if code != ExitOK || !strings.Contains(stdout, "saas: PASS: 10 patterns") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestRun_BrokenDesignFailsForTheRightReasons is the test design: a wrong estimate, a missing
// composite index and a filter on an excluded path must each fail, with the reason said.
func TestRun_BrokenDesignFailsForTheRightReasons(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--target", "embedded", "--samples", "3", "--progress", "none",
		"--out", out, "--format", "json", repo("testdata", "designs", "broken.yaml"))
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitFindings, stdout, stderr)
	}
	var rep struct {
		Patterns []struct {
			ID      string   `json:"id"`
			Verdict string   `json:"verdict"`
			Reasons []string `json:"reasons"`
		} `json:"patterns"`
	}
	data, err := os.ReadFile(filepath.Join(out, "broken.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		verdicts []string
		reason   *regexp.Regexp
	}{
		"AP2": {[]string{"fail"}, regexp.MustCompile(`(?i)estimate`)},
		"AP3": {[]string{"error", "fail"}, regexp.MustCompile(`(?i)composite index.*/priority.*/openedAt`)},
		"AP4": {[]string{"fail"}, regexp.MustCompile(`(?i)estimate`)},
	}
	seen := 0
	for _, p := range rep.Patterns {
		w, ok := want[p.ID]
		if !ok {
			continue
		}
		seen++
		reasons := strings.Join(p.Reasons, "\n")
		if !contains(w.verdicts, p.Verdict) {
			t.Errorf("%s: verdict %s, want one of %v; reasons:\n%s", p.ID, p.Verdict, w.verdicts, reasons)
		}
		if !w.reason.MatchString(reasons) {
			t.Errorf("%s: reasons do not match %v:\n%s", p.ID, w.reason, reasons)
		}
	}
	if seen != len(want) {
		t.Fatalf("found %d of %d patterns in the report", seen, len(want))
	}
}

// TestRun_DesignErrorsExit2BeforeAnyTarget: a bad design is reported and nothing starts.
func TestRun_DesignErrorsExit2BeforeAnyTarget(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte(strings.Replace(tinyDesign, "partitionKey: [/tenantId]", "partitionKey: [tenantId]", 1)), 0o644)
	code, _, stderr := runCLI(t, "run", bad)
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d: %s", code, ExitUsage, stderr)
	}
	if !strings.Contains(stderr, "bad.yaml:8:") || !strings.Contains(stderr, "partitionKey") || strings.Contains(stderr, "target:") {
		t.Errorf("want the error pointing at line 5 and no target started:\n%s", stderr)
	}
}

// TestRun_OneFormatOnStandardOutput: without --out, the format asked for is the one printed (it was
// the text report whatever --format said).
func TestRun_OneFormatOnStandardOutput(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "--target", "embedded", "--samples", "1", "--progress", "none", "--format", "md", repo("designs", "iot.yaml"))
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "## ") || !strings.Contains(out, "Cosmos DB design `iot`") {
		t.Errorf("stdout is not the Markdown report:\n%.400s", out)
	}
}

// TestRun_BaselineRoundTrip writes a baseline, compares the same run with it (no regression), then
// runs a design that excludes the filtered path and expects the regression named.
func TestRun_BaselineRoundTrip(t *testing.T) {
	dir := t.TempDir()
	design := filepath.Join(dir, "tiny.yaml")
	write := func(excluded string) {
		t.Helper()
		if err := os.WriteFile(design, []byte(strings.ReplaceAll(tinyDesign, "EXCLUDED", excluded)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := filepath.Join(dir, "tiny.baseline.json")
	write(`["/body/?"]`)
	args := []string{"run", "--target", "embedded", "--samples", "3", "--progress", "none", "--baseline", base}
	if code, out, errOut := runCLI(t, append(args, "--update-baseline", design)...); code != ExitOK {
		t.Fatalf("update baseline: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, append(args, design)...); code != ExitOK {
		t.Fatalf("same run vs baseline: exit %d\n%s\n%s", code, out, errOut)
	}
	write(`["/body/?", "/status/?"]`)
	code, out, errOut := runCLI(t, append(args, design)...)
	if code != ExitFindings {
		t.Fatalf("excluded filter path: exit %d, want %d\n%s\n%s", code, ExitFindings, out, errOut)
	}
	if !strings.Contains(out, "Q1") || !strings.Contains(strings.ToLower(out), "regress") {
		t.Errorf("the regression should name Q1:\n%s", out)
	}
	// compare on the files themselves: refuses different seeds unless forced.
	other := filepath.Join(dir, "other.json")
	if code, _, errOut := runCLI(t, "run", "--target", "embedded", "--samples", "3", "--seed", "2", "--progress", "none",
		"--baseline", other, "--update-baseline", design); code != ExitOK {
		t.Fatalf("seed 2 baseline: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "compare", base, other); code != ExitUsage || !strings.Contains(errOut, "seed") {
		t.Errorf("compare across seeds: exit %d, stderr %q; want a refusal naming the seed", code, errOut)
	}
}

// tinyDesign is testdata/designs/tiny.yaml (shared with internal/pipeline's tests) with EXCLUDED for
// its indexing policy's excluded paths.
var tinyDesign = func() string {
	b, err := os.ReadFile(repo("testdata", "designs", "tiny.yaml"))
	if err != nil {
		panic(err)
	}
	return strings.Replace(string(b), `excluded: ["/body/?"]`, "excluded: EXCLUDED", 1)
}()

// TestServe_StartsAndStopsOnSignal runs `validate serve` on a free port, talks to it, and stops it.
func TestServe_StartsAndStopsOnSignal(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--port", "0", "--compute-port", "0"}, &out, &bytes.Buffer{})
	}()
	re := regexp.MustCompile(`listening on (http://\S+)`)
	m, code := out.waitFor(re, done)
	if m == nil {
		cancel()
		t.Fatalf("serve exited %d with no ready line: %q", code, out.String())
	}
	url := m[1]
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusOK {
		t.Errorf("GET / = %d", resp.StatusCode)
	}
	cancel()
	// No deadline: a serve that does not stop is ended by go test's -timeout with every stack.
	if code := <-done; code != ExitOK {
		t.Errorf("serve exit %d", code)
	}
}

// TestRun_EmulatorTargetOnLocalImage runs the whole pipeline through testcontainers against the
// `validate serve` image built here (FROM scratch, nothing pulled). It skips without Docker.
func TestRun_EmulatorTargetOnLocalImage(t *testing.T) {
	image := targettest.ServeImage(t)
	code, stdout, stderr := runCLI(t, "run", "--target", "emulator", "--emulator-image", image, "--samples", "2",
		"--progress", "none", repo("designs", "catalog.yaml"))
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "target: emulator") {
		t.Errorf("first line should name the emulator target:\n%s", stderr)
	}
	if !strings.Contains(stdout, "modeled") {
		t.Errorf("the report should carry modeled figures alongside:\n%s", stdout)
	}
}

// TestRun_EmulatorWithoutImageExits3 asks for an image that is not on the machine, without --pull.
func TestRun_EmulatorWithoutImageExits3(t *testing.T) {
	code, _, stderr := runCLI(t, "run", "--target", "emulator", "--emulator-image", "cdv-no-such-image:none",
		"--progress", "none", repo("designs", "catalog.yaml"))
	if code != ExitInfra {
		t.Fatalf("exit %d, want %d: %s", code, ExitInfra, stderr)
	}
	if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines > 2 {
		t.Errorf("want one clear line, got %d:\n%s", lines, stderr)
	}
}
