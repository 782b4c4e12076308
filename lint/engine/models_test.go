package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
)

func TestModelMaxSizeConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(content string) string {
		path := filepath.Join(dir, ".modellint.yaml")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	config, err := LoadConfig(write("model:\n  maxSize: 2Gi\n"))
	if err != nil {
		t.Fatal(err)
	}
	if size, ok := config.ModelMaxSize(); !ok || size != 2<<30 {
		t.Errorf("ModelMaxSize = %d, %v; want 2 GiB", size, ok)
	}
	if _, ok := (&lint.Config{}).ModelMaxSize(); ok {
		t.Error("an unset maxSize reported as set")
	}
	for _, bad := range []string{"model:\n  maxSize: lots\n", "model:\n  maxSize: \"-1Gi\"\n", "model:\n  maxsize: 2Gi\n"} {
		if _, err := LoadConfig(write(bad)); err == nil || !strings.Contains(err.Error(), "maxSize") && !strings.Contains(err.Error(), "maxsize") {
			t.Errorf("%q: err = %v, want an error naming the key", bad, err)
		}
	}
}
