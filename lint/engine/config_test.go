package engine

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
	if err == nil || !strings.HasPrefix(err.Error(), path+":1:18: rules.MDL208.severity: ") {
		t.Errorf("error %v, want one naming the file, the line and rules.MDL208.severity", err)
	}
}
