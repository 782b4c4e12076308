//go:build !linux

package charts

// limitChild leaves the renderer to its deadline: only Linux lets a parent
// set another process's limits.
func limitChild(int, uint64) {}
