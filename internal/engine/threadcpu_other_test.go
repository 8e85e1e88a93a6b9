//go:build !linux

package engine_test

import "time"

// threadCPUOK says threadCPU measures something on this system: only Linux has it here.
const threadCPUOK = false

func threadCPU() time.Duration { return 0 }
