// Package outfile writes the files a user asks for (reports, drafts, variants, profiles,
// certificates) by one rule: the content goes to a temporary file beside the target and is renamed
// over it, so a link at the target is replaced, never written through (a link planted in a reports
// or variants folder cannot send our output elsewhere), and a reader never sees half a file.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrExists is returned by Create when something (a file, a link, dangling or not) is already at
// the path; the caller says which flag overwrites.
var ErrExists = errors.New("exists")

// Create writes data to path unless something is already there.
func Create(path string, data []byte, perm fs.FileMode) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s %w", path, ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return Replace(path, data, perm)
}

// Replace writes data to path, replacing whatever is there except a directory; a link at the path
// is replaced by the file, its target left alone.
func Replace(path string, data []byte, perm fs.FileMode) error {
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
