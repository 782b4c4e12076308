//go:build !linux

package charts

import "os/exec"

// limitChild leaves the renderer to its deadline: only Linux lets a parent
// set another process's limits.
func limitChild(int, uint64) {}

// watchMemory watches nothing: only Linux shows another process's resident
// memory where it costs nothing to read.
func watchMemory(int, func()) (stop func()) { return func() {} }

// cpuLimitPassed is false: no CPU limit is set.
func cpuLimitPassed(*exec.ExitError) bool { return false }
