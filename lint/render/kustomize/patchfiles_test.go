package kustomize

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPatchFiles: the files a kustomization names as patches, in each of
// its fields, and none from a kustomization that is a link leading out of
// its dir, or that is no mapping.
func TestPatchFiles(t *testing.T) {
	root := t.TempDir()
	overlay := filepath.Join(root, "overlay")
	os.MkdirAll(overlay, 0o755)
	os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(`resources: [../base]
patches:
  - path: gpu.yaml
  - patch: |-
      - op: add
patchesStrategicMerge:
  - shm.yaml
  - https://example.com/remote.yaml
patchesJson6902:
  - path: json/ops.yaml
`), 0o644)
	want := []string{filepath.Join(overlay, "shm.yaml"), filepath.Join(overlay, "gpu.yaml"), filepath.Join(overlay, "json", "ops.yaml")}
	if got := PatchFiles(overlay); !slices.Equal(got, want) {
		t.Errorf("PatchFiles = %q, want %q", got, want)
	}

	outside := filepath.Join(t.TempDir(), "kustomization.yaml")
	os.WriteFile(outside, []byte("patches: [{path: secret.yaml}]\n"), 0o644)
	linked := filepath.Join(root, "linked")
	os.MkdirAll(linked, 0o755)
	if err := os.Symlink(outside, filepath.Join(linked, "kustomization.yaml")); err != nil {
		t.Fatal(err)
	}
	if got := PatchFiles(linked); got != nil {
		t.Errorf("a kustomization linked from outside its dir was read: %q", got)
	}

	scalar := filepath.Join(root, "scalar")
	os.MkdirAll(scalar, 0o755)
	os.WriteFile(filepath.Join(scalar, "kustomization.yaml"), []byte("just text\n"), 0o644)
	if got := PatchFiles(scalar); got != nil {
		t.Errorf("a kustomization that is no mapping named %q", got)
	}
}
