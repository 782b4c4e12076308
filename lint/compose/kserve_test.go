package compose

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/manifest"
)

const runtimes = `apiVersion: serving.kserve.io/v1alpha1
kind: ClusterServingRuntime
metadata:
  name: cluster-tf
spec:
  supportedModelFormats: [{name: tensorflow, autoSelect: true, priority: 9}]
  containers:
    - name: kserve-container
      image: cluster-image
---
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: low
  namespace: ns
spec:
  supportedModelFormats: [{name: tensorflow, autoSelect: true, priority: 1}]
  containers:
    - name: kserve-container
      image: low-image
---
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: high
  namespace: ns
spec:
  supportedModelFormats: [{name: tensorflow, autoSelect: true, priority: 2}]
  containers:
    - name: kserve-container
      image: high-image
      args: ["--model_name={{.Name}}", --port=9000]
      env: [{name: A, value: runtime}, {name: B, value: runtime}]
      resources: {limits: {memory: 2Gi, cpu: "1"}}
  volumes: [{name: shm, emptyDir: {medium: Memory}}]
`

const isvc = `apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: model
  namespace: ns
spec:
  predictor:
    model:
      modelFormat: {name: tensorflow}
      storageUri: pvc://claim/models/m
      args: [--extra]
      env: [{name: B, value: isvc}, {name: C, value: isvc}]
      resources: {limits: {memory: 1Gi}}
`

// composed loads the runtimes and the InferenceService, each a file, and
// composes them.
func composed(t *testing.T, runtimes, isvc string) (*manifest.Set, []string) {
	t.Helper()
	runtimeFile, err := manifest.Load("runtimes.yaml", []byte(runtimes))
	if err != nil {
		t.Fatal(err)
	}
	isvcFile, err := manifest.Load("isvc.yaml", []byte(isvc))
	if err != nil {
		t.Fatal(err)
	}
	set, err := manifest.NewSet([]*manifest.File{runtimeFile, isvcFile}, manifest.ReleaseTyped())
	if err != nil {
		t.Fatal(err)
	}
	notes, err := KServe(set)
	if err != nil {
		t.Fatal(err)
	}
	return set, notes
}

func TestKServe(t *testing.T) {
	set, notes := composed(t, runtimes, isvc)
	if len(notes) > 0 {
		t.Fatalf("KServe: %v", notes)
	}
	var predictor *manifest.Workload
	for _, w := range set.Workloads {
		if w.Object.Name == "high" {
			t.Errorf("the runtime composed with is still a workload")
		}
		if w.Object.Kind == "InferenceService" {
			predictor = w
		}
	}
	var c *manifest.Container
	for _, candidate := range predictor.Containers {
		if candidate.Path == modelPath {
			c = candidate
		}
	}
	if c == nil || c.ComposedFrom == nil || c.ComposedFrom.Name != "high" {
		t.Fatalf("not composed with the namespace's runtime of the highest priority: %+v", c)
	}
	if c.Image != "high-image" || len(c.Args) != 3 || c.Args[0] != "--model_name=model" || c.Args[2] != "--extra" {
		t.Errorf("image %q, args %q", c.Image, c.Args)
	}
	var env []string
	for _, e := range c.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	if got := fmt.Sprint(env); got != "[A=runtime B=isvc C=isvc]" {
		t.Errorf("env %s", got)
	}
	if memory := c.Resources.Limits.Memory().String(); memory != "1Gi" || c.Resources.Limits.Cpu().String() != "1" {
		t.Errorf("limits %v", c.Resources.Limits)
	}
	if n := len(predictor.Spec.Volumes); n != 2 {
		t.Errorf("%d volumes, want the runtime's and the claim's", n)
	}

	for _, tc := range []struct {
		path string
		file string
		line int
	}{
		{"spec.predictor.model.image", "runtimes.yaml", 31},
		{"spec.predictor.model.args[0]", "runtimes.yaml", 32},
		{"spec.predictor.model.args[2]", "isvc.yaml", 11},
		{"spec.predictor.model.env[0]", "runtimes.yaml", 33},
		{"spec.predictor.model.env[1]", "isvc.yaml", 12},
		{"spec.predictor.model.resources.limits.memory", "isvc.yaml", 13},
		{"spec.predictor.model.resources.limits.cpu", "runtimes.yaml", 34},
		{"spec.predictor.model.volumeMounts[0]", "isvc.yaml", 10},
		{"spec.predictor.volumes[0]", "runtimes.yaml", 35},
		{"spec.predictor.volumes[1]", "isvc.yaml", 10},
		{"spec.predictor.model.livenessProbe", "isvc.yaml", 8},
	} {
		file, pos := predictor.Object.Where(tc.path)
		if file != tc.file || pos.Line != tc.line {
			t.Errorf("%s at %s:%d, want %s:%d", tc.path, file, pos.Line, tc.file, tc.line)
		}
	}
}

// TestKServeProtocol: a model spec that writes no protocolVersion speaks
// v1 (v2 for the triton format), so a higher-priority runtime that lists
// only v2 is passed over, as KServe's GetSupportingRuntimes does.
func TestKServeProtocol(t *testing.T) {
	const source = `apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata: {name: mlserver, namespace: ns}
spec:
  supportedModelFormats: [{name: sklearn, autoSelect: true, priority: 2}, {name: triton, autoSelect: true, priority: 2}]
  protocolVersions: [v2]
  containers: [{name: kserve-container, image: mlserver-image}]
---
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata: {name: sklearnserver, namespace: ns}
spec:
  supportedModelFormats: [{name: sklearn, autoSelect: true, priority: 1}, {name: triton, autoSelect: true, priority: 1}]
  protocolVersions: [v1]
  containers: [{name: kserve-container, image: sklearn-image}]
`
	for format, want := range map[string]string{"sklearn": "sklearnserver", "triton": "mlserver"} {
		isvc := "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: m, namespace: ns}\n" +
			"spec:\n  predictor:\n    model:\n      modelFormat: {name: " + format + "}\n"
		set, _ := composed(t, source, isvc)
		got := ""
		for _, w := range set.Workloads {
			for _, c := range w.Containers {
				if c.ComposedFrom != nil {
					got = c.ComposedFrom.Name
				}
			}
		}
		if got != want {
			t.Errorf("%s: composed with %q, want %q", format, got, want)
		}
	}
}

