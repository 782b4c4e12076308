package manifest

import (
	"reflect"
	"testing"
	"unsafe"

	"go.yaml.in/yaml/v3"
)

// pathPositions is what the field tree stands for: every written path
// string and where it starts, walked from the YAML node tree.
func pathPositions(node *yaml.Node, path string, positions map[string]Position) {
	switch node.Kind {
	case yaml.DocumentNode:
		if len(node.Content) > 0 {
			pathPositions(node.Content[0], path, positions)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(node.Content); i += 2 {
			key, value := node.Content[i], node.Content[i+1]
			if isMergeKey(key) {
				continue
			}
			field := JoinPath(path, key.Value)
			positions[field] = Position{key.Line, key.Column}
			pathPositions(value, field, positions)
		}
	case yaml.SequenceNode:
		for i, item := range node.Content {
			field := IndexPath(path, i)
			positions[field] = Position{item.Line, item.Column}
			pathPositions(item, field, positions)
		}
	}
}

const fieldsSource = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: server
  annotations: {prometheus.io/scrape: "true", "a[0]": x, "q\"uote.d": y}
spec:
  template:
    spec:
      defaults: &defaults {cpu: "1"}
      containers:
        - name: a
          resources:
            limits: {nvidia.com/gpu: 1, memory: 1Gi}
            requests: *defaults
        - name: b
          args: [x, [y, z]]
          resources:
            <<: *defaults
            limits: {}
      volumes:
        - name: v
          fc: {lun: 1}
`

// TestFieldTableMatchesPaths: every path is found where its key or item
// starts, Fields lists exactly them, and paths JoinPath does not write, or
// that were not written, are not found.
func TestFieldTableMatchesPaths(t *testing.T) {
	docs, err := ParseDocuments("deploy.yaml", []byte(fieldsSource))
	if err != nil || len(docs) != 1 {
		t.Fatalf("%d documents, %v", len(docs), err)
	}
	doc := docs[0]
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(fieldsSource), &root); err != nil {
		t.Fatal(err)
	}
	want := map[string]Position{"": {1, 1}}
	pathPositions(&root, "", want)
	if got := doc.Fields(); !reflect.DeepEqual(got, want) {
		t.Errorf("Fields() = %v\nwant %v", got, want)
	}
	for path, pos := range want {
		if !doc.Has(path) || doc.Locate(path) != pos {
			t.Errorf("%q: Has %v, Locate %v; want %v", path, doc.Has(path), doc.Locate(path), pos)
		}
	}
	for _, path := range []string{
		"metadata.annotations.prometheus.io/scrape", // unquoted: not how JoinPath writes it
		`metadata["annotations"]`,                   // quoted without need
		"spec.template.spec.containers[00]",
		"spec.template.spec.containers[2]",
		"spec.template.spec.containers.0",
		"spec.template.spec.containers[0].resources.requests.cpu", // under an alias
		"spec.template.spec.containers[1].resources.cpu",          // merged
		".metadata", "metadata.", "metadata..name", "[0]", `["x`, "metadata[", "kind[0]",
	} {
		if doc.Has(path) {
			t.Errorf("Has(%q) = true", path)
		}
	}
	for path, want := range map[string]string{
		"spec.template.spec.containers[0].resources.requests.cpu": "spec.template.spec.containers[0].resources.requests",
		"spec.template.spec.containers[1].resources.cpu":          "spec.template.spec.containers[1].resources",
		"metadata.annotations.missing":                            "metadata.annotations",
		"spec.template.spec.containers[7].name":                   "spec.template.spec.containers",
	} {
		if got := doc.Locate(path); got != doc.Locate(want) {
			t.Errorf("Locate(%q) = %v; want %v, the position of %s", path, got, doc.Locate(want), want)
		}
	}
	for _, c := range []struct{ prefix, field, want string }{
		{"spec.template.spec", "volumes.fc.lun", "spec.template.spec.volumes[0].fc.lun"},
		{"spec.template.spec", "containers.name", "spec.template.spec.containers[0].name"},
		{"", "spec.template.spec.containers.args", "spec.template.spec.containers[1].args"},
		{"spec.template.spec.containers[1]", "resources.limits", "spec.template.spec.containers[1].resources.limits"},
		{"metadata", "annotations", "metadata.annotations"},
		{"spec.template.spec.containers[1]", "", "spec.template.spec.containers[1]"},
	} {
		if got, ok := doc.find(c.prefix, c.field); !ok || got != c.want {
			t.Errorf("find(%q, %q) = %q, %v; want %q", c.prefix, c.field, got, ok, c.want)
		}
	}
	if got, ok := doc.find("spec", "containers.missing"); ok {
		t.Errorf("find(spec, containers.missing) = %q", got)
	}
}

// TestFieldEntrySize holds the entry to the size its comment and the
// performance notes give: every field of every document has one.
func TestFieldEntrySize(t *testing.T) {
	if size := unsafe.Sizeof(fieldEntry{}); size != 28 {
		t.Errorf("a field entry is %d bytes, want 28", size)
	}
}
