package parallel

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
)

// TestMapKeepsOrder checks the results come back in the items' order
// however the work is scheduled, on one CPU and on several.
func TestMapKeepsOrder(t *testing.T) {
	items := make([]int, 1000)
	for i := range items {
		items[i] = i
	}
	for _, procs := range []int{1, 4} {
		previous := runtime.GOMAXPROCS(procs)
		got := Map(items, func(i int) int {
			if i%7 == 0 {
				runtime.Gosched() // let later items overtake
			}
			return i * i
		})
		runtime.GOMAXPROCS(previous)
		for i, square := range got {
			if square != i*i {
				t.Fatalf("GOMAXPROCS %d: result %d is %d, want %d", procs, i, square, i*i)
			}
		}
	}
	if got := Map([]int(nil), func(i int) int { return i }); len(got) != 0 {
		t.Errorf("no items: %v", got)
	}
	if got := Map([]string{"a"}, func(s string) string { return s + s }); !slices.Equal(got, []string{"aa"}) {
		t.Errorf("one item: %v", got)
	}
}

// TestEachRunsEveryItemOnce checks every item is worked on exactly once,
// and all of them before Each returns.
func TestEachRunsEveryItemOnce(t *testing.T) {
	previous := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(previous)
	counts := make([]atomic.Int32, 500)
	items := make([]int, len(counts))
	for i := range items {
		items[i] = i
	}
	Each(items, func(i int) { counts[i].Add(1) })
	for i := range counts {
		if n := counts[i].Load(); n != 1 {
			t.Fatalf("item %d worked on %d times, want once", i, n)
		}
	}
}
