//go:build !unix && !windows

package engine

import (
	"errors"
	"os"
)

// tryLock: this platform has no advisory lock the engine uses, so --persist is refused.
func tryLock(*os.File) (bool, error) { return false, errors.New("no file locking on this platform") }

func unlock(*os.File) error { return nil }
