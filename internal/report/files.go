package report

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteBaselineFile writes r's baseline to path atomically: a reader never sees half a file, and a
// failed write leaves the old baseline in place.
func WriteBaselineFile(path string, r *Report) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".baseline-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := WriteBaseline(tmp, r); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadFile reads a baseline or JSON report file. Its errors do not repeat the path, which callers
// put first.
func ReadFile(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	defer f.Close()
	return ReadBaseline(f)
}
