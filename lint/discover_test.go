package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiscoverOrder: files are parsed in parallel but come back in walk
// order, and of several broken files the first in that order is the one
// reported, whatever the scheduling.
func TestDiscoverOrder(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i := 0; i < 200; i++ {
		name := filepath.Join(dir, fmt.Sprintf("d%d", i%7), fmt.Sprintf("f%03d.yaml", i))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		content := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n", i)
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	filepath.WalkDir(dir, func(path string, entry os.DirEntry, err error) error {
		if err == nil && !entry.IsDir() {
			want = append(want, displayPath(path))
		}
		return nil
	})
	for run := 0; run < 5; run++ {
		found, err := discover([]string{dir}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, file := range found.manifests {
			got = append(got, file.Path)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("run %d: files out of walk order:\n%v\nwant\n%v", run, got, want)
		}
	}

	// Broken files late in two directories and early in a third: the first
	// in walk order wins.
	broken := []string{"d6/f006.yaml", "d2/f100.yaml", "d0/f196.yaml"}
	for _, name := range broken {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("kind: [Pod\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for run := 0; run < 5; run++ {
		_, err := discover([]string{dir}, nil)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "d0/f196.yaml")+":") {
			t.Fatalf("run %d: %v, want the error of d0/f196.yaml", run, err)
		}
	}
}
