package manifest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestSeldonPrepackagedServers(t *testing.T) {
	source := `apiVersion: machinelearning.seldon.io/v1
kind: SeldonDeployment
metadata: {name: s, namespace: models}
spec:
  predictors:
    - name: p
      graph:
        name: combiner
        implementation: SKLEARN_SERVER
        modelUri: s3://models/iris
        envSecretRefName: rclone
        children:
          - name: tf
            implementation: TENSORFLOW_SERVER
            modelUri: pvc://claim/tf/model
          - name: step
            type: TRANSFORMER
      componentSpecs:
        - spec:
            containers:
              - name: step
                image: registry.example.com/step:1
`
	object, workloads := loadWorkloads(t, source)
	if len(workloads) != 1 {
		t.Fatalf("%d workloads, want the componentSpec's one", len(workloads))
	}
	w := workloads[0]
	var names []string
	for _, c := range w.Containers {
		names = append(names, c.Name+"="+c.Image)
	}
	want := []string{
		"combiner-model-initializer=seldonio/rclone-storage-initializer:1.18.2",
		"tfserving-model-initializer=seldonio/rclone-storage-initializer:1.18.2",
		"step=registry.example.com/step:1",
		"combiner=seldonio/sklearnserver:1.18.2",
		"tf=seldonio/tfserving-proxy:1.18.2",
		"tfserving=tensorflow/serving:2.1.0",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("containers\n%q, want\n%q", names, want)
	}
	// Each added field is placed at the graph node that made Seldon add it.
	for path, line := range map[string]int{
		"spec.predictors[0].componentSpecs[0].spec.containers[1]":                               7,
		"spec.predictors[0].componentSpecs[0].spec.containers[1].image":                         9,
		"spec.predictors[0].componentSpecs[0].spec.containers[1].resources.limits.memory":       7,
		"spec.predictors[0].componentSpecs[0].spec.initContainers[0].args[0]":                   10,
		"spec.predictors[0].componentSpecs[0].spec.initContainers[0].envFrom[0].secretRef.name": 11,
		"spec.predictors[0].componentSpecs[0].spec.containers[3].args[3]":                       13,
		"spec.predictors[0].componentSpecs[0].spec.volumes[1].persistentVolumeClaim.claimName":  15,
		"spec.predictors[0].componentSpecs[0].spec.containers[0].image":                         22,
	} {
		if got := object.Locate(path).Line; got != line {
			t.Errorf("%s on line %d, want %d", path, got, line)
		}
	}
	tf := w.Containers[5]
	if !slices.Contains(tf.Args, "--model_base_path=/mnt/models") || len(tf.VolumeMounts) != 2 {
		t.Errorf("tfserving args %q, mounts %v", tf.Args, tf.VolumeMounts)
	}
	init := w.Containers[0]
	if init.EnvFrom[0].SecretRef.Name != "rclone" || !slices.Equal(init.Args, []string{"s3://models/iris", "/mnt/models"}) {
		t.Errorf("initializer envFrom %v, args %q", init.EnvFrom, init.Args)
	}
	if pvc := w.Containers[1]; pvc.Args[0] != "/mnt/pvc/tf/model" {
		t.Errorf("pvc initializer args %q", pvc.Args)
	}
}

func TestSeldonPredictorWithoutComponentSpecs(t *testing.T) {
	source := "apiVersion: machinelearning.seldon.io/v1\nkind: SeldonDeployment\nmetadata: {name: s}\nspec:\n" +
		"  protocol: v2\n  predictors:\n    - name: p\n      graph: {name: m, implementation: MLFLOW_SERVER}\n" +
		"    - name: q\n      graph: {name: n, implementation: MY_SERVER}\n"
	_, workloads := loadWorkloads(t, source)
	// MY_SERVER has no default image: Seldon's webhook refuses the
	// predictor ("No entry in predictors map"), and nothing is built.
	if len(workloads) != 2 || len(workloads[1].Containers) != 0 {
		t.Fatalf("%d workloads", len(workloads))
	}
	c := workloads[0].Containers[0]
	if c.Image != "seldonio/mlserver:1.3.5-mlflow" || c.ReadinessProbe.HTTPGet.Path != "/v2/health/ready" ||
		c.Runtime == nil || c.Runtime.Name != "mlserver" {
		t.Errorf("container %s %v", c.Image, c.ReadinessProbe)
	}
}

