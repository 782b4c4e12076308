package charts

import "golang.org/x/sys/unix"

// limitChild bounds the renderer's CPU time and address space.
func limitChild(pid int, cpuSeconds uint64) {
	unix.Prlimit(pid, unix.RLIMIT_CPU, &unix.Rlimit{Cur: cpuSeconds, Max: cpuSeconds}, nil)    //nolint:errcheck // the deadline still holds
	unix.Prlimit(pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: addressSpace, Max: addressSpace}, nil) //nolint:errcheck // the heap watchdog still holds
}
