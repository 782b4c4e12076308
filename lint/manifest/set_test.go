package manifest

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestDerivedOncePerKeyAndKeysApart: concurrent callers of one key get the
// value of one computation, and a key being computed does not hold up
// another ("a" is computed until "b"'s computation has started).
func TestDerivedOncePerKeyAndKeysApart(t *testing.T) {
	set := &Set{}
	aStarted, bStarted := make(chan struct{}), make(chan struct{})
	var computedA atomic.Int32
	computeA := func() any {
		if computedA.Add(1) == 1 {
			close(aStarted)
		}
		select {
		case <-bStarted:
		case <-time.After(5 * time.Second):
			t.Error(`computing "a" held up "b"`)
		}
		return "A"
	}
	results := make([]any, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = set.Derived("a", computeA)
		}()
		if i == 0 {
			<-aStarted
		}
	}
	set.Derived("b", func() any { close(bStarted); return "B" })
	wg.Wait()
	if n := computedA.Load(); n != 1 {
		t.Errorf(`"a" computed %d times, want once`, n)
	}
	for i, result := range results {
		if result != "A" {
			t.Errorf("caller %d got %v, want A", i, result)
		}
	}
	if got := set.Derived("b", func() any { return "again" }); got != "B" {
		t.Errorf(`"b" is %v the second time, want B`, got)
	}
}
