package engine

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// persistLock keeps one process per --persist file: two servers on one file each replay, append
// and checkpoint on their own, and one's acknowledged writes vanish at the other's next snapshot.
// The lock is FILE.lock, held with the operating system's advisory lock (flock on Unix, LockFileEx
// on Windows) for the server's life; the lock file holds the owner's process id so a refusal can
// name it. The kernel drops the lock when the process dies (kill -9 included), so a stale FILE.lock
// never blocks a restart.
type persistLock struct {
	f *os.File
}

// ErrPersistInUse is returned by Start when another process holds the --persist file.
var ErrPersistInUse = errors.New("persist file in use")

// ErrPersistLockUnavailable is returned by Start when the file system cannot lock the file (some
// network file systems): the server refuses rather than risk two writers.
var ErrPersistLockUnavailable = errors.New("persist file cannot be locked here")

// lockPersist takes FILE.lock or says who holds it.
func lockPersist(path string) (*persistLock, error) {
	name := path + ".lock"
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s: %v (put --persist on a local disk)", ErrPersistLockUnavailable, name, err)
	}
	if held {
		owner := "another process"
		if b, rerr := os.ReadFile(name); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil && pid > 0 {
				owner = "process " + strconv.Itoa(pid)
			}
		}
		f.Close()
		return nil, fmt.Errorf("%w: %s is held by %s (a validate serve with --persist %s); stop it, or give this server another file",
			ErrPersistInUse, path, owner, path)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &persistLock{f: f}, nil
}

// release drops the lock; the lock file stays (removing it would race a process about to lock it).
func (l *persistLock) release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	_ = unlock(l.f)
	_ = l.f.Close()
	l.f = nil
}
