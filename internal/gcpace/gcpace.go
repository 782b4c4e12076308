// Package gcpace sets when the collector runs while a run holds manifests:
// once the heap has grown past what the last collection found live by a
// share of it or by a fixed headroom, whichever is larger, with the
// runtime's memory limited to that heap and its own overhead, so that
// pages freed past it go back to the system instead of counting in the
// run's peak.
//
// GOGC alone sets the growth as a share of the live heap only. While a run
// holds little, that is a collection every few MiB allocated, each a cost
// for no memory saved; while it holds much, the pages the heap spread over
// stay resident after a collection frees them.
package gcpace

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// limitMargin is what the memory limit allows past the heap's target and
// the runtime's overhead: with none, the pages each collection frees go
// back to the system and are faulted in again as the heap grows.
const limitMargin = 4 << 20

var (
	mu       sync.Mutex
	pacing   bool
	percent  int64
	headroom int64
	samples  = []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
)

// Follow paces the collector for the rest of the process (or until Stop):
// each collection waits until the heap has grown by percentOfLive of what
// the last one found live, or by headroomBytes if that is more. A second
// call changes the two.
func Follow(percentOfLive int, headroomBytes int64) {
	mu.Lock()
	defer mu.Unlock()
	percent, headroom = int64(percentOfLive), headroomBytes
	if !pacing {
		pacing = true
		watchCollection()
	}
	setPace()
}

// Stop gives the collector back the runtime's default target and no
// memory limit.
func Stop() {
	mu.Lock()
	defer mu.Unlock()
	if pacing {
		pacing = false
		debug.SetMemoryLimit(math.MaxInt64)
		debug.SetGCPercent(100)
	}
}

// sentinel is an object the collector frees at its next cycle: its
// cleanup sets the pace from what that cycle found live. It is larger than
// the tiny allocator's blocks, whose cleanups may never run.
type sentinel struct{ _ [64]byte }

func watchCollection() {
	runtime.AddCleanup(new(sentinel), func(struct{}) { collected() }, struct{}{})
}

func collected() {
	mu.Lock()
	defer mu.Unlock()
	if pacing {
		setPace()
		watchCollection()
	}
}

// setPace sets GOGC and the memory limit from the live heap. Called with
// mu held.
func setPace() {
	metrics.Read(samples)
	value := func(i int) int64 {
		if samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(samples[i].Value.Uint64())
	}
	live := max(value(0), 1<<20)
	growth := max(live*percent/100, headroom)
	// The limit allows for what the runtime holds besides the heap
	// (stacks, its own structures), a quarter of the heap for the unused
	// ends of spans, and the 5% below the limit the scavenger keeps to:
	// any less, and it returns pages at each cycle that the next faults in.
	outside := max(value(1)-value(2)-value(3)-value(4)-value(5), 0)
	debug.SetGCPercent(int(max(growth*100/live, 1)))
	debug.SetMemoryLimit(((live+growth)*5/4 + outside + limitMargin) * 20 / 19)
}
