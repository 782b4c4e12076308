package kustomize

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const overlays = "../../../testdata/kustomize"

func TestIncludes(t *testing.T) {
	included, err := Includes(filepath.Join(overlays, "serving/overlays/prod"), mustRoot(t, overlays))
	if err != nil {
		t.Fatal(err)
	}
	serving, err := filepath.Abs(filepath.Join(overlays, "serving"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(serving, "base"), filepath.Join(serving, "components/gpu")}
	if !slices.Equal(included, want) {
		t.Errorf("Includes = %v, want %v", included, want)
	}
}

func TestIsRemote(t *testing.T) {
	for entry, want := range map[string]bool{
		"../../base":                        false,
		"deployment.yaml":                   false,
		".hidden/base":                      false,
		"github.com/org/repo//base?ref=v1":  true,
		"https://example.com/deploy.yaml":   true,
		"git@github.com:org/repo.git//base": true,
		"gitlab.com/org/repo/base":          false, // kustomize reads it as a local path
	} {
		if got := isRemote(entry); got != want {
			t.Errorf("isRemote(%q) = %v, want %v", entry, got, want)
		}
	}
}

// TestSharedBaseReadOnce reads an overlay that reaches one base along
// several paths and spellings: the base is read once and counted once per
// path that builds it.
func TestSharedBaseReadOnce(t *testing.T) {
	walk := newTreeWalk(mustRoot(t, overlays))
	root, err := readTree(filepath.Join(overlays, "shared-base", "top"), "top", nil, walk)
	if err != nil {
		t.Fatal(err)
	}
	if len(walk.read) != 4 || root.builds != 5 {
		t.Errorf("read %d kustomizations counting %d builds, want 4 and 5", len(walk.read), root.builds)
	}
}

// TestBuildBudget refuses a chain whose levels each list the next under
// eight spellings before kustomize would build the bottom 8^n times,
// having read each directory once.
func TestBuildBudget(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "l0"), 0o755)
	os.WriteFile(filepath.Join(dir, "l0", "kustomization.yaml"), []byte("namePrefix: x-\n"), 0o644)
	for level := 1; level <= 10; level++ {
		below := fmt.Sprintf("l%d", level-1)
		spellings := []string{"../" + below, "../" + below + "/", "./../" + below, "../" + below + "/.", "../" + below + "//",
			"./../" + below + "/", "../../" + filepath.Base(dir) + "/" + below, "../" + below + "/./"}
		os.MkdirAll(filepath.Join(dir, fmt.Sprintf("l%d", level)), 0o755)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("l%d", level), "kustomization.yaml"), []byte("resources:\n- "+strings.Join(spellings, "\n- ")+"\n"), 0o644)
	}
	walk := newTreeWalk(mustRoot(t, dir))
	_, err := readTree(filepath.Join(dir, "l10"), "l10", nil, walk)
	if budget, ok := err.(*buildBudgetError); !ok || budget.at != "l4/kustomization.yaml" {
		t.Errorf("error %v, want the budget passed at l4/kustomization.yaml", err)
	}
	if len(walk.read) != 4 {
		t.Errorf("read %d kustomizations, want 4 (l0 to l3) before l4 passed the budget", len(walk.read))
	}
	_, err = ReadOverlay(filepath.Join(dir, "l10"), "l10", mustRoot(t, dir))
	want := "l10/kustomization.yaml: the overlay builds more than 1000 kustomizations counted along every path, passing the bound at l4/kustomization.yaml"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want one starting %q", err, want)
	}
}

func mustRoot(t *testing.T, path string) string {
	t.Helper()
	root, err := Root(path)
	if err != nil {
		t.Fatal(err)
	}
	return root
}
