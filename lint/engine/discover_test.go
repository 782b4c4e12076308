package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiscoverOrder: files are parsed in parallel but come back in walk
// order, and several broken files are each reported, in that order,
// whatever the scheduling.
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
		found := discover([]string{dir}, nil, nil, nil, 0)
		if found.errors != nil {
			t.Fatal(found.errors)
		}
		var got []string
		for _, file := range found.manifests {
			got = append(got, file.Path)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("run %d: files out of walk order:\n%v\nwant\n%v", run, got, want)
		}
	}

	// Broken files late in two directories and early in a third: each is
	// an error, in walk order, and the other 197 files are still read.
	broken := []string{"d6/f006.yaml", "d2/f100.yaml", "d0/f196.yaml"}
	for _, name := range broken {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("apiVersion: v1\nkind: [Pod\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for run := 0; run < 5; run++ {
		found := discover([]string{dir}, nil, nil, nil, 0)
		var got []string
		for _, problem := range found.errors {
			got = append(got, strings.TrimPrefix(problem.File, dir+"/"))
		}
		if strings.Join(got, " ") != "d0/f196.yaml d2/f100.yaml d6/f006.yaml" || len(found.manifests) != 197 {
			t.Fatalf("run %d: errors %v, %d manifests; want the three broken files and 197 manifests", run, found.errors, len(found.manifests))
		}
	}
}

// TestDiscoverReadErrors: a file found that cannot be read is an error
// named as it was found, a symlink by its own name and its target's, and
// the files beside it are still read.
func TestDiscoverReadErrors(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "manifests")
	outside := filepath.Join(dir, "real") // a link's target, inside the PATH
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name string, size int64) {
		file, err := os.Create(name)
		if err == nil {
			err = file.Truncate(size) // sparse: a size without the bytes
		}
		if err == nil {
			err = file.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "big.yaml"), 40<<20)
	write(filepath.Join(outside, "target.yaml"), 40<<20)
	if err := os.Symlink(filepath.Join(outside, "target.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	found := discover([]string{dir}, nil, nil, nil, 0)
	tooBig := "file is 40 MiB, more than the 32 MiB a manifest may hold"
	want := []string{
		displayPath(filepath.Join(dir, "big.yaml")) + ": " + tooBig,
		displayPath(filepath.Join(dir, "link.yaml")) + ": symlink to " + displayPath(filepath.Join(outside, "target.yaml")) + ": " + tooBig,
	}
	var got []string
	for _, problem := range found.errors {
		got = append(got, problem.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(found.manifests) != 1 || found.manifests[0].Path != displayPath(filepath.Join(dir, "ok.yaml")) {
		t.Errorf("manifests %v, want ok.yaml alone", found.manifests)
	}
}

// TestDiscoverStaysInsidePaths: a symlink in the tree to a file or dir
// outside the PATH (a runner's credentials, a host dir) is not followed,
// and said so at -v; a link within the PATH still is.
func TestDiscoverStaysInsidePaths(t *testing.T) {
	root := t.TempDir()
	dir, host := filepath.Join(root, "repo"), filepath.Join(root, "host")
	for _, d := range []string{dir, host, filepath.Join(dir, "inside"), filepath.Join(host, "models", "1")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	configMap := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: planted}\n")
	for _, file := range []string{filepath.Join(host, "config.yaml"), filepath.Join(dir, "inside", "ok.yaml")} {
		if err := os.WriteFile(file, configMap, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(host, "models", "1", "saved_model.pb"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"credentials.yaml": filepath.Join(host, "config.yaml"),
		"hostdir":          host,
		"model":            filepath.Join(host, "models"),
		"up.yaml":          "../host/config.yaml",
		"alias.yaml":       "inside/ok.yaml",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	found := discover([]string{dir}, nil, nil, nil, 0)
	var read []string
	for _, file := range found.manifests {
		read = append(read, file.Path)
	}
	if want := displayPath(filepath.Join(dir, "inside", "ok.yaml")); strings.Join(read, " ") != want || len(found.modelDirs) != 0 {
		t.Errorf("read %v and model dirs %v; want %s alone", read, found.modelDirs, want)
	}
	var refused int
	for _, note := range found.notes {
		if strings.Contains(note, "outside "+displayPath(dir)+": not followed") {
			refused++
		}
	}
	if refused != 4 {
		t.Errorf("notes %q: want the four links leaving the PATH said not followed", found.notes)
	}
}
