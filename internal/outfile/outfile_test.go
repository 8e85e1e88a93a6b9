package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A link at the target, dangling or not, is never written through: Create refuses it, Replace
// replaces the link itself and leaves what it pointed at untouched.
func TestLinksAreNotFollowed(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "victim.txt")
	if err := os.WriteFile(outside, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "a.yaml")
	if err := os.Symlink(outside, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	dangling := filepath.Join(dir, "b.yaml")
	created := filepath.Join(t.TempDir(), "created.txt")
	if err := os.Symlink(created, dangling); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, dangling} {
		if err := Create(p, []byte("new"), 0o644); !errors.Is(err, ErrExists) {
			t.Errorf("Create over the link %s: %v; want ErrExists", p, err)
		}
		if err := Replace(p, []byte("new"), 0o644); err != nil {
			t.Fatalf("Replace %s: %v", p, err)
		}
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			t.Errorf("%s after Replace: %v, mode %v; want a regular file", p, err, fi.Mode())
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
	if _, err := os.Stat(created); err == nil {
		t.Errorf("the dangling link's target was created")
	}
	if err := Create(filepath.Join(dir, "c.yaml"), []byte("x"), 0o644); err != nil {
		t.Errorf("Create of a new file: %v", err)
	}
	if err := Replace(dir, []byte("x"), 0o644); err == nil {
		t.Errorf("Replace of a directory succeeded")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
