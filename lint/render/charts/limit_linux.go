package charts

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// limitChild bounds the renderer's CPU time and address space.
func limitChild(pid int, cpuSeconds uint64) {
	unix.Prlimit(pid, unix.RLIMIT_CPU, &unix.Rlimit{Cur: cpuSeconds, Max: cpuSeconds}, nil)    //nolint:errcheck // the deadline still holds
	unix.Prlimit(pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: addressSpace, Max: addressSpace}, nil) //nolint:errcheck // the heap watchdog still holds
}

// watchInterval is how often the watchdog reads the renderer's resident
// memory: filling fresh pages, a process grows a few MiB in that time.
const watchInterval = time.Millisecond

// watchMemory calls over once when the process's resident memory passes
// HeapLimit, until stop is called. It runs in modellint, not in the
// renderer, whose one thread a render keeps busy.
func watchMemory(pid int, over func()) (stop func()) {
	statm, err := os.Open("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer statm.Close()
		ticker := time.NewTicker(watchInterval)
		defer ticker.Stop()
		buffer := make([]byte, 128)
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				// One read a tick: the file says its figures again from offset 0.
				n, _ := statm.ReadAt(buffer, 0)
				if residentPages(buffer[:n])*uint64(os.Getpagesize()) > HeapLimit {
					over()
					return
				}
			}
		}
	}()
	return func() { close(done) }
}

// cpuLimitPassed reports whether the process was ended by its CPU limit.
func cpuLimitPassed(exitErr *exec.ExitError) bool {
	if exitErr == nil {
		return false
	}
	status, ok := exitErr.Sys().(syscall.WaitStatus)
	return ok && status.Signaled() && status.Signal() == syscall.SIGXCPU
}
