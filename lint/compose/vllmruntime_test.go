package compose

import (
	"strings"
	"testing"
)

const vllmRuntimes = `apiVersion: production-stack.vllm.ai/v1alpha1
kind: VLLMRuntime
metadata: {name: llama, namespace: llm}
spec:
  model:
    modelURL: meta-llama/Llama-3.1-8B-Instruct
    maxModelLen: 4096
    hfTokenSecret: {hfTokenSecretName: hf, hfTokenKeyName: token}
  vllmConfig:
    tensorParallelSize: 2
    extraArgs: [--enforce-eager]
    env: [{name: HF_HOME, value: /data}]
  storageConfig: {enabled: true}
  deploymentConfig:
    resources: {cpu: "4", memory: 32Gi, gpu: "2"}
    image: {registry: docker.io, name: "vllm/vllm-openai:v0.10.1"}
    sidecarConfig:
      enabled: true
      image: {registry: docker.io, name: "lmcache/lmstack-sidecar:v0.1.0"}
---
apiVersion: production-stack.vllm.ai/v1alpha1
kind: VLLMRuntime
metadata: {name: broken, namespace: llm}
spec:
  model: {modelURL: m}
  deploymentConfig:
    resources: {memory: lots}
    image: {registry: docker.io, name: "vllm/vllm-openai:v0.10.1"}
`

// TestVLLMRuntimes: a VLLMRuntime's pod is built as the production-stack
// operator's deploymentForVLLMRuntime builds it.
func TestVLLMRuntimes(t *testing.T) {
	set, notes := composedWith(t, VLLMRuntimes, map[string]string{"runtime.yaml": vllmRuntimes})
	if len(notes) != 1 || !strings.Contains(notes[0], `VLLMRuntime/llm/broken: resources ["lots"] are no quantities`) {
		t.Errorf("notes %q", notes)
	}
	if workloadOf(t, set, "VLLMRuntime", "broken") != nil {
		t.Errorf("a VLLMRuntime the operator cannot build has a pod")
	}
	w := workloadOf(t, set, "VLLMRuntime", "llama")
	if w == nil || len(w.Containers) != 2 {
		t.Fatalf("pod %+v", w)
	}
	vllm, sidecar := w.Containers[0], w.Containers[1]
	if got := strings.Join(append(vllm.Command, vllm.Args...), " "); got != "/opt/venv/bin/vllm serve "+
		"meta-llama/Llama-3.1-8B-Instruct --host 0.0.0.0 --port 8000 --no-enable-chunked-prefill "+
		"--no-enable-prefix-caching --max-model-len 4096 --tensor-parallel-size 2 --enforce-eager" {
		t.Errorf("command %s", got)
	}
	if vllm.Image != "docker.io/vllm/vllm-openai:v0.10.1" || vllm.Runtime == nil || vllm.Runtime.Name != "vllm" {
		t.Errorf("image %s, runtime %v", vllm.Image, vllm.Runtime)
	}
	if gpus := vllm.Resources.Limits["nvidia.com/gpu"]; gpus.Value() != 2 || vllm.Resources.Requests.Memory().String() != "32Gi" {
		t.Errorf("resources %v", vllm.Resources)
	}
	if env := vllm.Env[len(vllm.Env)-1]; env.Name != "HF_TOKEN" || env.ValueFrom.SecretKeyRef.Key != "token" {
		t.Errorf("env %v", vllm.Env)
	}
	if claim := w.Spec.Volumes[0].PersistentVolumeClaim; claim == nil || claim.ClaimName != "llama" ||
		vllm.VolumeMounts[0].MountPath != "/data" || *w.Spec.RuntimeClassName != "nvidia" {
		t.Errorf("volumes %+v, mounts %+v", w.Spec.Volumes, vllm.VolumeMounts)
	}
	if sidecar.Name != "sidecar" || sidecar.Resources.Limits.Cpu().String() != "500m" || sidecar.VolumeMounts[0].Name != "pvc-storage" {
		t.Errorf("sidecar %+v", sidecar)
	}
	wantLines(t, w, "runtime.yaml", map[string]int{
		"deployment.spec.template.spec.containers[0].image":                                16,
		"deployment.spec.template.spec.containers[0].args[0]":                              6,
		"deployment.spec.template.spec.containers[0].args[9]":                              10,
		"deployment.spec.template.spec.containers[0].args[11]":                             11,
		"deployment.spec.template.spec.containers[0].env[1].value":                         12,
		"deployment.spec.template.spec.containers[0].resources.limits.memory":              15,
		`deployment.spec.template.spec.containers[0].resources.requests["nvidia.com/gpu"]`: 15,
		"deployment.spec.template.spec.volumes[0].persistentVolumeClaim.claimName":         13,
		"deployment.spec.template.spec.containers[1].image":                                19,
	})
}
