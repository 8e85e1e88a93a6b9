package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// run executes the CLI in-process with buffers, in dir (the repository root when dir is "").
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// repo returns the path of a file relative to the repository root.
func repo(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

func TestRun_HelpReadsWell(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"run", "--help"}, {"lint", "--help"}, {"plan", "--help"}, {"serve", "--help"},
		{"compare", "--help"}, {"config", "--help"}, {"version", "--help"}, {"rules", "--help"}, {"import", "--help"}, {"mcp", "--help"},
		{"studio", "--help"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, args...)
			if code != ExitOK {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if !strings.Contains(out, "Usage:") || len(out) < 200 {
				t.Errorf("help too thin:\n%s", out)
			}
		})
	}
}

func TestRun_Version(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != ExitOK || !strings.Contains(out, "validate ") || !strings.Contains(out, "azcosmos ") {
		t.Fatalf("exit %d, out %q", code, out)
	}
}

func TestRun_UsageErrorsExit2(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"unknown flag", []string{"run", "--no-such-flag", "x.yaml"}, "unknown flag"},
		{"run without design", []string{"run"}, "missing design file"},
		{"lint without design", []string{"lint"}, "missing design file"},
		{"bad target", []string{"run", "--target", "moon", repo("designs", "ecommerce.yaml")}, "--target"},
		{"bad format", []string{"run", "--format", "pdf", repo("designs", "ecommerce.yaml")}, `run --format: want text, md, json, junit, html, sarif (got "pdf")`},
		{"plan names its own formats", []string{"plan", "--format", "md", repo("designs", "ecommerce.yaml")}, `plan --format: want text, json, sarif (got "md")`},
		{"compare names its own formats", []string{"compare", "--format", "html", "a.json", "b.json"}, `compare --format: want text, md, json (got "html")`},
		{"lint names its own formats", []string{"lint", "--format", "junit", repo("designs", "ecommerce.yaml")}, `lint --format: want text, json, sarif (got "junit")`},
		{"version takes no arguments", []string{"version", "extra"}, "version takes no arguments (got \"extra\")\nRun 'validate version --help'"},
		{"serve takes no arguments", []string{"serve", "designs/x.yaml"}, "Run 'validate serve --help'"},
		{"several formats on standard output", []string{"run", "--format", "md,html", repo("designs", "ecommerce.yaml")}, "give --out DIR"},
		{"bad samples", []string{"run", "--samples", "0", repo("designs", "ecommerce.yaml")}, "--samples"},
		{"account without endpoint", []string{"run", "--target", "account", repo("designs", "ecommerce.yaml")}, "--endpoint"},
		{"update baseline without file", []string{"run", "--update-baseline", repo("designs", "ecommerce.yaml")}, "--baseline"},
		{"compare one file", []string{"compare", "a.json"}, "missing OLD and NEW"},
		{"serve bad protocol", []string{"serve", "--protocol", "gopher"}, "--protocol"},
		{"serve public endpoint without scheme", []string{"serve", "--public-endpoint", "localhost:8083"}, "--public-endpoint"},
		{"serve public endpoint of the other protocol", []string{"serve", "--public-endpoint", "https://localhost:8083/"}, "speaks http"},
		{"serve replay of a design without a traffic shape", []string{"serve", "--port", "0", "--replay", repo("designs", "ecommerce.yaml")}, "ecommerce.yaml: design ecommerce states no traffic shape"},
		{"serve replay bad speed", []string{"serve", "--port", "0", "--replay", repo("testdata", "designs", "traffic-evening.yaml"), "--speed", "0.5"}, "--speed: want at least 1"},
		{"serve replay bad scale", []string{"serve", "--port", "0", "--replay", repo("testdata", "designs", "traffic-evening.yaml"), "--replay-scale", "2"}, "--replay-scale: want"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tc.args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, ExitUsage, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q does not mention %q", errOut, tc.want)
			}
			if strings.Count(errOut, "validate: ") > 1 || strings.Contains(errOut, "validate: validate") {
				t.Errorf("error printed more than once: %q", errOut)
			}
		})
	}
}

