package crd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
	"github.com/modellint/modellint/lint/manifest"
)

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [image]
              properties:
                image: {type: string}
                replicas: {type: integer, minimum: 1}
                extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
    - name: v1alpha1
      served: false
      storage: false
      schema:
        openAPIV3Schema: {type: object}
`

func load(t *testing.T, source string) []*manifest.Object {
	t.Helper()
	file, err := manifest.Load("o.yaml", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	return file.Objects
}

func TestCheck(t *testing.T) {
	schemas := Read(load(t, widgetCRD))
	if schemas.Len() != 1 {
		t.Fatalf("%d versions, want the served one", schemas.Len())
	}
	objects := load(t, `apiVersion: example.com/v1
kind: Widget
metadata: {name: bad}
spec:
  replicas: 0
  colour: red
  extra: {anything: goes}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: good}
spec: {image: x, replicas: 2}
---
apiVersion: example.com/v1alpha1
kind: Widget
metadata: {name: unserved}
spec: {}
`)
	unknown, refused, ok := schemas.Check(objects[0])
	if !ok || len(unknown) != 1 || unknown[0].Path != "spec.colour" {
		t.Errorf("unknown fields %v", unknown)
	}
	var paths []string
	for _, problem := range refused {
		paths = append(paths, problem.Path)
	}
	if got := strings.Join(paths, " "); got != "spec.image spec.replicas" && got != "spec.replicas spec.image" {
		t.Errorf("refused at %q: %v", got, refused)
	}
	if unknown, refused, ok := schemas.Check(objects[1]); !ok || len(unknown)+len(refused) != 0 {
		t.Errorf("good widget: %v %v", unknown, refused)
	}
	if _, _, ok := schemas.Check(objects[2]); ok {
		t.Error("an unserved version was checked")
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	crds := filepath.Join(dir, "crds.yaml")
	if err := os.WriteFile(crds, []byte(widgetCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	if objects, err := ReadFile(crds); err != nil || len(objects) != 1 {
		t.Fatalf("ReadFile = %d objects, %v", len(objects), err)
	}
	other := filepath.Join(dir, "nodes.yaml")
	if err := os.WriteFile(other, []byte("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(other); err == nil || !strings.Contains(err.Error(), "no CustomResourceDefinition") {
		t.Errorf("a file without CRDs: %v", err)
	}
}

func TestReadPathDir(t *testing.T) {
	write := func(t *testing.T, name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gadgetCRD := strings.NewReplacer("widgets", "gadgets", "Widget", "Gadget").Replace(widgetCRD)

	t.Run("files under it", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "ray", "widgets.yaml"), widgetCRD)
		write(t, filepath.Join(dir, "gadgets.JSON"), gadgetCRD) // JSON is YAML
		write(t, filepath.Join(dir, "README.md"), "apiVersion: [")
		write(t, filepath.Join(dir, "nodes.yml"), "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n")
		if err := os.Symlink(filepath.Join(dir, "ray"), filepath.Join(dir, "linked.yaml")); err != nil {
			t.Fatal(err) // a link to a directory inside: not walked
		}
		objects, err := ReadPath(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, o := range objects {
			names = append(names, o.Name)
		}
		if got := strings.Join(names, " "); got != "gadgets.example.com widgets.example.com" {
			t.Errorf("CRDs %q, want gadgets then widgets", got)
		}
		if objects[1].File.Path != filepath.Join(dir, "ray", "widgets.yaml") {
			t.Errorf("a CRD of %s", objects[1].File.Path)
		}
	})
	t.Run("link inside", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "real", "widgets.txt"), widgetCRD)
		if err := os.Symlink(filepath.Join("real", "widgets.txt"), filepath.Join(dir, "widgets.yaml")); err != nil {
			t.Fatal(err)
		}
		if objects, err := ReadPath(dir); err != nil || len(objects) != 1 {
			t.Errorf("ReadPath = %d objects, %v", len(objects), err)
		}
	})
	t.Run("link outside", func(t *testing.T) {
		outside := filepath.Join(t.TempDir(), "secret.yaml")
		write(t, outside, widgetCRD)
		dir := t.TempDir()
		if err := os.Symlink(outside, filepath.Join(dir, "widgets.yaml")); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadPath(dir); err == nil || !strings.Contains(err.Error(), "outside") {
			t.Errorf("a link out of the directory: %v", err)
		}
	})
	t.Run("fifo", func(t *testing.T) {
		dir := t.TempDir()
		if err := syscall.Mkfifo(filepath.Join(dir, "widgets.yaml"), 0o644); err != nil {
			testenv.Unavailable(t, "cannot make a FIFO here: "+err.Error())
		}
		if _, err := ReadPath(dir); err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("a FIFO: %v", err)
		}
	})
	t.Run("bounds", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "a.yaml"), widgetCRD)
		write(t, filepath.Join(dir, "b.yaml"), gadgetCRD)
		defer func(bound int64) { maxDirBytes = bound }(maxDirBytes)
		maxDirBytes = int64(len(widgetCRD) + len(gadgetCRD) - 1)
		if _, err := ReadPath(dir); err == nil || !strings.Contains(err.Error(), "larger than 0 MiB together") {
			t.Errorf("files past the bound together: %v", err)
		}
		maxDirBytes = MaxFileBytes
		// A file past a manifest's bound is refused before it is read.
		if err := os.Truncate(filepath.Join(dir, "a.yaml"), MaxFileBytes); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadPath(dir); err == nil || !strings.Contains(err.Error(), "a.yaml: file is 128 MiB, more than the 32 MiB") {
			t.Errorf("a file past a manifest's bound: %v", err)
		}
	})
	t.Run("no CRDs", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "nodes.yaml"), "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n")
		if _, err := ReadPath(dir); err == nil || !strings.Contains(err.Error(), "no CustomResourceDefinition") {
			t.Errorf("a directory without CRDs: %v", err)
		}
	})
}
