package rules

import (
	"testing"

	"github.com/modellint/modellint/lint"
)

func TestEstimateMemory(t *testing.T) {
	estimates := (&lint.Config{EstimateSettings: lint.EstimateConfig{MemoryFactor: 2}}).Estimates()
	need := estimateMemory(estimates, 1<<30, 1, 2)
	if need.Bytes != 4<<30+256<<20 || need.Formula() != "1.0 GiB × 2 × 2 copies + 256.0 MiB baseline" {
		t.Errorf("estimate %d %q", need.Bytes, need.Formula())
	}
}
