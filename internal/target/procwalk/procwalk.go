// Package procwalk keeps testcontainers-go's package initialisation from walking /proc in every
// command of this binary.
//
// testcontainers-go's internal/core/bootstrap package, in its init, lists every process on the
// machine (gopsutil's process.Processes: a stat and a read of /proc/PID/stat per process) to find
// its parent's creation time, from which it derives a "test session" id. Go runs the init of every
// package linked into a binary, so `validate serve`, `plan` and `lint` paid for that walk although
// only the emulator target uses testcontainers-go; on a busy machine it was the largest single
// item of start-up (GODEBUG=inittrace=1).
//
// This package's init runs before that one: since Go 1.21 packages are initialised in import-path
// order among those whose imports are done, and this package imports only os, so it is ready
// before bootstrap (which imports os, gopsutil and uuid) and sorts before it
// ("github.com/cosmosdv/..." < "github.com/testcontainers/..."). It points gopsutil's HOST_PROC at
// a path that does not exist, so the walk fails at its first step and bootstrap falls back to a
// random session id and the working directory, as it does on systems without /proc. Restore,
// called from the init of package target (which runs after testcontainers-go's), puts HOST_PROC
// back as it was. A HOST_PROC the user set is left alone.
//
// The session id only groups the containers of one process for testcontainers-go's reaper; a
// random one per run is what a command-line tool wants anyway. TestProcWalkSkipped checks the
// effect (a random id, HOST_PROC restored).
package procwalk

import "os"

const envHostProc = "HOST_PROC"

// nowhere is a path that does not exist on any system this runs on.
const nowhere = "/nonexistent/validate-skips-proc-walk"

var set bool

func init() {
	if _, ok := os.LookupEnv(envHostProc); ok {
		return
	}
	if os.Setenv(envHostProc, nowhere) == nil {
		set = true
	}
}

// Restore unsets HOST_PROC if init set it. It is safe to call more than once.
func Restore() {
	if set && os.Getenv(envHostProc) == nowhere {
		_ = os.Unsetenv(envHostProc)
	}
	set = false
}
