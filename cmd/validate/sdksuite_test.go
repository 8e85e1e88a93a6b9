package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The azcosmos SDK's own emulator suite (emulator_*_test.go in the module, run against an emulator
// when EMULATOR is set) against `validate serve`, started as docs/serve.md tells CI to start it,
// with the account the suite expects (Strong consistency, Entra ID tokens accepted). The suite
// addresses https://localhost:8081/ and the compute gateway at https://localhost:8903/; the test
// serves on free loopback ports instead and gives a copy of the suite those addresses, so that it
// never collides with a server already on 8081 or 8903.

// suiteModule is the azcosmos module whose suite runs: the version go.mod requires.
const suiteModule = "github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

func TestServe_SDKEmulatorSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the SDK's emulator suite builds the SDK's tests and takes about a minute")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run the SDK's emulator suite with")
	}
	// No deadline of the test's own: building the SDK package's tests on a busy machine is slow,
	// not wrong (a fixed budget was reached at load 16). The inner go test gets what is left of
	// this binary's -timeout less a minute, so a hung suite ends first and its stacks reach this
	// test's output; with no -timeout (0) neither has one.
	ctx := context.Background()
	innerTimeout := "0"
	if d, ok := t.Deadline(); ok {
		left := time.Until(d)
		if left > 2*time.Minute {
			left -= time.Minute
		}
		innerTimeout = left.Round(time.Second).String()
	}
	goOut := func(args ...string) string {
		out, err := exec.CommandContext(ctx, goBin, args...).Output()
		if err != nil {
			t.Skipf("go %s: %v: the SDK's emulator suite cannot be located", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	modDir := goOut("list", "-m", "-f", "{{.Dir}}", suiteModule)
	version := goOut("list", "-m", "-f", "{{.Version}}", suiteModule)
	gomod := goOut("env", "GOMOD")
	suiteFiles, _ := filepath.Glob(filepath.Join(modDir, "emulator_*_test.go"))
	if modDir == "" || len(suiteFiles) == 0 {
		t.Skipf("the module cache has no emulator suite of %s %s (emulator_*_test.go): run 'go mod download %s' to fetch it", suiteModule, version, suiteModule)
	}
	tests := suiteTests(t, suiteFiles)

	tmp := t.TempDir()
	pem := filepath.Join(tmp, "cosmos.pem")
	routing, compute, stop := startServe(t, "--protocol", "https", "--port", "0", "--compute-port", "0",
		"--cert-out", pem, "--consistency", "Strong", "--allow-aad")
	defer stop()

	// A copy of the module, its suite pointed at this server, built with this module's
	// dependencies (the module cache holds those, not necessarily the SDK's own go.mod's).
	src := filepath.Join(tmp, "azcosmos")
	copyDir(t, modDir, src)
	hostOf := func(u string) string { return strings.TrimSuffix(strings.TrimPrefix(u, "https://"), "/") }
	ports := strings.NewReplacer(
		"localhost:8081", "localhost:"+portOf(hostOf(routing)),
		"127.0.0.1:8081", hostOf(routing),
		"localhost:8903", "localhost:"+portOf(hostOf(compute)),
	)
	// emulator_test.go holds the suite's addresses; the tests are in emulator_*_test.go.
	for _, f := range append(suiteFiles, filepath.Join(modDir, "emulator_test.go")) {
		dst := filepath.Join(src, filepath.Base(f))
		b, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		moved := ports.Replace(string(b))
		if strings.Contains(moved, ":8081") || strings.Contains(moved, ":8903") {
			t.Fatalf("%s still names port 8081 or 8903: the suite would reach whatever listens there", filepath.Base(f))
		}
		if err := os.WriteFile(dst, []byte(moved), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ours, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	var mod []string
	for _, line := range strings.Split(string(ours), "\n") {
		switch {
		case strings.HasPrefix(line, "module "):
			line = "module " + suiteModule
		case strings.Contains(line, suiteModule+" "):
			continue
		}
		mod = append(mod, line)
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte(strings.Join(mod, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(filepath.Dir(gomod), "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}

	run := exec.CommandContext(ctx, goBin, "test", "-count=1", "-v", "-timeout", innerTimeout,
		"-run", "^("+strings.Join(tests, "|")+")$", ".")
	run.Dir = src
	// Loopback only: the module cache and nothing else (GOPROXY=off), the server's certificate
	// trusted through SSL_CERT_FILE as docs/serve.md has it.
	run.Env = append(os.Environ(), "EMULATOR=1", "SSL_CERT_FILE="+pem, "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := run.CombinedOutput()
	passed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^--- PASS: (\S+)`).FindAllStringSubmatch(string(out), -1) {
		passed[m[1]] = true
	}
	var failed []string
	for _, name := range tests {
		if !passed[name] {
			failed = append(failed, name)
		}
	}
	t.Logf("%s %s emulator suite against validate serve: %d/%d passed", suiteModule, version, len(tests)-len(failed), len(tests))
	if len(failed) > 0 || err != nil {
		t.Fatalf("suite: %v; not passed: %s\n%s", err, strings.Join(failed, ", "), tail(string(out), 80))
	}
}

// suiteTests are the test functions of the suite's files.
func suiteTests(t *testing.T, files []string) []string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			names = append(names, string(m[1]))
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		t.Fatal("the emulator suite's files hold no test")
	}
	return names
}

// startServe runs `validate serve` with args in this process and returns its routing and compute
// gateways' addresses, from the lines it prints when ready, and a function that stops it.
func startServe(t *testing.T, args ...string) (routing, compute string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	var errOut bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- Run(ctx, append([]string{"serve"}, args...), &out, &errOut) }()
	// Stopping waits for the command to return, with no deadline of its own: one that does not
	// stop is ended by go test's -timeout with every goroutine's stack.
	stop = func() { cancel(); <-done }
	// The compute gateway's line comes before the routing gateway's ready line.
	ready := regexp.MustCompile(`listening on (\S+)`)
	gw := regexp.MustCompile(`compute gateway on (\S+)`)
	m, code := out.waitFor(ready, done)
	if m == nil {
		cancel()
		t.Fatalf("validate serve exited %d before it was ready: %s%s", code, out.String(), errOut.String())
	}
	routing = m[1]
	if c := gw.FindStringSubmatch(out.String()); c != nil {
		compute = c[1]
	}
	return routing, compute, stop
}

// portOf is the port of host:port.
func portOf(hostPort string) string {
	return hostPort[strings.LastIndexByte(hostPort, ':')+1:]
}

// copyDir copies the regular files under from to to, writable.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy the SDK module: %v", err)
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
