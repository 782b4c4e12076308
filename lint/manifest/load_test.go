package manifest

import (
	"strings"
	"testing"
)

const deployment = `# a comment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tf-serving
  namespace: models
  annotations:
    nvidia.com/gpu.present: "true"
spec:
  replicas: 2
  template:
    metadata:
      annotations:
        modellint.dev/ignore: "MDL208 -- pinned by policy"
    spec:
      containers:
        - name: serving
          image: tensorflow/serving:2.19.0
          args: ["--model_name=m", "--model_base_path=/models/m"]
          resources:
            limits:
              memory: 2Gi
              nvidia.com/gpu: 1
---
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
`

func TestLoadPositions(t *testing.T) {
	file, err := Load("deploy.yaml", []byte(deployment))
	if err != nil {
		t.Fatal(err)
	}
	if len(file.Objects) != 2 {
		t.Fatalf("got %d objects, want 2", len(file.Objects))
	}
	object := file.Objects[0]
	if object.ID() != "Deployment/models/tf-serving" {
		t.Errorf("ID = %q", object.ID())
	}
	cases := []struct {
		path string
		want Position
	}{
		{"", Position{2, 1}},
		{"spec.replicas", Position{10, 3}},
		{"spec.template.spec.containers[0]", Position{17, 11}},
		{"spec.template.spec.containers[0].resources.limits.memory", Position{22, 15}},
		{`spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"]`, Position{23, 15}},
		{"spec.template.spec.containers[0].args[1]", Position{19, 36}},
		{`metadata.annotations["nvidia.com/gpu.present"]`, Position{8, 5}},
		// Absent fields point at their nearest written ancestor.
		{"spec.template.spec.containers[0].resources.requests.cpu", Position{20, 11}},
		{"spec.template.spec.containers[0].readinessProbe", Position{17, 11}},
	}
	for _, c := range cases {
		if got := object.Locate(c.path); got != c.want {
			t.Errorf("Locate(%q) = %v, want %v", c.path, got, c.want)
		}
	}
	if got := file.Objects[1].Locate(""); got.Line != 26 {
		t.Errorf("ConfigMap at line %d, want 26", got.Line)
	}
	if file.Line(22) != "              memory: 2Gi" {
		t.Errorf("Line(22) = %q", file.Line(22))
	}
}

