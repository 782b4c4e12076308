// Package parallel runs independent work on every CPU with results in a
// fixed order, so output does not depend on the schedule.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each runs work(item) for every item on GOMAXPROCS goroutines. work must
// not depend on the other items'.
func Each[T any](items []T, work func(T)) {
	Map(items, func(item T) struct{} {
		work(item)
		return struct{}{}
	})
}

// Map returns work(item) for every item, in the order of items, computed
// on GOMAXPROCS goroutines. work must not depend on the other items'.
func Map[T, R any](items []T, work func(T) R) []R {
	results := make([]R, len(items))
	workers := min(runtime.GOMAXPROCS(0), len(items))
	if workers <= 1 {
		for i, item := range items {
			results[i] = work(item)
		}
		return results
	}
	// Each worker takes the next item by counting, not from a channel: a
	// channel's hand-off woke a worker per item, and its sender competed
	// with the workers for the CPUs.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(items); i = int(next.Add(1) - 1) {
				results[i] = work(items[i])
			}
		}()
	}
	wg.Wait()
	return results
}
