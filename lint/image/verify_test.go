package image

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestBoundNamesTheLayerThatPassedIt: when layers stream in parallel, a
// small layer may read on after a large one passed the image's bound and
// stop first; the error reported is still the large layer's.
func TestBoundNamesTheLayerThatPassedIt(t *testing.T) {
	budget := newImageBudget(160<<20, 3)
	if !budget.count(1, 90<<20) || budget.count(2, 96<<20) {
		t.Fatal("the second large layer should pass the bound")
	}
	if budget.count(0, 12<<10) {
		t.Fatal("the small layer read after the bound was passed should stop")
	}
	if err := budget.exceeded(0, 12<<10, 3<<10); !errors.Is(err, errOtherLayerOver) {
		t.Fatalf("small layer: %v, want errOtherLayerOver", err)
	}
	err := budget.exceeded(2, 96<<20, 100<<10)
	if err == nil || !strings.Contains(err.Error(), "this layer: 96 MiB so far") {
		t.Fatalf("large layer: %v, want the bound explained with its 96 MiB", err)
	}

	layers := []storedLayer{{size: 3 << 10}, {size: 90 << 10}, {size: 100 << 10}}
	release := make(chan struct{})
	got := forEachLayer(context.Background(), []int{0, 1, 2}, layers, 3, func(i int) error {
		switch i {
		case 0: // the small layer's stop arrives first
			defer close(release)
			return errOtherLayerOver
		case 2:
			<-release
			return err
		}
		return nil
	})
	if got != err {
		t.Fatalf("forEachLayer returned %v, want the large layer's error", got)
	}
}
