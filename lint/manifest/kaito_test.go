package manifest

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// A preset Workspace's pod is the one KAITO builds: its base image, the
// vLLM command with the node's GPUs as the tensor-parallel size, the
// GPUs requested, /dev/shm, the weights' volume, KAITO's probes and
// ports; each field placed at the Workspace field that made KAITO write it.
func TestKAITOPresetPod(t *testing.T) {
	source := `apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: llama
  namespace: llm
resource:
  instanceType: Standard_NC96ads_A100_v4
  labelSelector:
    matchLabels: {apps: llama}
inference:
  preset:
    name: llama-3.3-70b-instruct
    presetOptions:
      modelAccessSecret: hf-token
`
	o, workloads := loadWorkloads(t, source)
	if len(workloads) != 1 || len(workloads[0].Containers) != 1 {
		t.Fatalf("workloads %v", workloads)
	}
	w := workloads[0]
	c := w.Containers[0]
	if c.Name != "llama" || c.Image != KAITOBaseImage || !c.Built || c.Runtime == nil || c.Runtime.Name != "kaito-vllm" {
		t.Errorf("container %s, image %q, built %v, runtime %v", c.Name, c.Image, c.Built, c.Runtime)
	}
	if len(c.Command) != 3 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" {
		t.Fatalf("command %q", c.Command)
	}
	line := c.Command[2]
	// llama-3.3-70b-instruct's 131.4 GiB on four 80 GB A100s: by KAITO's
	// estimate one node holds it, but not one GPU, so tensor parallelism
	// over the four.
	for _, want := range []string{"python3 /workspace/vllm/inference_api.py ", "--model=meta-llama/llama-3.3-70b-instruct",
		"--tensor-parallel-size=4", "--max-model-len=auto", "--gpu-memory-utilization=0.84", "--download-dir=/workspace/weights",
		"--served-model-name=llama-3.3-70b-instruct"} {
		if !strings.Contains(line, want) {
			t.Errorf("command %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "data-parallel") || strings.Contains(line, "pipeline") {
		t.Errorf("command %q", line)
	}
	if gpus := c.Resources.Limits["nvidia.com/gpu"]; gpus.Value() != 4 {
		t.Errorf("GPU limit %v", gpus.String())
	}
	if inv := c.Invocation(); inv == nil || inv.Engine.Name != "vllm" || len(inv.ModelPaths) != 1 || inv.ModelPaths[0].Value != "meta-llama/llama-3.3-70b-instruct" {
		t.Errorf("invocation %+v", inv)
	}
	if !slices.ContainsFunc(w.Spec.Volumes, func(v corev1.Volume) bool {
		return v.Name == "dshm" && v.EmptyDir != nil && v.EmptyDir.Medium == "Memory"
	}) ||
		!slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/dev/shm" }) {
		t.Errorf("no /dev/shm: %v %v", w.Spec.Volumes, c.VolumeMounts)
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Port.IntValue() != 5000 ||
		c.StartupProbe == nil || c.StartupProbe.Exec == nil || c.Ports[0].ContainerPort != 5000 {
		t.Errorf("probes %v %v, ports %v", c.ReadinessProbe, c.StartupProbe, c.Ports)
	}
	// Placed where a user edits: the GPUs at the instance type, the
	// token at the secret, the rest at the preset's name.
	for path, line := range map[string]int{
		c.Path + ".resources.limits":     7,
		c.Path + ".image":                12,
		c.Path + ".command":              12,
		c.Path + ".env[2].valueFrom":     14,
		w.SpecPath + ".affinity":         8,
		w.SpecPath + ".volumes[0]":       12,
		c.Path + ".readinessProbe":       12,
		"resource.instanceType":          7,
		"inference.preset.name":          12,
		"inference.preset.presetOptions": 13,
	} {
		if _, pos := o.Where(path); pos.Line != line {
			t.Errorf("%s on line %d, want %d", path, pos.Line, line)
		}
	}
	if !w.AssumedAt(c.Path+".image") || w.AssumedAt("resource.count") {
		t.Errorf("assumed %q", w.Assumed)
	}
}

// A preset that fits half a GPU is served by data parallelism over the
// node's GPUs; one that needs several nodes by pipeline parallelism on a
// Ray cluster; the transformers runtime by accelerate launch; and a preset
// or instance type modellint does not know builds no container.
func TestKAITOPresetCommands(t *testing.T) {
	workspace := func(annotations, instanceType, preset string) string {
		return "apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata:\n  name: w\n" + annotations +
			"resource:\n  instanceType: " + instanceType + "\ninference:\n  preset:\n    name: " + preset + "\n"
	}
	cases := []struct {
		name, source string
		want         []string // in the command; none: no container
	}{
		{"data parallel", workspace("", "Standard_NC48ads_A100_v4", "phi-4-mini-instruct"),
			[]string{"--data-parallel-size=2", "--tensor-parallel-size=1", "--kaito-kv-cache-cpu-memory-utilization=0"}},
		{"pipeline over nodes", workspace("", "Standard_NV36ads_A10_v5", "phi-4"),
			[]string{`if [ "${POD_INDEX}" = "0" ]; then /workspace/vllm/multi-node-serving.sh leader --ray_cluster_size=2`,
				"--pipeline-parallel-size=2", "--tensor-parallel-size=1", "--gpu-memory-utilization=0.82",
				"else /workspace/vllm/multi-node-serving.sh worker --ray_address=w-0.w-headless.default.svc.cluster.local"}},
		{"transformers", workspace("  annotations: {kaito.sh/runtime: transformers}\n", "Standard_NC24ads_A100_v4", "qwen2.5-coder-7b-instruct"),
			[]string{"accelerate launch --gpu_ids=all --machine_rank=0 --num_machines=1 --num_processes=1 /workspace/tfs/inference_api.py",
				"--pretrained_model_name_or_path=qwen/qwen2.5-coder-7b-instruct", "--torch_dtype=bfloat16"}},
		{"config", workspace("", "Standard_NC24ads_A100_v4", "phi-4-mini-instruct") + "  config: phi-config\n",
			[]string{"--kaito-config-file=/mnt/config/inference_config.yaml"}},
		{"preset not in the table", workspace("", "Standard_NC24ads_A100_v4", "falcon-7b"), nil},
		{"instance type not known", workspace("", "Standard_D4s_v5", "phi-4"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, workloads := loadWorkloads(t, tc.source)
			if len(workloads) != 1 || workloads[0].Preset == nil {
				t.Fatalf("workloads %v", workloads)
			}
			w := workloads[0]
			if tc.want == nil {
				if len(w.Containers) != 0 || w.Assumed != "" {
					t.Errorf("containers %v", w.Containers)
				}
				return
			}
			if len(w.Containers) != 1 {
				t.Fatalf("containers %v", w.Containers)
			}
			line := w.Containers[0].Command[2]
			// A volume of the user's ConfigMap is no assumption of KAITO's.
			if config := strings.Contains(line, "kaito-config-file"); w.AssumedAt(w.SpecPath+".volumes[0].configMap.name") == config ||
				!w.AssumedAt(w.SpecPath+".volumes[1]") {
				t.Errorf("assumed %q, but not %v", w.Assumed, w.userCaused)
			}
			for _, want := range tc.want {
				if !strings.Contains(line, want) {
					t.Errorf("command %q lacks %q", line, want)
				}
			}
		})
	}
}

// An InferenceSet's pods are those of the Workspaces it makes of its
// template: the preset's pod, served under the InferenceSet's name, its
// GPUs placed at the template's instance type.
func TestKAITOInferenceSetPod(t *testing.T) {
	source := `apiVersion: kaito.sh/v1alpha1
kind: InferenceSet
metadata:
  name: phi-4-mini
spec:
  replicas: 2
  labelSelector:
    matchLabels: {apps: phi-4-mini}
  template:
    inference:
      preset:
        name: phi-4-mini-instruct
    resource:
      instanceType: Standard_NC24ads_A100_v4
`
	o, workloads := loadWorkloads(t, source)
	if len(workloads) != 1 || len(workloads[0].Containers) != 1 || workloads[0].Preset == nil {
		t.Fatalf("workloads %v", workloads)
	}
	w := workloads[0]
	c := w.Containers[0]
	if line := c.Command[2]; !strings.Contains(line, "--served-model-name=phi-4-mini ") ||
		!strings.Contains(line, "--model=microsoft/phi-4-mini-instruct") || !strings.Contains(line, "--tensor-parallel-size=1") {
		t.Errorf("command %q", line)
	}
	for path, line := range map[string]int{c.Path + ".resources": 14, c.Path + ".image": 12, w.SpecPath + ".affinity": 7} {
		if _, pos := o.Where(path); pos.Line != line {
			t.Errorf("%s on line %d, want %d", path, pos.Line, line)
		}
	}
	if NotLinted(o) != "" {
		t.Errorf("InferenceSet not linted: %s", NotLinted(o))
	}
}

// A RAGEngine's pod is the Deployment KAITO runs for it: the RAG service
// image, the GPUs of spec.compute.instanceType for a local embedding
// model, the vector store's claim, the env its spec sets, each placed at
// the field that made KAITO write it.
func TestKAITORAGEnginePod(t *testing.T) {
	source := `apiVersion: kaito.sh/v1alpha1
kind: RAGEngine
metadata:
  name: rag
spec:
  compute:
    instanceType: Standard_NC6s_v3
    labelSelector:
      matchLabels: {apps: rag}
  storage:
    persistentVolumeClaim: pvc-vector-db
    mountPath: /mnt/vector-db
  embedding:
    local:
      modelID: BAAI/bge-small-en-v1.5
  inferenceService:
    url: http://phi-3.default.svc/v1/chat/completions
    accessSecret: llm-key
    contextWindowSize: 4000
`
	o, workloads := loadWorkloads(t, source)
	if len(workloads) != 1 || len(workloads[0].Containers) != 1 {
		t.Fatalf("workloads %v", workloads)
	}
	w := workloads[0]
	c := w.Containers[0]
	if c.Image != KAITORAGImage || !c.Built || c.Runtime != nil {
		t.Errorf("image %q, built %v, runtime %v", c.Image, c.Built, c.Runtime)
	}
	if gpus := c.Resources.Limits["nvidia.com/gpu"]; gpus.Value() != 1 {
		t.Errorf("GPU limit %v", gpus.String())
	}
	if v := w.Spec.Volumes[1]; v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != "pvc-vector-db" ||
		c.VolumeMounts[1].MountPath != "/mnt/vector-db" {
		t.Errorf("vector store %v, mounted %v", v, c.VolumeMounts)
	}
	env := map[string]int{}
	for i, variable := range c.Env {
		env[variable.Name] = i
	}
	if secret := c.Env[env["LLM_ACCESS_SECRET"]].ValueFrom; secret == nil || secret.SecretKeyRef.Name != "llm-key" ||
		c.Env[env["DEFAULT_VECTOR_DB_PERSIST_DIR"]].Value != "/mnt/vector-db/rag" || c.Env[env["MODEL_ID"]].Value != "BAAI/bge-small-en-v1.5" {
		t.Errorf("env %v", c.Env)
	}
	for path, line := range map[string]int{
		c.Path + ".resources.limits":                                      7,
		w.SpecPath + ".volumes[1].persistentVolumeClaim":                  10,
		IndexPath(c.Path+".env", env["LLM_ACCESS_SECRET"]) + ".valueFrom": 18,
		IndexPath(c.Path+".env", env["MODEL_ID"]):                         15,
		w.SpecPath + ".affinity":                                          8,
		c.Path + ".image":                                                 5,
	} {
		if _, pos := o.Where(path); pos.Line != line {
			t.Errorf("%s on line %d, want %d", path, pos.Line, line)
		}
	}
}

// A MultiRoleInference's roles are InferenceSets of its model: each role's
// pod has its role's env, and the decode role's vLLM listens on 5001
// behind llm-d's routing sidecar on 5000, placed at the role.
func TestKAITOMultiRoleInferencePods(t *testing.T) {
	source := `apiVersion: kaito.sh/v1alpha1
kind: MultiRoleInference
metadata:
  name: phi
spec:
  labelSelector:
    matchLabels: {apps: phi}
  model:
    name: phi-4-mini-instruct
  roles:
    - type: prefill
      instanceType: Standard_NC24ads_A100_v4
    - type: decode
      instanceType: Standard_NC24ads_A100_v4
`
	o, workloads := loadWorkloads(t, source)
	if len(workloads) != 2 || workloads[0].Component != "prefill" || workloads[1].Component != "decode" {
		t.Fatalf("workloads %v", workloads)
	}
	prefill, decode := workloads[0], workloads[1]
	if len(prefill.Containers) != 1 || strings.Contains(prefill.Containers[0].Command[2], "--port") {
		t.Errorf("prefill %v", prefill.Containers)
	}
	if len(decode.Containers) != 2 {
		t.Fatalf("decode containers %v", decode.Containers)
	}
	vllm, sidecar := decode.Containers[0], decode.Containers[1]
	if !strings.Contains(vllm.Command[2], "--port=5001") || vllm.ReadinessProbe.HTTPGet.Port.IntValue() != 5001 ||
		vllm.Ports[0].ContainerPort != 5001 || !slices.ContainsFunc(vllm.Env, func(e corev1.EnvVar) bool { return e.Name == "KAITO_INFERENCE_ROLE" && e.Value == "decode" }) {
		t.Errorf("decode vLLM %q, probe %v, ports %v, env %v", vllm.Command[2], vllm.ReadinessProbe, vllm.Ports, vllm.Env)
	}
	if sidecar.Name != "llm-d-routing-sidecar" || sidecar.Ports[0].ContainerPort != 5000 || !sidecar.Built {
		t.Errorf("sidecar %+v", sidecar.Container)
	}
	for path, line := range map[string]int{sidecar.Path + ".image": 13, vllm.Path + ".image": 9, vllm.Path + ".resources": 14} {
		if _, pos := o.Where(path); pos.Line != line {
			t.Errorf("%s on line %d, want %d", path, pos.Line, line)
		}
	}
}
