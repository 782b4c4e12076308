package rules_test

import (
	"encoding/binary"
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

// Model dirs for the MDL408 cases: a safetensors file whose header declares
// one tensor of the model's parameter count, made sparse at its real size.
const (
	llama8B  = 8_030_261_248  // meta-llama/Llama-3.1-8B-Instruct
	qwen14B  = 14_770_033_664 // Qwen/Qwen2.5-14B-Instruct
	llamaCfg = `{"torch_dtype": "bfloat16", "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
		"hidden_size": 4096, "max_position_embeddings": 131072}`
	awqCfg     = `{"torch_dtype": "float16", "quantization_config": {"quant_method": "awq", "bits": 4}}`
	float32Cfg = `{"torch_dtype": "float32"}`
)

// sparseCheckpoint writes dir/model.safetensors: tensors of name → dtype
// and element count, its data a hole of the right size.
func sparseCheckpoint(t *testing.T, dir string, tensors ...tensor) {
	t.Helper()
	var entries []string
	offset := int64(0)
	for _, tensor := range tensors {
		size := tensor.elements * tensor.bytes
		entries = append(entries, fmt.Sprintf(`%q:{"dtype":%q,"shape":[%d],"data_offsets":[%d,%d]}`,
			tensor.name, tensor.dtype, tensor.elements, offset, offset+size))
		offset += size
	}
	header := "{" + strings.Join(entries, ",") + "}"
	file := filepath.Join(dir, "model.safetensors")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(binary.LittleEndian.AppendUint64(nil, uint64(len(header))), header...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(file, 8+int64(len(header))+offset); err != nil {
		t.Fatal(err)
	}
}

type tensor struct {
	name, dtype     string
	elements, bytes int64
}

func bf16(n int64) tensor { return tensor{"w", "BF16", n, 2} }

// gpuCase is one pod: its node selection and container, the model's
// files, and what MDL408 says.
type gpuCase struct {
	name      string
	placement string // pod spec lines
	container string // container lines after name and image
	image     string
	gpus      int
	resource  string // what the container requests gpus of; nvidia.com/gpu when ""
	tensors   []tensor
	config    string
	gguf      int64 // a GGUF file of this many weight bytes instead of safetensors
	ggufShape bool  // the GGUF header gives Llama 3.1 8B's shape (llamaGGUFShape)
	want      []string
	skip      string
}

// llamaGGUFShape is Llama 3.1 8B's shape as its GGUF header writes it: a
// KV cache of 128 KiB a token in f16, 16 GiB for the whole context.
var llamaGGUFShape = map[string]uint32{"llama.block_count": 32, "llama.attention.head_count": 32,
	"llama.attention.head_count_kv": 8, "llama.embedding_length": 4096, "llama.context_length": 131072}

const (
	onL4     = "nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}"
	onA100   = "nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB}"
	vllm     = "vllm/vllm-openai:v0.11.0"
	sglang   = "lmsysorg/sglang:v0.4.10.post2-cu126"
	tgi      = "ghcr.io/huggingface/text-generation-inference:3.0.1"
	nim      = "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3"
	llamaCpp = "ghcr.io/ggml-org/llama.cpp:server-cuda"
)

func TestGPUMemoryBelowWeights(t *testing.T) {
	cases := []gpuCase{
		{name: "vLLM on one L4", placement: onL4, image: vllm, gpus: 1, tensors: []tensor{bf16(qwen14B)},
			container: `args: [--model=/models/m]`,
			want: []string{`error: container server (vLLM): 14.8B params × 2 bytes (bfloat16) / TP 1 = 27.5 GiB of weights ` +
				`per GPU, but NVIDIA L4 (nodeSelector cloud.google.com/gke-accelerator=nvidia-l4) has 22.5 GiB × 0.90 ` +
				`(--gpu-memory-utilization default) = 20.2 GiB: the server fails to load the model with "CUDA out of memory"`,
				`split the model with --tensor-parallel-size 2 and nvidia.com/gpu: 2`}},
		{name: "split four ways", placement: onL4, image: vllm, gpus: 1, tensors: []tensor{bf16(2 * qwen14B)},
			container: `args: [--model=/models/m]`,
			want: []string{`29.5B params × 2 bytes (bfloat16) / TP 1 = 55.0 GiB of weights per GPU`,
				`split the model with --tensor-parallel-size 4 and nvidia.com/gpu: 4`}},
		{name: "fp8 quantization on load", placement: onL4, image: vllm, gpus: 1, tensors: []tensor{bf16(qwen14B)},
			container: `args: [--model=/models/m, --quantization=fp8]`, config: `{"torch_dtype": "bfloat16"}`},
		{name: "a float32 checkpoint loads as 16-bit", placement: onL4, image: vllm, gpus: 1, config: float32Cfg,
			tensors: []tensor{{"w", "F32", llama8B, 4}}, container: `args: [--model=/models/m]`},
		{name: "unless --dtype float32", placement: onL4, image: vllm, gpus: 1, config: float32Cfg,
			tensors:   []tensor{{"w", "F32", llama8B, 4}},
			container: `args: [--model=/models/m, --dtype, float32]`,
			want:      []string{`8.0B params × 4 bytes (float32) / TP 1 = 29.9 GiB of weights per GPU, but NVIDIA L4`}},
		{name: "an AWQ checkpoint counts its bytes", placement: onL4, image: vllm, gpus: 1, config: awqCfg,
			tensors:   []tensor{{"qweight", "I32", 8_600_000_000, 4}, {"scales", "F16", 500_000_000, 2}},
			container: `args: [--model=/models/m, --quantization=awq]`,
			want:      []string{`33.0 GiB (the weights' headers) / TP 1 = 33.0 GiB of weights per GPU`, `or serve a smaller model`}},
		{name: "CPU offload", placement: onL4, image: vllm, gpus: 1, tensors: []tensor{bf16(qwen14B)},
			container: `args: [--model=/models/m, --cpu-offload-gb=10]`},
		{name: "SGLang asks for more GPUs than it has", placement: onA100, image: sglang, gpus: 2, tensors: []tensor{bf16(llama8B)},
			container: "command: [python3, -m, sglang.launch_server]\nargs: [--model-path=/models/m, --tp, \"4\"]",
			want:      []string{`warning: container server (SGLang): TP 4 needs 4 GPUs but the container requests nvidia.com/gpu: 2`}},
		{name: "vLLM's world size is MDL410's", placement: onA100, image: vllm, gpus: 2, tensors: []tensor{bf16(llama8B)},
			container: `args: [--model=/models/m, -tp, "4"]`},
		{name: "tensor and pipeline parallel", placement: onL4, image: vllm, gpus: 4, tensors: []tensor{bf16(2 * qwen14B)},
			container: `args: [--model=/models/m, --tensor-parallel-size=2, --pipeline-parallel-size=2]`},
		{name: "KV cache for the model's context", placement: onL4, image: vllm, gpus: 1, tensors: []tensor{bf16(llama8B)},
			config: llamaCfg, container: `args: [--model=/models/m]`,
			want: []string{`warning: container server (vLLM): 8.0B params × 2 bytes (bfloat16) / TP 1 = 15.0 GiB of weights ` +
				`per GPU; NVIDIA L4 (nodeSelector cloud.google.com/gke-accelerator=nvidia-l4) has 22.5 GiB × 0.90 ` +
				`(--gpu-memory-utilization default) = 20.2 GiB, which leaves 5.3 GiB, but the KV cache for one sequence ` +
				`of 131072 tokens (max_position_embeddings in config.json) needs 16.0 GiB (2 × 32 layers × 8 KV heads × ` +
				`128 head dim × 2 bytes × 131072 tokens)`, `set --max-model-len to 43008 or lower`}},
		{name: "an fp8 KV cache halves it", placement: onL4, image: vllm, gpus: 1, tensors: []tensor{bf16(llama8B)},
			config: llamaCfg, container: `args: [--model=/models/m, --kv-cache-dtype=fp8, --max-model-len=64K]`},
		{name: "a context length in thousands", placement: onL4, image: vllm, gpus: 1, tensors: []tensor{bf16(llama8B)},
			config: llamaCfg, container: `args: [--model=/models/m, --max-model-len=64k]`,
			want: []string{`one sequence of 64000 tokens (--max-model-len) needs 7.8 GiB (2 × 32 layers × 8 KV heads × 128 ` +
				`head dim × 2 bytes × 64000 tokens)`}},
		{name: "SGLang with a smaller share", placement: onL4, image: sglang, gpus: 1, tensors: []tensor{bf16(llama8B)},
			container: "command: [python3, -m, sglang.launch_server]\nargs: [--model-path=/models/m, --mem-fraction-static=0.5]",
			want:      []string{`× 0.50 (--mem-fraction-static) = 11.2 GiB`}},
		{name: "TGI shards over every GPU it gets", placement: onL4, image: tgi, gpus: 2, tensors: []tensor{bf16(qwen14B)},
			container: `args: [--model-id=/models/m]`},
		{name: "TGI told one shard", placement: onL4, image: tgi, gpus: 2, tensors: []tensor{bf16(qwen14B)},
			container: "args: [--model-id=/models/m]\nenv: [{name: NUM_SHARD, value: \"1\"}]",
			want:      []string{`/ TP 1 = 27.5 GiB of weights per GPU, but NVIDIA L4`, `22.5 GiB × 1.00 (--cuda-memory-fraction default)`}},
		{name: "NIM's tensor parallelism", placement: onA100, image: nim, gpus: 2, tensors: []tensor{bf16(llama8B)},
			container: "env:\n  - {name: NIM_MODEL_PATH, value: /models/m}\n  - {name: NIM_TENSOR_PARALLEL_SIZE, value: \"4\"}",
			want:      []string{`TP 4 needs 4 GPUs`, `or lower env NIM_TENSOR_PARALLEL_SIZE`}},
		{name: "llama.cpp with every layer on the GPU", placement: onL4, image: llamaCpp, gpus: 1, gguf: 40 << 30,
			container: `args: [-m, /models/m/model.gguf, -ngl, "99"]`,
			want: []string{`21.5B params in F16 = 40.0 GiB (the GGUF header of model.gguf) / TP 1`,
				`request nvidia.com/gpu: 2 (the server splits the model over every GPU it sees), or serve a quantized model`}},
		{name: "llama.cpp keeps layers in host memory", placement: onL4, image: llamaCpp, gpus: 1, gguf: 40 << 30,
			container: `args: [-m, /models/m/model.gguf, -ngl, "20"]`,
			skip:      `container server (llama.cpp server) does not put every layer on the GPU (--n-gpu-layers)`},
		// llama.cpp's KV cache: 8 GiB of weights beside it on an L4 (22.5 GiB × 1.00).
		{name: "llama.cpp -c 0 takes the model's context", placement: onL4, image: llamaCpp, gpus: 1, gguf: 8 << 30, ggufShape: true,
			container: `args: [-m, /models/m/model.gguf, -ngl, "99", -c, "0"]`,
			want: []string{`which leaves 14.5 GiB, but the KV cache for one sequence of 131072 tokens (-c 0: llama.context_length ` +
				`in the GGUF header of model.gguf) needs 16.0 GiB (2 × 32 layers × 8 KV heads × 128 head dim × 2 bytes × 131072 tokens)`,
				`set --ctx-size to 117760 or lower, or use --cache-type-k q8_0`}},
		{name: "llama.cpp with an f16 KV cache said outright", placement: onL4, image: llamaCpp, gpus: 1, gguf: 8 << 30, ggufShape: true,
			container: `args: [-m, /models/m/model.gguf, -ngl, "99", -c, "131072", -ctk, f16]`,
			want:      []string{`needs 16.0 GiB (2 × 32 layers × 8 KV heads × 128 head dim × 2 bytes × 131072 tokens)`}},
		{name: "llama.cpp with a bf16 KV cache", placement: onL4, image: llamaCpp, gpus: 1, gguf: 8 << 30, ggufShape: true,
			container: `args: [-m, /models/m/model.gguf, -ngl, "99", -c, "131072", -ctk, bf16]`,
			want:      []string{`needs 16.0 GiB (2 × 32 layers × 8 KV heads × 128 head dim × 2 bytes × 131072 tokens)`}},
		{name: "llama.cpp with an f32 KV cache", placement: onL4, image: llamaCpp, gpus: 1, gguf: 8 << 30, ggufShape: true,
			container: `args: [-m, /models/m/model.gguf, -ngl, "99", -c, "65536", -ctk, f32]`,
			want:      []string{`needs 16.0 GiB (2 × 32 layers × 8 KV heads × 128 head dim × 4 bytes × 65536 tokens)`}},
		{name: "llama.cpp with a q8_0 KV cache", placement: onL4, image: llamaCpp, gpus: 1, gguf: 16 << 30, ggufShape: true,
			container: `args: [-m, /models/m/model.gguf, -ngl, "99", -c, "131072", -ctk, q8_0]`,
			want:      []string{`needs 8.0 GiB (2 × 32 layers × 8 KV heads × 128 head dim × 1 byte × 131072 tokens)`}},
		{name: "llama.cpp's 4-bit KV cache is not sized", placement: onL4, image: llamaCpp, gpus: 1, gguf: 8 << 30, ggufShape: true,
			container: `args: [-m, /models/m/model.gguf, -ngl, "99", -c, "131072", -ctk, q4_0]`},
		{name: "vLLM's auto KV cache is the model's dtype", placement: onL4, image: vllm, gpus: 1, tensors: []tensor{bf16(llama8B)},
			config: llamaCfg, container: `args: [--model=/models/m, --kv-cache-dtype=auto]`,
			want: []string{`needs 16.0 GiB (2 × 32 layers × 8 KV heads × 128 head dim × 2 bytes × 131072 tokens)`}},
		{name: "a float32 model's KV cache is float32 too", placement: onA100, image: vllm, gpus: 1, tensors: []tensor{{"w", "F32", llama8B, 4}},
			config: llamaCfg, container: `args: [--model=/models/m, --dtype=float32, --max-model-len=32768]`,
			want: []string{`needs 8.0 GiB (2 × 32 layers × 8 KV heads × 128 head dim × 4 bytes × 32768 tokens)`}},
		{name: "a MIG slice of 10 GB", image: vllm, gpus: 1, resource: "nvidia.com/mig-1g.10gb", tensors: []tensor{bf16(llama8B)},
			container: `args: [--model=/models/m]`,
			want: []string{`15.0 GiB of weights per GPU, but MIG 1g.10gb slice (resource nvidia.com/mig-1g.10gb; usable memory as ` +
				`nvidia-smi mig -lgip lists it, NVIDIA's MIG user guide; the GPU is not named: the smallest 1g.10gb of NVIDIA ` +
				`A100 40GB, NVIDIA A100 80GB, NVIDIA H100 80GB) has 9.6 GiB × 0.90`, `"CUDA out of memory"`,
				// Each GPU that has 1g.10gb has another profile that holds it; never two slices.
				`use a larger MIG slice (nvidia.com/mig-3g.20gb: 1 on an NVIDIA A100 40GB, nvidia.com/mig-1g.20gb: 1 on ` +
					`an NVIDIA H100 80GB or NVIDIA A100 80GB) or a whole GPU (nvidia.com/gpu: 1), or serve a quantized model ` +
					`(a model is not split over MIG slices`}},
		{name: "no MIG slice holds it: whole GPUs", image: vllm, gpus: 1, resource: "nvidia.com/mig-1g.5gb", placement: onA100,
			tensors: []tensor{bf16(2 * qwen14B)}, container: `args: [--model=/models/m]`,
			want: []string{`but MIG 1g.5gb slice of an NVIDIA A100 40GB`, `use whole GPUs, split with --tensor-parallel-size 2 and ` +
				`nvidia.com/gpu: 2, or serve a quantized model (a model is not split over MIG slices`}},
		{name: "TGI on a MIG slice", image: tgi, gpus: 1, resource: "nvidia.com/mig-2g.20gb",
			placement: "nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}", tensors: []tensor{bf16(2 * qwen14B)},
			container: `args: [--model-id=/models/m]`,
			want: []string{`use a larger MIG slice, nvidia.com/mig-7g.80gb: 1 (79.2 GiB × 1.00 = 79.2 GiB) or a whole ` +
				`NVIDIA H100 80GB (nvidia.com/gpu: 1)`}},
		{name: "no MIG slice holds it: four whole GPUs", image: vllm, gpus: 1, resource: "nvidia.com/mig-1g.5gb", placement: onA100,
			tensors: []tensor{bf16(4 * qwen14B)}, container: `args: [--model=/models/m]`,
			want: []string{`use whole GPUs, split with --tensor-parallel-size 4 and nvidia.com/gpu: 4, or serve a quantized model`}},
		{name: "llama.cpp on a MIG slice: whole GPUs it splits over", image: llamaCpp, gpus: 1, resource: "nvidia.com/mig-1g.5gb",
			placement: onA100, gguf: 60 << 30, container: `args: [-m, /models/m/model.gguf, -ngl, "99"]`,
			want: []string{`use whole GPUs, nvidia.com/gpu: 2 (the server splits the model over every GPU it sees), or serve a ` +
				`quantized model`}},
		{name: "the KV cache on a MIG slice", image: vllm, gpus: 1, resource: "nvidia.com/mig-2g.20gb",
			placement: "nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}", tensors: []tensor{bf16(llama8B)},
			config: llamaCfg, container: `args: [--model=/models/m]`,
			want: []string{`or use --kv-cache-dtype fp8, a larger MIG slice or a whole GPU`}},
		{name: "a MIG slice of 40 GB holds it", image: vllm, gpus: 1, resource: "nvidia.com/mig-3g.40gb",
			placement: "nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}", tensors: []tensor{bf16(llama8B)},
			container: `args: [--model=/models/m, --max-model-len=8192]`},
		{name: "MPS gives each pod a share", image: vllm, gpus: 1, tensors: []tensor{bf16(llama8B)},
			placement: "nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4, nvidia.com/gpu.sharing-strategy: mps, nvidia.com/gpu.replicas: \"2\"}",
			container: `args: [--model=/models/m]`,
			want:      []string{`but 1/2 of an NVIDIA L4 (nodeSelector cloud.google.com/gke-accelerator=nvidia-l4; shared 2 ways by MPS, which limits each pod to 1/2 of the memory) has 11.2 GiB`}},
		{name: "an AMD MI210", image: vllm, gpus: 1, resource: "amd.com/gpu", tensors: []tensor{bf16(5 * llama8B)},
			placement: "nodeSelector: {amd.com/gpu.product-name: AMD_Instinct_MI210}", container: `args: [--model=/models/m]`,
			want: []string{`but AMD Instinct MI210 (nodeSelector amd.com/gpu.product-name=AMD_Instinct_MI210) has 64.0 GiB × 0.90`,
				`fails to load the model out of device memory`}},
		{name: "an AMD MI300X holds it", image: vllm, gpus: 1, resource: "amd.com/gpu", tensors: []tensor{bf16(5 * llama8B)},
			placement: "nodeSelector: {amd.com/gpu.product-name: AMD_Instinct_MI300X}", container: `args: [--model=/models/m, --max-model-len=8192]`},
		{name: "a Gaudi 2", image: vllm, gpus: 1, resource: "habana.ai/gaudi", tensors: []tensor{bf16(7 * llama8B)},
			placement: "nodeSelector: {habana.ai/device.type: GAUDI2}", container: `args: [--model=/models/m]`,
			want: []string{`but Intel Gaudi 2 (nodeSelector habana.ai/device.type=GAUDI2) has 96.0 GiB × 0.90`}},
		{name: "a TPU v5e chip", image: vllm, gpus: 1, resource: "google.com/tpu", tensors: []tensor{bf16(llama8B)},
			placement: "nodeSelector: {cloud.google.com/gke-tpu-accelerator: tpu-v5-lite-podslice, cloud.google.com/gke-tpu-topology: 1x1}",
			container: `args: [--model=/models/m]`,
			want:      []string{`15.0 GiB of weights per GPU, but Google TPU v5e chip (nodeSelector cloud.google.com/gke-tpu-accelerator=tpu-v5-lite-podslice, topology 1x1 (1 chip in the slice)) has 16.0 GiB × 0.90`}},
		{name: "no GPU type", image: vllm, gpus: 1, tensors: []tensor{bf16(llama8B)}, container: `args: [--model=/models/m]`,
			skip: `the pod's GPU type is not known: set a nodeSelector such as cloud.google.com/gke-accelerator`},
		{name: "no GPU", placement: onL4, image: vllm, tensors: []tensor{bf16(llama8B)}, container: `args: [--model=/models/m]`,
			skip: `no container that serves a linked model requests nvidia.com/gpu`},
	}
	rule := rules.Lookup(rules.All(), "MDL408")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, skip := lintGPUCase(t, rule, c)
			if !strings.HasPrefix(skip, c.skip) || (skip != "") != (c.skip != "") {
				t.Errorf("skip reason %q, want %q…", skip, c.skip)
			}
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

// lintGPUCase lints one case with MDL408 alone and returns its findings
// ("severity: message") and its skip reason.
func lintGPUCase(t *testing.T, rule *lint.Rule, c gpuCase) ([]string, string) {
	t.Helper()
	t.Chdir(t.TempDir())
	model := filepath.Join("models", "m")
	switch {
	case c.gguf > 0:
		if err := os.MkdirAll(model, 0o755); err != nil {
			t.Fatal(err)
		}
		// One F16 matrix of c.gguf bytes, 4096 wide.
		file := gguftest.File{Tensors: []gguftest.Tensor{
			{Name: "w", Dims: []uint64{4096, uint64(c.gguf) / 2 / 4096}, Type: gguftest.F16}}}
		if c.ggufShape {
			file.Strings, file.Uint32s = map[string]string{"general.architecture": "llama"}, llamaGGUFShape
		}
		header, size := file.Header()
		if err := os.WriteFile(filepath.Join(model, "model.gguf"), header, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(filepath.Join(model, "model.gguf"), size); err != nil {
			t.Fatal(err)
		}
	default:
		sparseCheckpoint(t, model, c.tensors...)
	}
	config := c.config
	if config == "" && c.gguf == 0 {
		config = `{"torch_dtype": "bfloat16"}`
	}
	if config != "" {
		if err := os.WriteFile(filepath.Join(model, "config.json"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gpuLimit := ""
	if c.gpus > 0 {
		resource := c.resource
		if resource == "" {
			resource = "nvidia.com/gpu"
		}
		gpuLimit = fmt.Sprintf("\n            limits: {%s: %d}", resource, c.gpus)
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
      %s
      containers:
        - name: server
          image: %s
          %s
          resources:
            requests: {cpu: "1"}%s
          volumeMounts: [{name: models, mountPath: /models}]
      volumes: [{name: models, persistentVolumeClaim: {claimName: models}}]
`, c.placement, c.image, strings.ReplaceAll(c.container, "\n", "\n          "), gpuLimit)
	if err := os.WriteFile("deployment.yaml", []byte(deployment), 0o644); err != nil {
		t.Fatal(err)
	}
	options := engine.Options{Paths: []string{"."}, Rules: []*lint.Rule{rule}}
	if c.gguf > 0 {
		// GGUF alone makes no model dir that `modellint .` finds: --model names it.
		options.Models = []lint.ModelMapping{{Path: model}}
	}
	result, err := engine.Run(options)
	if err != nil {
		t.Fatalf("%v\n%s", err, deployment)
	}
	var got []string
	for _, finding := range result.Findings {
		got = append(got, finding.Severity.String()+": "+finding.Message)
	}
	skip := ""
	for _, evaluation := range result.Evaluations {
		if evaluation.Status == lint.StatusSkip && strings.HasPrefix(evaluation.Target, "Deployment/") {
			skip = evaluation.Reason
		}
	}
	if len(result.Links) > 0 && !strings.Contains(strings.Join(result.Links, "\n"), "→ model") {
		t.Fatalf("the container is not linked to the model: %v\n%s", result.Links, deployment)
	}
	return got, skip
}