func TestLint_Examples(t *testing.T) {
	files, _ := filepath.Glob(repo("designs", "*.yaml"))
	if len(files) < 4 {
		t.Fatalf("want at least 4 example designs, got %v", files)
	}
	code, out, errOut := runCLI(t, append([]string{"lint"}, files...)...)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if strings.Count(out, ": ok (") != len(files) {
		t.Errorf("every file should be ok:\n%s", out)
	}
}

func TestLint_BadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := make([]byte, 50<<20)
	for i := range big {
		big[i] = 'a'
	}
	tests := []struct {
		name string
		path string
		code int
		want string
	}{
		{"missing path", filepath.Join(dir, "nope.yaml"), ExitUsage, "nope.yaml"},
		{"directory", dir, ExitUsage, "is a directory, not a design file: give its design files (" + filepath.Join(dir, "*.yaml") + ")"},
		{"empty file", write("empty.yaml", nil), ExitUsage, "empty"},
		{"syntax error", write("syntax.yaml", []byte("version: 1\nname: [unclosed\n")), ExitUsage, "syntax.yaml:"},
		{"50 MB file", write("big.yaml", big), ExitUsage, "big.yaml"},
		{"binary garbage", write("bin.yaml", []byte{0x7f, 'E', 'L', 'F', 0, 1, 2, 0xff, 0xfe}), ExitUsage, "bin.yaml"},
		{"alias bomb", write("bomb.yaml", []byte(aliasBomb)), ExitUsage, "bomb.yaml"},
		{"unknown key", write("typo.yaml", []byte("version: 1\nname: x\ncontainerz: []\n")), ExitUsage, "typo.yaml:3:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, "lint", tc.path)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q does not mention %q", errOut, tc.want)
			}
			if len(errOut) > 8<<10 {
				t.Errorf("error output is %d bytes; want a few clear lines", len(errOut))
			}
		})
	}
}

const aliasBomb = `version: 1
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`

func TestLint_InvalidDesignsPointAtLines(t *testing.T) {
	files, _ := filepath.Glob(repo("testdata", "designs", "invalid", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no invalid designs in testdata/designs/invalid: the test would pass on nothing")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, _, errOut := runCLI(t, "lint", f)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, ExitUsage, errOut)
			}
			for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
				if !strings.HasPrefix(line, f+":") {
					t.Errorf("line does not point into the file: %q", line)
				}
			}
		})
	}
}

func TestLint_FindingsInAValidDesign(t *testing.T) {
	f := repo("testdata", "designs", "broken.yaml")
	code, out, errOut := runCLI(t, "lint", f)
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitFindings, out, errOut)
	}
	if !strings.Contains(out, f+":") || !strings.Contains(out, "[estimate-below-floor]") {
		t.Errorf("finding should point into the file with its code:\n%s", out)
	}
}

func TestConfig_PrecedenceAndRedaction(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "validate.yaml")
	if err := os.WriteFile(cfg, []byte("samples: 7\nseed: 3\ntarget: embedded\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CDV_SEED", "5")
	t.Setenv("CDV_KEY", "c2VjcmV0LWtleS10aGF0LW11c3Qtbm90LWxlYWs=")
	code, out, errOut := runCLI(t, "--config", cfg, "config")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := map[string]string{}
	valueCol := -1
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Fatalf("config line %q: want key, value, (source)", line)
		}
		rows[f[0]] = strings.Join(f[1:], " ")
		// Every value starts in the same column, the longest key's included.
		col := len(f[0]) + strings.Index(line[len(f[0]):], f[1])
		if valueCol >= 0 && col != valueCol {
			t.Errorf("config line %q: value at column %d, others at %d", line, col, valueCol)
		}
		valueCol = col
	}
	for key, want := range map[string]string{
		"samples":     "7 (file " + cfg + ")",
		"seed":        "5 (env CDV_SEED)",
		"key":         "<redacted> (env CDV_KEY)",
		"concurrency": "16 (default)",
	} {
		if rows[key] != want {
			t.Errorf("config %s = %q, want %q:\n%s", key, rows[key], want, out)
		}
	}
	if strings.Contains(out, "c2VjcmV0") {
		t.Fatal("the key leaked into validate config")
	}
	// A flag beats the environment and the file.
	cfgRun, err := newViperForTest(t, cfg, "--seed", "9")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfgRun.GetInt64("seed"); got != 9 {
		t.Errorf("flag seed = %d, want 9", got)
	}
}