// TestKServeNamedRuntimeProtocol: a runtime named by runtime: that lists
// only v2, for a model spec that writes no protocolVersion (so asks for
// v1), is not composed, and the note says which protocol was asked for.
func TestKServeNamedRuntimeProtocol(t *testing.T) {
	const source = `apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata: {name: onnx-v2, namespace: ns}
spec:
  supportedModelFormats: [{name: onnx, version: "1"}]
  protocolVersions: [v2]
  containers: [{name: kserve-container, image: triton-image}]
`
	const isvc = "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: m, namespace: ns}\n" +
		"spec:\n  predictor:\n    model:\n      modelFormat: {name: onnx}\n      runtime: onnx-v2\n"
	set, notes := composed(t, source, isvc)
	for _, w := range set.Workloads {
		for _, c := range w.Containers {
			if c.ComposedFrom != nil {
				t.Errorf("composed with %s", c.ComposedFrom.Name)
			}
		}
	}
	want := `runtime "onnx-v2" does not list protocol v1 (KServe's default, as the predictor sets no protocolVersion)`
	if !slices.ContainsFunc(notes, func(note string) bool { return strings.Contains(note, want) }) {
		t.Errorf("notes %q, want one containing %q", notes, want)
	}
}

// TestKServeFrameworkShorthandStorage: the older per-framework shorthands
// get their storageUri at /mnt/models too, a pvc:// claim in place.
func TestKServeFrameworkShorthandStorage(t *testing.T) {
	set, _ := composed(t, "", `apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: iris}
spec:
  predictor:
    sklearn:
      storageUri: pvc://models/iris/v1
`)
	var mounts []string
	for _, w := range set.Workloads {
		for _, c := range w.Containers {
			for _, m := range c.VolumeMounts {
				mounts = append(mounts, c.Path+" "+m.Name+" "+m.MountPath+" "+m.SubPath)
			}
		}
	}
	if want := []string{"spec.predictor.sklearn " + pvcVolume + " /mnt/models iris/v1"}; fmt.Sprint(mounts) != fmt.Sprint(want) {
		t.Errorf("mounts %q, want %q", mounts, want)
	}
}

// TestKServeStorageInitializer: a storageUri that is downloaded gets the
// storage-initializer init container KServe's webhook injects, placed on
// the URI's line; a transformer's STORAGE_URI gets it too, with the model
// at /mnt/models and the env var set to /mnt/models; a claim gets none.
func TestKServeStorageInitializer(t *testing.T) {
	set, _ := composed(t, "", `apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: iris, namespace: ns}
spec:
  predictor:
    sklearn:
      storageUri: gs://models/iris
  transformer:
    containers:
      - name: preprocess
        image: transformer-image
        env:
          - {name: OTHER, value: x}
          - {name: STORAGE_URI, value: s3://models/encoders}
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: claim, namespace: ns}
spec:
  predictor:
    sklearn:
      storageUri: pvc://models/iris
`)
	got := map[string]string{}
	for _, w := range set.Workloads {
		if err := w.Hold(); err != nil {
			t.Fatal(err)
		}
		for _, c := range w.Containers {
			if !c.Init {
				var mounts, env []string
				for _, m := range c.VolumeMounts {
					mounts = append(mounts, m.Name+":"+m.MountPath)
				}
				for _, e := range c.Env {
					env = append(env, e.Name+"="+e.Value)
				}
				got[w.Name()+" "+c.Name] = fmt.Sprint(mounts, env)
				continue
			}
			file, pos := w.Object.Where(c.Path + ".resources.requests.cpu")
			got[w.Name()+" init"] = fmt.Sprintf("%s %s %q %v %v %v %s:%d", c.Name, c.Image, c.Args,
				c.Resources.Requests.Cpu(), c.Resources.Limits.Memory(), c.VolumeMounts[0].MountPath, file, pos.Line)
		}
	}
	want := map[string]string{
		"InferenceService/ns/iris (predictor) init": `storage-initializer kserve/storage-initializer:v0.19.0 ` +
			`["gs://models/iris" "/mnt/models"] 100m 1Gi /mnt/models isvc.yaml:7`,
		"InferenceService/ns/iris (predictor) kserve-container": "[kserve-provision-location:/mnt/models] []",
		"InferenceService/ns/iris (transformer) init": `storage-initializer kserve/storage-initializer:v0.19.0 ` +
			`["s3://models/encoders" "/mnt/models"] 100m 1Gi /mnt/models isvc.yaml:14`,
		"InferenceService/ns/iris (transformer) preprocess":      "[kserve-provision-location:/mnt/models] [OTHER=x STORAGE_URI=/mnt/models]",
		"InferenceService/ns/claim (predictor) kserve-container": "[kserve-pvc-source:/mnt/models] []",
	}
	for key, value := range want {
		if got[key] != value {
			t.Errorf("%s:\n got %s\nwant %s", key, got[key], value)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %v", got)
	}
}
