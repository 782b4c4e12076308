package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/modellint/modellint/lint/image/imagetest"
	"github.com/modellint/modellint/lint/report"
)

// fileState is what a write into a scanned tree would change.
type fileState struct {
	Mode    fs.FileMode
	Size    int64
	ModTime int64
	Content string // SHA-256 of a regular file, the target of a symlink
}

// snapshotTree lists every path under root with its state.
func snapshotTree(t *testing.T, root string) map[string]fileState {
	t.Helper()
	states := map[string]fileState{}
	err := filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := entry.Info()
		if err != nil {
			return err
		}
		state := fileState{Mode: info.Mode(), Size: info.Size(), ModTime: info.ModTime().UnixNano()}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			state.Content, err = os.Readlink(path)
		case info.Mode().IsRegular():
			state.Content, err = fileHash(path)
		}
		if info.IsDir() {
			state.Size = 0 // a directory's size depends on the file system, not its entries
		}
		states[path] = state
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return states
}

func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	hash := sha256.New()
	if _, err := io.Copy(hash, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(hash.Sum(nil)), nil
}

// setWritable adds or removes every write bit under root.
func setWritable(t *testing.T, root string, writable bool) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
		if err != nil || entry.Type()&fs.ModeSymlink != 0 {
			return err
		}
		info, err := entry.Info()
		if err != nil {
			return err
		}
		mode := info.Mode().Perm() &^ 0o222
		if writable {
			mode |= 0o200
		}
		return os.Chmod(path, mode)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNeverWritesScannedTrees lints read-only copies of manifests, model
// dirs, charts, Kustomize trees and an image tarball in every format, and
// checks that nothing under them changed. Tests may run as root, whom the
// permissions do not stop, so the trees are compared before and after.
func TestNeverWritesScannedTrees(t *testing.T) {
	root := repository(t)
	for _, dir := range []string{"examples", "models", "charts", "kustomize", "scenarios/e2e-correct"} {
		target := filepath.Join(root, dir)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("cp", "-a", filepath.Join("../../testdata", dir), target).CombinedOutput(); err != nil {
			t.Fatalf("copy %s: %v: %s", dir, err, out)
		}
	}
	built, err := imagetest.Build(&imagetest.ImageSpec{
		Ref:    "registry.example.com/serving/app:1.0",
		Config: imagetest.ConfigSpec{Entrypoint: []string{"/bin/serve"}},
		Layers: []imagetest.LayerSpec{{Files: []imagetest.FileSpec{{Path: "/bin/serve", ELF: "stub-amd64"}}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(root, "images", "app.tar")
	os.MkdirAll(filepath.Dir(tarball), 0o755)
	if err := imagetest.WriteTarball(tarball, built, ""); err != nil {
		t.Fatal(err)
	}
	setWritable(t, root, false)
	t.Cleanup(func() { setWritable(t, root, true) })
	before := snapshotTree(t, root)

	inputs := [][]string{
		{filepath.Join(root, "examples", "broken")},
		{filepath.Join(root, "examples", "fixed")},
		{filepath.Join(root, "charts", "serving")},
		{filepath.Join(root, "kustomize", "serving")},
		{filepath.Join(root, "kustomize", "inline-patches")},
		{filepath.Join(root, "scenarios", "e2e-correct")},
		{tarball},
		{"--image", "registry.example.com/serving/app:1.0=" + tarball, filepath.Join(root, "examples", "broken")},
	}
	for _, model := range []string{"candle", "kserve", "matrix_half_plus_two", "saved_model_half_plus_two_cpu",
		"saved_model_half_plus_two_tf2_cpu", "triton"} {
		inputs = append(inputs, []string{filepath.Join(root, "models", model)})
	}
	for _, format := range report.Formats {
		for _, input := range inputs {
			args := append([]string{"--no-color", "-v", "-f", format}, input...)
			if code, _, stderr := lintArgs(t, "", args...); code == exitError {
				t.Errorf("modellint %v: %s", args, stderr)
			}
		}
	}
	after := snapshotTree(t, root)
	for path, state := range after {
		if was, ok := before[path]; !ok {
			t.Errorf("%s was created", path)
		} else if !reflect.DeepEqual(state, was) {
			t.Errorf("%s changed: %+v, was %+v", path, state, was)
		}
	}
	for path := range before {
		if _, ok := after[path]; !ok {
			t.Errorf("%s was removed", path)
		}
	}
}