func TestConfig_UnknownKeyInFile(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "validate.yaml")
	os.WriteFile(cfg, []byte("seed: 1\nsampels: 7\n"), 0o644)
	code, _, errOut := runCLI(t, "--config", cfg, "config")
	if code != ExitUsage || !strings.Contains(errOut, cfg+`:2:1: unknown key "sampels"; did you mean "samples"?`) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// TestConfig_WrongTypes: a value that does not fit its setting is an error naming where it was
// written, not a silent zero.
func TestConfig_WrongTypes(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "validate.yaml")
	os.WriteFile(cfg, []byte("target: embedded\nsamples: four\n"), 0o644)
	code, _, errOut := runCLI(t, "--config", cfg, "config")
	if code != ExitUsage || !strings.Contains(errOut, cfg+`:2:1: samples: "four" is not a whole number`) {
		t.Errorf("file: exit %d, stderr %q", code, errOut)
	}
	cfg2 := filepath.Join(t.TempDir(), "validate.yaml")
	os.WriteFile(cfg2, []byte("samples: 5.5\ntarget: [embedded, emulator]\n"), 0o644)
	if code, _, errOut := runCLI(t, "--config", cfg2, "config"); code != ExitUsage || !strings.Contains(errOut, "is not") {
		t.Errorf("fraction and list: exit %d, stderr %q", code, errOut)
	}
	t.Run("empty variable is unset", func(t *testing.T) {
		t.Setenv("CDV_FORCE", "")
		if code, _, errOut := runCLI(t, "config"); code != ExitOK {
			t.Errorf("CDV_FORCE empty: exit %d, stderr %q", code, errOut)
		}
	})
	for env, want := range map[string]string{
		"CDV_SAMPLES":        `CDV_SAMPLES: "abc" is not a whole number`,
		"CDV_KEEP":           `CDV_KEEP: "abc" is not true or false`,
		"CDV_REGRESSION_PCT": `CDV_REGRESSION_PCT: "abc" is not a number`,
	} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "abc")
			code, _, errOut := runCLI(t, "config")
			if code != ExitUsage || !strings.Contains(errOut, want) {
				t.Errorf("exit %d, stderr %q; want %q", code, errOut, want)
			}
		})
	}
}

// newViperForTest parses args as `run` flags and returns the resulting configuration.
func newViperForTest(t *testing.T, configFile string, args ...string) (interface {
	GetInt64(string) int64
}, error) {
	t.Helper()
	a := &app{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, configFile: configFile}
	cmd := a.runCmd()
	if err := cmd.ParseFlags(args); err != nil {
		return nil, err
	}
	return a.viper(cmd)
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader goroutine.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor blocks until what was written matches re and returns the match, or until the command
// ends (a value on done) and returns nil with its exit code. It has no wall-clock deadline: a command
// that never prints the line is ended by go test's -timeout, with every goroutine's stack, so a busy
// machine cannot fail a test that a quiet one passes.
func (s *syncBuffer) waitFor(re *regexp.Regexp, done <-chan int) (match []string, exitCode int) {
	for {
		s.mu.Lock()
		if m := re.FindStringSubmatch(s.b.String()); m != nil {
			s.mu.Unlock()
			return m, 0
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case code := <-done:
			return re.FindStringSubmatch(s.String()), code
		}
	}
}

// A number flag that does not parse says what it wants, not strconv's words.
func TestRun_NumberFlagSaysWhatItWants(t *testing.T) {
	code, _, stderr := runCLI(t, "run", "--samples", "abc", "designs/x.yaml")
	if code != ExitUsage || !strings.Contains(stderr, `"--samples" flag: want a whole number`) || strings.Contains(stderr, "strconv") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}
