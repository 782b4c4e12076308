package parallel

import (
	"runtime"
	"slices"
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
