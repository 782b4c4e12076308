package image

import (
	"os"

	"golang.org/x/sys/unix"
)

// widenPipe asks Linux to let the pipe hold pipeSize; when the system's
// limit is lower, the pipe keeps its size.
func widenPipe(pipe *os.File) {
	if raw, err := pipe.SyscallConn(); err == nil {
		raw.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) }) //nolint:errcheck // a narrower pipe only costs wakeups
	}
}