func TestSeldonConfigReplacesTheDefaults(t *testing.T) {
	source := `apiVersion: v1
kind: ConfigMap
metadata: {name: seldon-config, namespace: seldon-system}
data:
  predictor_servers: |-
    {"SKLEARN_SERVER": {"protocols": {"seldon": {"image": "registry.example.com/sklearnserver", "defaultImageVersion": "1.18.2-fix"}}},
     "MY_SERVER": {"protocols": {"kfserving": {"image": "registry.example.com/my-server:2"}}},
     "TRITON_SERVER": {"protocols": {"v2": {"image": "nvcr.io/nvidia/tritonserver", "defaultImageVersion": "24.08-py3"}}}}
---
apiVersion: machinelearning.seldon.io/v1
kind: SeldonDeployment
metadata: {name: s, namespace: models}
spec:
  predictors:
    - name: p
      graph:
        name: iris
        implementation: SKLEARN_SERVER
        children:
          - name: booster
            implementation: XGBOOST_SERVER
---
apiVersion: machinelearning.seldon.io/v1
kind: SeldonDeployment
metadata: {name: v2, namespace: models}
spec:
  protocol: v2
  predictors:
    - name: p
      graph:
        name: mine
        implementation: MY_SERVER
        children:
          - name: cifar
            implementation: TRITON_SERVER
`
	file, err := Load("seldon.yaml", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	file.Settle(nil, false) // the typed fields are released, as in a run
	set, err := NewSet([]*File{file}, ReleaseTyped())
	if err != nil {
		t.Fatal(err)
	}
	config, err := ReadSeldonConfig(set.Objects[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range set.Objects[1:] {
		var workloads []*Workload
		for _, w := range set.Workloads {
			if w.Object == o {
				workloads = append(workloads, w)
			}
		}
		if err := o.UseSeldonConfig(config, workloads); err != nil {
			t.Fatal(err)
		}
	}
	images := func(w *Workload) []string {
		if err := w.Hold(); err != nil {
			t.Fatal(err)
		}
		defer w.Release()
		var names []string
		for _, c := range w.Containers {
			names = append(names, c.Name+"="+c.Container.Image)
		}
		return names
	}
	// XGBOOST_SERVER is not in the seldon-config: Seldon has no server for
	// it, whatever its defaults say. MY_SERVER's kfserving image serves
	// the v2 protocol (PrepackImageName).
	for i, want := range [][]string{
		{"iris=registry.example.com/sklearnserver:1.18.2-fix"},
		{"mine=registry.example.com/my-server:2", "cifar=nvcr.io/nvidia/tritonserver:24.08-py3"},
	} {
		if got := images(set.Workloads[i]); !slices.Equal(got, want) {
			t.Errorf("workload %d: containers %q, want %q", i, got, want)
		}
	}
	// The image is placed where the seldon-config names it, the rest of
	// the container at its graph node.
	deployment := set.Objects[1]
	for path, want := range map[string]string{
		"spec.predictors[0].componentSpecs[0].spec.containers[0].image":         "seldon.yaml:5",
		"spec.predictors[0].componentSpecs[0].spec.containers[0].ports":         "seldon.yaml:16",
		"spec.predictors[0].componentSpecs[0].spec.containers[0].ports[0].name": "seldon.yaml:16",
	} {
		file, pos := deployment.Doc.Where(deployment.FullPath(path))
		if got := fmt.Sprintf("%s:%d", file, pos.Line); got != want {
			t.Errorf("%s at %s, want %s", path, got, want)
		}
	}
	if note := NotLinted(deployment); !strings.Contains(note, "ConfigMap/seldon-system/seldon-config") {
		t.Errorf("note %q", note)
	}
}

func TestSeldonConfigUnreadable(t *testing.T) {
	file, err := Load("cm.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: seldon-config}\n"+
		"data: {predictor_servers: '{\"SKLEARN_SERVER\": [1]}'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSeldonConfig(file.Objects[0]); err == nil {
		t.Error("no error for predictor_servers that is no map of servers")
	}
}