func TestWorkloadExtraction(t *testing.T) {
	file, err := Load("deploy.yaml", []byte(deployment))
	if err != nil {
		t.Fatal(err)
	}
	workloads, err := Workloads(file.Objects[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(workloads) != 1 {
		t.Fatalf("got %d workloads", len(workloads))
	}
	w := workloads[0]
	if w.Deployment == nil || *w.Deployment.Spec.Replicas != 2 {
		t.Errorf("Deployment not decoded: %+v", w.Deployment)
	}
	if w.TemplateAnnotations["modellint.dev/ignore"] != "MDL208 -- pinned by policy" {
		t.Errorf("template annotations = %v", w.TemplateAnnotations)
	}
	c := w.Containers[0]
	if !c.Serving() || c.Runtime.Name != "tensorflow-serving" {
		t.Errorf("container runtime = %v", c.Runtime)
	}
	if c.Path != "spec.template.spec.containers[0]" {
		t.Errorf("container path = %q", c.Path)
	}
	if got := c.Resources.Limits.Memory().String(); got != "2Gi" {
		t.Errorf("memory limit = %s", got)
	}
}

func TestListAndJSON(t *testing.T) {
	list := `{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": [{"name": "c", "image": "x:1"}]}},
  {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}
]}`
	file, err := Load("list.json", []byte(list))
	if err != nil {
		t.Fatal(err)
	}
	if len(file.Objects) != 2 || file.Objects[1].Kind != "Secret" {
		t.Fatalf("objects = %v", file.Objects)
	}
	pod := file.Objects[0]
	if pod.Base != "items[0]" || pod.Locate("spec.containers[0]").Line != 2 {
		t.Errorf("pod base %q at %v", pod.Base, pod.Locate("spec.containers[0]"))
	}
	if got := pod.FullPath("spec.containers[0].image"); got != "items[0].spec.containers[0].image" {
		t.Errorf("FullPath = %q", got)
	}
}

func TestNonKubernetesDocumentsAreSkipped(t *testing.T) {
	file, err := Load("values.yaml", []byte("replicas: 3\n---\n- a\n- b\n---\nplain text\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(file.Objects) != 0 || len(file.Skipped) != 3 {
		t.Errorf("objects %d, skipped %v", len(file.Objects), file.Skipped)
	}
}

func TestAliasesAndMerges(t *testing.T) {
	source := `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - &base
      name: a
      image: x:1
      resources: {limits: {memory: 1Gi}}
    - <<: *base
      name: b
`
	file, err := Load("pod.yaml", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	workloads, err := Workloads(file.Objects[0])
	if err != nil {
		t.Fatal(err)
	}
	containers := workloads[0].Containers
	if len(containers) != 2 || containers[1].Name != "b" || containers[1].Image != "x:1" {
		t.Fatalf("merge not applied: %+v", containers)
	}
	if containers[1].Resources.Limits.Memory().String() != "1Gi" {
		t.Errorf("merged limit = %v", containers[1].Resources.Limits)
	}
}

func TestBadInput(t *testing.T) {
	bomb := "a: &a [x,x,x,x,x,x,x,x,x,x]\n"
	for i, prev := 0, "a"; i < 12; i++ {
		name := string(rune('b' + i))
		bomb += name + ": &" + name + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + "]\n"
		prev = name
	}
	cases := []struct {
		name, source, want string
	}{
		{"malformed", "apiVersion: v1\nkind: Pod\nmetadata: {name: [\n", "bad.yaml:3: invalid YAML"},
		{"tabs", "apiVersion: v1\nkind: Pod\nspec:\n\tcontainers: []\n", "bad.yaml:4: invalid YAML"},
		{"binary", "apiVersion: v1\n\x00\x01\x02", "bad.yaml:2: binary data"},
		{"invalid utf-8", "kind: Pod\nname: \xff\xfe\n", "bad.yaml:2: invalid UTF-8"},
		{"alias bomb", bomb, "bad.yaml: document 1: line"},
		{"too large", strings.Repeat("#", MaxFileSize+1), "bad.yaml: file is 32 MiB, more than the 32 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file, err := Load("bad.yaml", []byte(c.source))
			if err == nil {
				_, err = NewSet([]*File{file})
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want a one-line error starting with %q", err, c.want)
			}
		})
	}
}

func TestWrongTypeIsInvalidObject(t *testing.T) {
	source := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n" +
		"      containers: [{name: c}]\n      volumes:\n        - name: v\n          fc: {lun: \"<LUN>\"}\n"
	file, err := Load("bad.yaml", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet([]*File{file})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Invalid) != 1 || len(set.Workloads) != 0 {
		t.Fatalf("invalid %v, workloads %d", set.Invalid, len(set.Workloads))
	}
	invalid := set.Invalid[0]
	if invalid.Path != "spec.template.spec.volumes[0].fc.lun" || invalid.Object.Locate(invalid.Path) != (Position{10, 16}) {
		t.Errorf("invalid at %q %v", invalid.Path, invalid.Object.Locate(invalid.Path))
	}
	if want := "bad.yaml:10: Deployment/d: spec.template.spec.volumes.fc.lun: a string where the API expects int32"; invalid.Error() != want {
		t.Errorf("error %q, want %q", invalid.Error(), want)
	}
}

func TestParentPath(t *testing.T) {
	cases := map[string]string{
		"a.b[0].c":                 "a.b[0]",
		"a.b[0]":                   "a.b",
		"a":                        "",
		`limits["nvidia.com/gpu"]`: "limits",
	}
	for in, want := range cases {
		if got := parentPath(in); got != want {
			t.Errorf("parentPath(%q) = %q, want %q", in, got, want)
		}
	}
}
