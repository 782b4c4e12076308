package compose

import (
	"strings"
	"testing"
)

const kubeAIModels = `apiVersion: kubeai.org/v1
kind: Model
metadata: {name: llama, namespace: kubeai}
spec:
  url: pvc://models/llama-3.1-8b
  engine: VLLM
  args: [--max-model-len=8192]
  env: {VLLM_LOGGING_LEVEL: DEBUG}
  resourceProfile: nvidia-gpu-l4:2
---
apiVersion: kubeai.org/v1
kind: Model
metadata: {name: custom, namespace: kubeai}
spec:
  url: hf://m/m
  engine: VLLM
  resourceProfile: my-profile:1
`

// TestKubeAIModels: a Model's server pod is built as KubeAI's model
// controller builds it on the default system configuration, which makes
// it incomplete.
func TestKubeAIModels(t *testing.T) {
	set, notes := composedWith(t, KubeAIModels, map[string]string{"models.yaml": kubeAIModels})
	if len(notes) != 2 || !strings.Contains(notes[0], "image vllm/vllm-openai:v0.10.2, resource profile nvidia-gpu-l4 × 2") ||
		!strings.Contains(notes[1], `resource profile "my-profile" is not one of KubeAI v0.22.1's default configuration`) {
		t.Errorf("notes %q", notes)
	}
	w := workloadOf(t, set, "Model", "llama")
	if w == nil || !w.Incomplete || len(w.Containers) != 1 || workloadOf(t, set, "Model", "custom") != nil {
		t.Fatalf("pod %+v", w)
	}
	c := w.Containers[0]
	if got := strings.Join(append(c.Command, c.Args...), " "); got != "python3 -m vllm.entrypoints.openai.api_server "+
		"--model=/model --served-model-name=llama --max-model-len=8192" {
		t.Errorf("command %s", got)
	}
	gpus := c.Resources.Limits["nvidia.com/gpu"]
	if c.Image != "vllm/vllm-openai:v0.10.2" || gpus.Value() != 2 || c.Resources.Requests.Memory().String() != "48Gi" {
		t.Errorf("image %s, resources %v", c.Image, c.Resources)
	}
	if claim := w.Spec.Volumes[1].PersistentVolumeClaim; claim.ClaimName != "models" || c.VolumeMounts[1].SubPath != "llama-3.1-8b" {
		t.Errorf("volumes %+v, mounts %+v", w.Spec.Volumes, c.VolumeMounts)
	}
	if c.Env[0].Name != "VLLM_LOGGING_LEVEL" || c.StartupProbe.FailureThreshold != 5400 || w.Spec.Tolerations[0].Key != "nvidia.com/gpu" {
		t.Errorf("env %v, startup probe %v", c.Env, c.StartupProbe)
	}
	wantLines(t, w, "models.yaml", map[string]int{
		"pod.spec.containers[0].image":                        9,
		"pod.spec.containers[0].resources.limits.memory":      9,
		"pod.spec.containers[0].args[0]":                      5,
		"pod.spec.containers[0].args[2]":                      7,
		"pod.spec.containers[0].env[0].value":                 8,
		"pod.spec.volumes[1].persistentVolumeClaim.claimName": 5,
		"pod.spec.containers[0].readinessProbe.httpGet.path":  6,
	})
}
