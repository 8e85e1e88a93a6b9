package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSettings_EveryDeclaredSettingIsRead: a flag a command declares and never reads is a promise
// the command does not keep (--throttle was accepted and did nothing). Every setting's key must be
// read with a viper getter somewhere in the command's package.
func TestSettings_EveryDeclaredSettingIsRead(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !strings.HasPrefix(sel.Sel.Name, "Get") {
				return true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if k, err := strconv.Unquote(lit.Value); err == nil {
					read[k] = true
				}
			}
			return true
		})
	}
	for _, s := range settings {
		if len(s.cmds) > 0 && !read[s.key] {
			t.Errorf("setting %q is declared for %v but never read", s.key, s.cmds)
		}
	}
}

// TestRun_LogLevelReachesStderr: --log-level debug shows the target's log records (run used to send
// them to io.Discard).
func TestRun_LogLevelReachesStderr(t *testing.T) {
	code, _, errOut := runCLI(t, "run", "--target", "embedded", "--samples", "1", "--log-level", "debug", repo("designs", "iot.yaml"))
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "level=DEBUG") {
		t.Errorf("--log-level debug printed no debug record; stderr:\n%.2000s", errOut)
	}
	code, _, errOut = runCLI(t, "run", "--target", "embedded", "--samples", "1", repo("designs", "iot.yaml"))
	if code != ExitOK && code != ExitFindings || strings.Contains(errOut, "level=DEBUG") {
		t.Errorf("the default level (warn) printed debug records or failed (exit %d)", code)
	}
}

// failingWriter fails every write, like a closed pipe.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

var errWrite = &writeErr{}

type writeErr struct{}

func (*writeErr) Error() string { return "write /dev/stdout: broken pipe" }

// TestExit_UnclassifiedErrorIsNotUsage: a failure to write a report is no usage error (exit 2) but
// one of the environment (exit 3).
func TestExit_UnclassifiedErrorIsNotUsage(t *testing.T) {
	var errb strings.Builder
	code := Run(t.Context(), []string{"plan", repo("designs", "iot.yaml")}, failingWriter{}, &errb)
	if code != ExitInfra {
		t.Fatalf("exit %d, want %d (stderr %q)", code, ExitInfra, errb.String())
	}
	if !strings.Contains(errb.String(), "broken pipe") {
		t.Errorf("stderr %q does not say what failed", errb.String())
	}
}

// TestRun_ErrorPrefixOnce: the command path is not repeated after the program name.
func TestRun_ErrorPrefixOnce(t *testing.T) {
	for _, args := range [][]string{{"lint", "--bogus", "x.yaml"}, {"run", "--no-such-flag", "x.yaml"}, {"--bogus"}} {
		_, _, errOut := runCLI(t, args...)
		if strings.Contains(errOut, "validate: validate") || !strings.HasPrefix(errOut, "validate: ") {
			t.Errorf("%v: %q", args, errOut)
		}
	}
}
