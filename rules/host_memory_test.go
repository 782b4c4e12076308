package rules_test

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/lint/model/gguf/gguftest"
	"github.com/modellint/modellint/rules"
)

// hostCase is one CPU-served container and what MDL401 says of it.
type hostCase struct {
	name      string
	image     string
	container string // lines after name and image
	limit     string // resources.limits lines
	gguf      bool   // Llama 3.1 8B's shape in Q4_K and Q6_K (4.8 GiB), else a bfloat16 safetensors checkpoint
	params    int64  // the checkpoint's parameters, 1B when 0
	arch      string // the GGUF's architecture, llama when ""
	recurrent bool   // the GGUF has state-space (ssm.) keys
	want      []string
}

func TestMemoryBelowModelOnCPU(t *testing.T) {
	const ggufArgs = `args: [-m, /models/m/model.gguf, -c, "32768"`
	cases := []hostCase{
		{name: "llama.cpp --no-mmap with a 32k context", image: llamaCPUImage, gguf: true, limit: "memory: 6Gi",
			container: ggufArgs + `, --no-mmap]`,
			want: []string{`error: container server (llama.cpp server): memory limit 6Gi is below the 8.8 GiB the server holds ` +
				`in its own memory once started: the 4.8 GiB of weights that --no-mmap reads into memory instead of mapping ` +
				`them (models/m/model.gguf) and the 4.0 GiB KV cache it allocates and writes in full at start (f16 K/V: 2 × 32 ` +
				`layers × 8 KV heads × 128 head dim × 2 bytes × 32768 tokens (-c), shared by every slot); the server is ` +
				`OOMKilled (exit 137) as it starts`, `raise limits.memory to at least 11Gi (4.8 GiB × 1.2 + 4.0 GiB KV cache (above) + 256.0 MiB baseline), or shrink the KV cache`}},
		{name: "mmap off by the environment", image: llamaCPUImage, gguf: true, limit: "memory: 6Gi",
			container: ggufArgs + "]\nenv: [{name: LLAMA_ARG_MMAP, value: \"false\"}]",
			want:      []string{`error: `, `the 4.8 GiB of weights that env LLAMA_ARG_MMAP=false reads into memory`}},
		{name: "--mmap after --no-mmap maps them", image: llamaCPUImage, gguf: true, limit: "memory: 6Gi",
			container: ggufArgs + `, --no-mmap, --mmap, --no-repack]`,
			want:      []string{`warning: container server (llama.cpp server): memory limit 6Gi is below the 4.8 GiB model the server memory-maps`}},
		{name: "mapped, but the CPU backend repacks the Q4_K matrices", image: llamaCPUImage, gguf: true, limit: "memory: 6Gi",
			container: ggufArgs + `]`,
			want: []string{`warning: container server (llama.cpp server): memory limit 6Gi is below the 6.6 GiB the server likely ` +
				`holds in its own memory once started: the 2.6 GiB of Q4_K weight matrices its CPU backend repacks out of the ` +
				`mapped file (models/m/model.gguf) into buffers of its own on AVX2, AVX-512 and NEON CPUs, which --no-repack ` +
				`leaves mapped, and the 4.0 GiB KV cache it allocates and writes in full at start (f16 K/V: `,
				`the server is likely OOMKilled (exit 137) as it starts`}},
		{name: "mapped weights are page cache", image: llamaCPUImage, gguf: true, limit: "memory: 6Gi",
			container: ggufArgs + "]\nenv: [{name: LLAMA_ARG_REPACK, value: \"false\"}]",
			want: []string{`warning: container server (llama.cpp server): memory limit 6Gi is below the 4.8 GiB model the server ` +
				`memory-maps (models/m/model.gguf) with the 4.0 GiB KV cache (f16 K/V: 2 × 32 layers × 8 KV heads × 128 ` +
				`head dim × 2 bytes × 32768 tokens (-c), shared by every slot) it holds beside it: the mapped weights are ` +
				`page cache, which the kernel reclaims at the limit rather than killing the server`}},
		{name: "repacking off by LLAMA_ARG_NO_REPACK", image: llamaCPUImage, gguf: true, limit: "memory: 6Gi",
			container: ggufArgs + "]\nenv: [{name: LLAMA_ARG_NO_REPACK, value: \"1\"}]",
			want: []string{`warning: container server (llama.cpp server): memory limit 6Gi is below the 4.8 GiB model the server ` +
				`memory-maps (models/m/model.gguf) with the 4.0 GiB KV cache`}},
		{name: "mapped, but the cache alone is above the limit", image: llamaCPUImage, gguf: true, limit: "memory: 3Gi",
			container: ggufArgs + `]`,
			want:      []string{`error: container server (llama.cpp server): memory limit 3Gi is below the 4.0 GiB the server holds in its own memory once started: the 4.0 GiB KV cache`}},
		{name: "an architecture that may leave layers out: the cache is an estimate", image: llamaCPUImage, gguf: true,
			arch: "llama4", limit: "memory: 3Gi", container: ggufArgs + `, --no-repack]`,
			want: []string{`warning: container server (llama.cpp server): memory limit 3Gi is below the 4.8 GiB model the server ` +
				`memory-maps (models/m/model.gguf) with the 4.0 GiB KV cache`}},
		{name: "hybrid models hold a state in most layers: no cache counted", image: llamaCPUImage, gguf: true,
			arch: "granitehybrid", recurrent: true, limit: "memory: 7Gi", container: ggufArgs + "]\nenv: [{name: LLAMA_ARG_REPACK, value: \"0\"}]"},
		{name: "llama.cpp with every layer on the GPU keeps no weights in host memory", image: llamaCpp, gguf: true,
			limit: "memory: 3Gi\n              nvidia.com/gpu: 1", container: ggufArgs + `, -ngl, "99"]`},
		{name: "llama.cpp with layers left on the CPU", image: llamaCpp, gguf: true,
			limit: "memory: 3Gi\n              nvidia.com/gpu: 1", container: ggufArgs + `, -ngl, "20"]`,
			want: []string{`container server (llama.cpp server): memory limit 3Gi is below`}},
		{name: "mapped and enough", image: llamaCPUImage, gguf: true, limit: "memory: 11Gi", container: ggufArgs + `]`},
		{name: "vLLM on the CPU: its KV cache space", image: vllmCPUImage, limit: "memory: 8Gi",
			container: "args: [--model=/models/m]\nenv: [{name: VLLM_CPU_KVCACHE_SPACE, value: \"8\"}]",
			want: []string{`warning: container server (vLLM): memory limit 8Gi holds the 1.9 GiB model (models/m) but ` +
				`is below the estimated 10.5 GiB the server needs with it (1.9 GiB × 1.2 + 8.0 GiB KV cache (8 GiB (env ` +
				`VLLM_CPU_KVCACHE_SPACE)) + 256.0 MiB baseline`}},
		{name: "vLLM on the CPU: the default space", image: vllmCPUImage, limit: "memory: 6Gi",
			container: "args: [--model=/models/m, --tensor-parallel-size=2]",
			want:      []string{`+ 8.0 GiB KV cache (4 GiB (VLLM_CPU_KVCACHE_SPACE unset: the default) × 2 tensor-parallel workers)`}},
		{name: "vLLM with a GPU", image: vllm, limit: "memory: 4Gi\n              nvidia.com/gpu: 1",
			container: "args: [--model=/models/m]"},
		{name: "vLLM on the CPU: 8B in 8Gi", image: vllmCPUImage, limit: "memory: 8Gi", params: llama8B,
			container: "args: [--model=/models/m]",
			want:      []string{`error: container server (vLLM): memory limit 8Gi is below the 15.0 GiB model itself`}},
		// Any accelerator takes the weights and the KV cache, not only nvidia.com/gpu.
		{name: "vLLM on a MIG slice", image: vllm, limit: "memory: 8Gi\n              nvidia.com/mig-1g.10gb: 1",
			params: llama8B, container: "args: [--model=/models/m]"},
		{name: "vLLM on an AMD GPU", image: "rocm/vllm:rocm6.4.1_vllm_0.10.0_20250812", params: llama8B,
			limit: "memory: 8Gi\n              amd.com/gpu: 1", container: "args: [--model=/models/m]"},
		{name: "vLLM on a Gaudi", image: vllm, limit: "memory: 8Gi\n              habana.ai/gaudi: 1", params: llama8B,
			container: "args: [--model=/models/m]"},
		{name: "vLLM on a TPU chip", image: "vllm/vllm-tpu:v0.11.0", limit: "memory: 8Gi\n              google.com/tpu: 1",
			params: llama8B, container: "args: [--model=/models/m]"},
	}
	rule := rules.Lookup(rules.All(), "MDL401")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := lintHostCase(t, rule, c)
			if len(c.want) == 0 && len(got) > 0 {
				t.Errorf("findings %q, want none", got)
			}
			for _, want := range c.want {
				if !strings.Contains(strings.Join(got, "\n"), want) {
					t.Errorf("no finding says %q:\n%s", want, strings.Join(got, "\n"))
				}
			}
		})
	}
}

