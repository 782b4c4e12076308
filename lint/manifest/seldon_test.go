package manifest

import (
	"slices"
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
