//go:build !linux

package helm

// limitChild leaves the render child to its deadline: only Linux lets a
// parent set another process's limits.
func limitChild(int, uint64) {}
