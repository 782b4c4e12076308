package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnnotateFiles: --annotate-files limits the github format to the
// files it lists; a list that cannot be read is exit 2.
func TestAnnotateFiles(t *testing.T) {
	source, err := os.ReadFile(examples + "/broken/tf-serving.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, dir, "a/serving.yaml", string(source))
	writeFile(t, dir, "b/serving.yaml", string(source))
	list := writeFile(t, dir, "changed.txt", "b/serving.yaml\n")
	t.Chdir(dir)
	code, stdout, stderr := lintArgs(t, "", "--offline", "-f", "github", "--annotate-files", list, "a", "b")
	if code != exitFindings || strings.Contains(stdout, "file=a/") || !strings.Contains(stdout, "::error file=b/serving.yaml,") ||
		!strings.Contains(stdout, "in files the pull request does not change not annotated") {
		t.Errorf("exit %d, stdout:\n%s\nstderr %q; want annotations on b/serving.yaml only, and a count of the others", code, stdout, stderr)
	}
	code, _, stderr = lintArgs(t, "", "--offline", "-f", "github", "--annotate-files", filepath.Join(dir, "missing.txt"), "a")
	if code != exitError || !strings.HasPrefix(stderr, "modellint: --annotate-files: ") {
		t.Errorf("missing list: exit %d, stderr %q; want 2 naming the flag", code, stderr)
	}
}