const (
	llamaCPUImage = "ghcr.io/ggml-org/llama.cpp:server-b6700"
	vllmCPUImage  = "public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.10.1"
)

// lintHostCase lints one case with one rule and returns its findings
// ("severity: message", then "fix: description" when it has a fix).
func lintHostCase(t *testing.T, rule *lint.Rule, c hostCase) []string {
	t.Helper()
	t.Chdir(t.TempDir())
	model := filepath.Join("models", "m")
	if err := os.MkdirAll(model, 0o755); err != nil {
		t.Fatal(err)
	}
	options := engine.Options{Paths: []string{"."}, Rules: []*lint.Rule{rule}}
	if c.gguf {
		shape := gguftest.Llama{Name: "Meta Llama 3.1 8B Instruct", Layers: 32, Embedding: 4096, FeedForward: 14336,
			Heads: 32, KVHeads: 8, Vocabulary: 128256, ContextLength: 131072, Weights: gguftest.Q4_K, Sensitive: gguftest.Q6_K}
		file := shape.File()
		if c.arch != "" {
			file.Strings["general.architecture"] = c.arch
			for key, value := range file.Uint32s {
				if rest, ok := strings.CutPrefix(key, "llama."); ok {
					delete(file.Uint32s, key)
					file.Uint32s[c.arch+"."+rest] = value
				}
			}
		}
		if c.recurrent {
			file.Uint32s[cmp.Or(c.arch, "llama")+".ssm.state_size"] = 128
		}
		header, size := file.Header()
		path := filepath.Join(model, "model.gguf")
		if err := os.WriteFile(path, header, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		options.Models = []lint.ModelMapping{{Path: model}}
	} else {
		sparseCheckpoint(t, model, bf16(cmp.Or(c.params, 1_000_000_000)))
		if err := os.WriteFile(filepath.Join(model, "config.json"), []byte(`{"torch_dtype": "bfloat16"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	deployment := fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
spec:
  selector: {matchLabels: {app: llm}}
  template:
    metadata:
      labels: {app: llm}
      annotations: {modellint.dev/model-path: models/m}
    spec:
      containers:
        - name: server
          image: %s
          %s
          resources:
            requests: {cpu: "2"}
            limits:
              %s
          volumeMounts: [{name: models, mountPath: /models}]
      volumes: [{name: models, persistentVolumeClaim: {claimName: models}}]
`, c.image, strings.ReplaceAll(c.container, "\n", "\n          "), c.limit)
	if err := os.WriteFile("deployment.yaml", []byte(deployment), 0o644); err != nil {
		t.Fatal(err)
	}
	result, err := engine.Run(options)
	if err != nil {
		t.Fatalf("%v\n%s", err, deployment)
	}
	if !strings.Contains(strings.Join(result.Links, "\n"), "→ model") {
		t.Fatalf("the container is not linked to the model: %v\n%s", result.Links, deployment)
	}
	var got []string
	for _, finding := range result.Findings {
		got = append(got, finding.Severity.String()+": "+finding.Message)
		if finding.Fix != nil {
			got = append(got, "fix: "+finding.Fix.Description)
		}
	}
	return got
}
