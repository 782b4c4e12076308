package manifest

import (
	"reflect"
	"testing"
)

func TestSplitPath(t *testing.T) {
	got := SplitPath(`spec.containers[0].resources.limits["nvidia.com/gpu"]`)
	want := []PathElement{{Key: "spec"}, {Key: "containers"}, {Index: 0, IsIndex: true}, {Key: "resources"}, {Key: "limits"}, {Key: "nvidia.com/gpu"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SplitPath = %v, want %v", got, want)
	}
	if got := SplitPath(`metadata.annotations["a]b"]`); len(got) != 3 || got[2].Key != "a]b" {
		t.Errorf("quoted key holding ]: %v", got)
	}
	for _, path := range []string{"", "a", "a.b[2].c", `a["x.y"][1]`} {
		rebuilt := ""
		for _, element := range SplitPath(path) {
			if element.IsIndex {
				rebuilt = IndexPath(rebuilt, element.Index)
			} else {
				rebuilt = JoinPath(rebuilt, element.Key)
			}
		}
		if rebuilt != path {
			t.Errorf("SplitPath(%q) rebuilds as %q", path, rebuilt)
		}
	}
}

func TestValueAt(t *testing.T) {
	docs, err := ParseDocuments("values.yaml", []byte("resources:\n  limits:\n    nvidia.com/gpu: 1\nargs: [a, b]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if value, ok := ValueAt(docs[0].Plain(), `resources.limits["nvidia.com/gpu"]`); !ok || value != int64(1) {
		t.Errorf("gpu = %v, %v", value, ok)
	}
	if value, ok := ValueAt(docs[0].Plain(), "args[1]"); !ok || value != "b" {
		t.Errorf("args[1] = %v, %v", value, ok)
	}
	if _, ok := ValueAt(docs[0].Plain(), "args[2]"); ok {
		t.Error("args[2] found")
	}
}

// TestRelocate renders nothing: it moves the fields of a parsed document as
// a renderer would and checks what Where and Locate then say.
func TestRelocate(t *testing.T) {
	rendered := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      image: x\n"
	file, err := LoadRendered("templates/pod.yaml", []byte("template text\n"), []byte(rendered))
	if err != nil {
		t.Fatal(err)
	}
	if file.Line(1) != "template text" {
		t.Errorf("Line(1) = %q, want the template's", file.Line(1))
	}
	doc := file.Objects[0].Doc
	doc.Relocate(func(path string, pos Position) (string, Position, bool) {
		switch path {
		case "spec.containers[0].image":
			return "values.yaml", Position{Line: 3, Column: 5}, true
		case "spec.containers[0].name":
			return "", Position{}, false // made up by the renderer
		}
		return "", Position{Line: pos.Line + 100, Column: pos.Column}, true
	})
	cases := []struct {
		path, file string
		pos        Position
	}{
		{"", "templates/pod.yaml", Position{101, 1}},
		{"spec.containers[0].image", "values.yaml", Position{3, 5}},
		{"spec.containers[0].name", "templates/pod.yaml", Position{107, 7}}, // its container's line
		{"spec.containers[0].resources", "templates/pod.yaml", Position{107, 7}},
	}
	for _, c := range cases {
		if file, pos := file.Objects[0].Where(c.path); file != c.file || pos != c.pos {
			t.Errorf("Where(%q) = %s %v, want %s %v", c.path, file, pos, c.file, c.pos)
		}
	}
	if !doc.Has("spec.containers[0].name") {
		t.Error("a relocated field is no longer written")
	}
}
