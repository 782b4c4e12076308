package compose

import (
	"strings"
	"testing"
)

const llmazObjects = `apiVersion: llmaz.io/v1alpha1
kind: OpenModel
metadata: {name: qwen}
spec:
  familyName: qwen2
  source:
    modelHub: {modelID: Qwen/Qwen2-0.5B-Instruct}
  inferenceConfig:
    flavors:
      - {name: a100, limits: {nvidia.com/gpu: 2}}
---
apiVersion: inference.llmaz.io/v1alpha1
kind: Playground
metadata: {name: qwen}
spec:
  modelClaim: {modelName: qwen}
  backendRuntimeConfig:
    args: [--tensor-parallel-size=2]
    envs: [{name: VLLM_LOGGING_LEVEL, value: DEBUG}]
    resources:
      requests: {memory: 16Gi}
---
apiVersion: inference.llmaz.io/v1alpha1
kind: Playground
metadata: {name: elsewhere}
spec:
  modelClaim: {modelName: missing}
`

// TestPlaygrounds: a Playground's pod is built as llmaz builds it, from
// the chart's BackendRuntime vllm when the files hold none.
func TestPlaygrounds(t *testing.T) {
	set, notes := composedWith(t, Playgrounds, map[string]string{"playground.yaml": llmazObjects})
	if len(notes) != 2 || !strings.Contains(notes[0], "Playground/qwen: BackendRuntime vllm is not in the linted files") ||
		!strings.Contains(notes[1], `Playground/elsewhere: OpenModel "missing" is not in the linted files`) {
		t.Errorf("notes %q", notes)
	}
	w := workloadOf(t, set, "Playground", "qwen")
	if w == nil || !w.Incomplete || len(w.Containers) != 2 || workloadOf(t, set, "Playground", "elsewhere") != nil {
		t.Fatalf("pod %+v", w)
	}
	loader, runner := w.Containers[0], w.Containers[1]
	if !loader.Init || loader.Image != "inftyai/model-loader:v0.0.10" || runner.Image != "vllm/vllm-openai:v0.7.3" ||
		runner.Runtime == nil || runner.Runtime.Name != "vllm" {
		t.Errorf("loader %s, runner %s", loader.Image, runner.Image)
	}
	if got := strings.Join(runner.Args, " "); got != "--model /workspace/models/models--Qwen--Qwen2-0.5B-Instruct "+
		"--served-model-name qwen --host 0.0.0.0 --port 8080 --tensor-parallel-size=2" {
		t.Errorf("args %s", got)
	}
	gpus := runner.Resources.Limits["nvidia.com/gpu"]
	if gpus.Value() != 2 || runner.Resources.Limits.Memory().String() != "16Gi" || runner.Resources.Requests.Memory().String() != "16Gi" {
		t.Errorf("resources %v", runner.Resources)
	}
	if len(w.Spec.Volumes) != 2 || w.Spec.Volumes[1].EmptyDir == nil || runner.VolumeMounts[1].MountPath != "/workspace/models/" ||
		!runner.VolumeMounts[1].ReadOnly {
		t.Errorf("volumes %+v, mounts %+v", w.Spec.Volumes, runner.VolumeMounts)
	}
	wantLines(t, w, "playground.yaml", map[string]int{
		"service.spec.workloadTemplate.workerTemplate.spec.containers[0].image":                              17,
		"service.spec.workloadTemplate.workerTemplate.spec.containers[0].args[8]":                            18,
		"service.spec.workloadTemplate.workerTemplate.spec.containers[0].resources.requests.memory":          21,
		`service.spec.workloadTemplate.workerTemplate.spec.containers[0].resources.limits["nvidia.com/gpu"]`: 10,
		"service.spec.workloadTemplate.workerTemplate.spec.volumes[1].emptyDir":                              6,
		"service.spec.workloadTemplate.workerTemplate.spec.initContainers[0].image":                          6,
	})
}
