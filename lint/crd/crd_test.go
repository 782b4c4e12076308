package crd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
