package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadConfigChecksSeverities(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".modellint.yaml")
	if err := os.WriteFile(path, []byte("rules: {MDL208: {severity: fatal}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadConfig(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+": rules.MDL208.severity: ") {
		t.Errorf("error %v, want one naming the file and rules.MDL208.severity", err)
	}
}

func TestEstimateMemory(t *testing.T) {
	estimates := (&Config{EstimateSettings: EstimateConfig{MemoryFactor: 2}}).Estimates()
	need := EstimateMemory(estimates, 1<<30, 1, 2)
	if need.Bytes != 4<<30+256<<20 || need.Formula() != "1.0GiB × 2 × 2 copies + 256.0MiB baseline" {
		t.Errorf("estimate %d %q", need.Bytes, need.Formula())
	}
}
