package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what a helper reports instead of failing the calling test.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Logf(string, ...any)       {}
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, f) }
func (r *recorder) Fatalf(f string, a ...any) { r.fatals = append(r.fatals, f); panic(r) }
func (r *recorder) Fatal(a ...any)            { r.fatals = append(r.fatals, "fatal"); panic(r) }

func golden(path string, got []byte, update bool) (r *recorder) {
	r = &recorder{}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
	}()
	Golden(r, path, got, update)
	return r
}

func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(path, []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// This test holds Golden's comparison itself, so it runs as it would outside the mutation
	// check (under which Golden skips every comparison: a false kill of every mutant otherwise).
	t.Setenv(MutateEnv, "")
	t.Setenv("CI", "")
	if r := golden(path, []byte("a\nb\nc\n"), false); len(r.errors)+len(r.fatals) != 0 {
		t.Errorf("same text: %v %v", r.errors, r.fatals)
	}
	if r := golden(path, []byte("a\nB\nc\n"), false); len(r.errors) != 1 {
		t.Errorf("a moved line passes: %v", r.errors)
	}
	if d := LineDiff("a\nb\nc", "a\nB\nc"); !strings.Contains(d, "line 2:") || !strings.Contains(d, "- b") || !strings.Contains(d, "+ B") {
		t.Errorf("the diff does not say what moved: %q", d)
	}
	t.Setenv("CI", "true")
	if r := golden(path, []byte("new\n"), true); len(r.fatals) != 1 {
		t.Error("-update under CI was not refused")
	}
	if b, _ := os.ReadFile(path); string(b) != "a\nb\nc\n" {
		t.Errorf("-update under CI rewrote the file: %q", b)
	}
	t.Setenv("CI", "")
	if r := golden(path, []byte("new\n"), true); len(r.errors)+len(r.fatals) != 0 {
		t.Errorf("-update: %v %v", r.errors, r.fatals)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("-update did not rewrite the file: %q", b)
	}
}
