package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/engine"
)

// BenchmarkServeStartup measures, per iteration, the wall time from exec of `validate serve` to the
// answer of its first signed request (a database feed read through the SDK), and, in the same
// iteration, the wall time of `validate version` from exec to exit: the floor every command of the
// binary pays (exec, runtime and package initialisation, the command line). Reported as medians:
//
//   - serve-ms: exec → first signed response;
//
//   - version-ms: exec → exit of `validate version`;
//
//   - serve/version: their ratio, which the machine's load moves less than either figure.
//
//     go test -run '^$' -bench ServeStartup -benchtime 20x ./cmd/validate/
//
// The binary is built once, as `make build` builds it.
func BenchmarkServeStartup(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "validate")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	cred, err := azcosmos.NewKeyCredential(engine.EmulatorKey)
	if err != nil {
		b.Fatal(err)
	}
	var serve, version []float64
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if out, err := exec.Command(bin, "version").CombinedOutput(); err != nil {
			b.Fatalf("version: %v\n%s", err, out)
		}
		version = append(version, benchMS(time.Since(t0)))

		serve = append(serve, benchMS(firstSignedRequest(b, bin, cred)))
	}
	b.StopTimer()
	s, v := benchMedian(serve), benchMedian(version)
	b.ReportMetric(s, "serve-ms")
	b.ReportMetric(v, "version-ms")
	b.ReportMetric(s/v, "serve/version")
	b.ReportMetric(0, "ns/op")
}

// firstSignedRequest starts `validate serve` on a free port and returns the time from exec to the
// SDK's first signed response; the server is stopped (interrupt, then kill) before it returns.
func firstSignedRequest(b *testing.B, bin string, cred azcosmos.KeyCredential) time.Duration {
	b.Helper()
	cmd := exec.Command(bin, "serve", "--port", "0", "--compute-port", "0", "--protocol", "http")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		if runtime.GOOS == "windows" {
			_ = cmd.Process.Kill()
		} else {
			_ = cmd.Process.Signal(os.Interrupt)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	sc := bufio.NewScanner(stdout)
	var url string
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "listening on "); i >= 0 {
			url = strings.Fields(line[i+len("listening on "):])[0]
			break
		}
	}
	if url == "" {
		b.Fatalf("serve printed no ready line (%v)", sc.Err())
	}
	go func() { // keep the pipe drained
		for sc.Scan() {
		}
	}()
	cl, err := azcosmos.NewClientWithKey(url, cred, nil)
	if err != nil {
		b.Fatal(err)
	}
	pager := cl.NewQueryDatabasesPager("SELECT * FROM c", nil)
	if _, err := pager.NextPage(context.Background()); err != nil {
		b.Fatalf("first request: %v", err)
	}
	return time.Since(t0)
}

func benchMS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func benchMedian(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
