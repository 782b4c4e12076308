// Package peakrss runs a command under GNU time to read its peak resident
// memory, for the benchmarks. A parent cannot read it from rusage: a child
// started with vfork, as os/exec starts it, counts the parent's pages until
// it execs; time forks, from a small process.
package peakrss

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// gnuTime is GNU time, which reports its child's peak RSS.
const gnuTime = "/usr/bin/time"

// Works runs GNU time once, not before every run, and says why it cannot
// be used (apt-get install time).
var Works = sync.OnceValue(func() error {
	if err := exec.Command(gnuTime, "-f", "%M", "-o", os.DevNull, "true").Run(); err != nil {
		return errors.New("peak RSS is read with GNU time (apt-get install time): " + gnuTime + ": " + err.Error())
	}
	return nil
})

// Command is name with args run under GNU time, which writes the peak RSS
// to peakFile when the command ends.
func Command(peakFile, name string, args ...string) *exec.Cmd {
	return exec.Command(gnuTime, append([]string{"-f", "%M", "-o", peakFile, name}, args...)...)
}

// Read returns the peak RSS, in bytes, that GNU time wrote to peakFile.
func Read(peakFile string) (int64, error) {
	data, err := os.ReadFile(peakFile)
	if err != nil {
		return 0, errors.New("time did not record the peak memory: " + err.Error())
	}
	// time writes "Command exited with non-zero status N" before the figure.
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0, errors.New("time recorded no peak memory")
	}
	kib, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
	if err != nil {
		return 0, errors.New("peak memory " + strconv.Quote(string(data)) + ": " + err.Error())
	}
	return kib << 10, nil
}
