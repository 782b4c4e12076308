//go:build !unix

package shell

import "time"

var processStart = time.Now()

// cpuTime stands in the wall clock where the process's CPU time is not read.
func cpuTime() time.Duration { return time.Since(processStart) }
