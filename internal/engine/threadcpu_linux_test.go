//go:build linux

package engine_test

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPUOK says threadCPU measures something on this system.
const threadCPUOK = true

// threadCPU is the CPU time the calling OS thread has used (clock_gettime with
// CLOCK_THREAD_CPUTIME_ID, 3 in linux/time.h). The caller keeps its goroutine on the thread
// (runtime.LockOSThread) between two readings.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	_, _, _ = syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}
