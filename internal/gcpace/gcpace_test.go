package gcpace

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// waitLimit collects until the memory limit is one that wanted accepts,
// for up to two seconds, and returns the last limit seen: each collection's
// cleanup sets it, some time after the collection.
func waitLimit(wanted func(int64) bool) int64 {
	deadline := time.Now().Add(2 * time.Second)
	for {
		runtime.GC()
		time.Sleep(time.Millisecond)
		limit := debug.SetMemoryLimit(-1)
		if wanted(limit) || time.Now().After(deadline) {
			return limit
		}
	}
}

func TestFollow(t *testing.T) {
	t.Cleanup(Stop)
	const headroom = 16 << 20
	Follow(25, headroom)
	small := debug.SetMemoryLimit(-1)
	if small == math.MaxInt64 {
		t.Fatal("no memory limit set")
	}
	if percent := debug.SetGCPercent(-1); percent < 100 {
		t.Errorf("with little live, GOGC %d: want the headroom's share, over 100", percent)
	} else {
		debug.SetGCPercent(percent)
	}
	// A large live heap: the next collection's cleanup raises the limit
	// to it and a quarter more.
	held := make([]byte, 128<<20)
	for i := range held {
		held[i] = byte(i)
	}
	want := int64(len(held)) * 5 / 4
	large := waitLimit(func(limit int64) bool { return limit >= want })
	if large < want {
		t.Errorf("with %d bytes live, limit %d: want at least %d", len(held), large, want)
	}
	if percent := debug.SetGCPercent(-1); percent < 20 || percent > 30 {
		t.Errorf("with much live, GOGC %d: want about 25", percent)
	} else {
		debug.SetGCPercent(percent)
	}
	runtime.KeepAlive(held)
	held = nil
	// Once it is freed, the limit comes down again.
	if after := waitLimit(func(limit int64) bool { return limit < want }); after >= want {
		t.Errorf("after the heap was freed, limit %d: want below %d", after, want)
	}
	Stop()
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		t.Errorf("after Stop, limit %d: want none", limit)
	}
	if percent := debug.SetGCPercent(100); percent != 100 {
		t.Errorf("after Stop, GOGC %d: want 100", percent)
	}
}
