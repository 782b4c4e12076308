package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCRDsDirectory: --crds takes a directory of CRD files (a chart's
// crds/, an operator's config/crd), whose schemas judge the custom objects.
func TestCRDsDirectory(t *testing.T) {
	dir := t.TempDir()
	crds := filepath.Join(dir, "crds")
	writeFile(t, crds, "bases/widgets.yaml", `apiVersion: apiextensions.k8s.io/v1
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
              properties:
                replicas: {type: integer, minimum: 1}
`)
	writeFile(t, crds, "kustomization.yaml", "resources: [bases/widgets.yaml]\n")
	manifests := filepath.Join(dir, "manifests")
	writeFile(t, manifests, "widget.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  replicas: 0\n")
	code, stdout, stderr := lintArgs(t, "", "--crds", crds, "--no-color", manifests)
	if code != exitFindings || !strings.Contains(stdout, "MDL002") || !strings.Contains(stdout, "CustomResourceDefinition/widgets.example.com") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
