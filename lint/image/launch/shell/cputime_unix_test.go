//go:build unix

package shell

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the test process has used: a bound on work
// that, unlike the wall clock, holds on a machine busy with other jobs.
func cpuTime() time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}
