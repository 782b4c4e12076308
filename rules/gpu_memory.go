package rules

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/gpu"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/server"
)

var gpuMemoryBelowWeights = &lint.Rule{
	ID: "MDL408", Name: "gpu-memory-below-weights", Severity: lint.Error,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest, lint.FactModel},
	Doc: lint.Doc{
		Summary: "The linked model's weights do not fit the memory of the GPU the pod is scheduled on.",
		Why: "An LLM server loads every weight onto its GPUs before it serves. When the weights, split over the " +
			"tensor-parallel GPUs, are more than the GPU's memory times the share the server takes (vLLM " +
			"--gpu-memory-utilization, default 0.9; SGLang --mem-fraction-static, at most 0.88 when unset; TGI " +
			"--cuda-memory-fraction, default 1.0), loading fails with \"CUDA out of memory\" and the pod restarts " +
			"forever. When they fit but leave too little for the KV cache of one sequence of the server's context length " +
			"(vLLM --max-model-len, SGLang --context-length, by default the model's max_position_embeddings), vLLM " +
			"refuses to start with \"No available memory for the cache blocks\" or \"The model's max seq len … is " +
			"larger than the maximum number of tokens that can be stored in KV cache\" (a warning). A tensor-parallel " +
			"degree above the GPUs the container requests fails at start-up too (a warning).\n\n" +
			"Checked: vLLM, SGLang, TGI, NVIDIA NIM, Triton and llama.cpp (when --n-gpu-layers puts every layer on the " +
			"GPU) containers that request GPUs, each linked model on its own. Weight bytes are exact from the " +
			"safetensors, GGUF (the file -m names, with its splits; ggml's quantized blocks counted as they are " +
			"stored), ONNX or SavedModel headers; a --dtype or --quantization that changes the precision counts " +
			"parameters × bytes per parameter (float32 4, bfloat16/float16 2, fp8/int8 1, AWQ/GPTQ 0.5), a float32 " +
			"checkpoint that vLLM, SGLang, TGI or NIM load as 16-bit counts 2, and --cpu-offload-gb is taken off. The " +
			"KV cache is 2 × layers × KV heads × head dim × bytes per element (2, or 1 with --kv-cache-dtype fp8) × " +
			"tokens, from config.json or the GGUF header's block_count, head_count_kv and embedding_length / " +
			"head_count (llama.cpp: only when --ctx-size is set; 0 is the model's context_length). The GPU comes from the pod's nodeSelector or required node affinity: " +
			"cloud.google.com/gke-accelerator, nvidia.com/gpu.product or nvidia.com/gpu.memory (GPU Feature " +
			"Discovery), karpenter.k8s.aws/instance-gpu-name or instance-gpu-memory, or node.kubernetes.io/instance-type " +
			"(AWS, GCP and Azure GPU instances); else the smallest GPU of the --cluster nodes the pod may land on, " +
			"from the same labels on them; without one the rule is skipped. Activations, CUDA graphs and the " +
			"CUDA context take memory this estimate leaves out, so it errs on the side of passing.",
		Bad: "# models/qwen2.5-14b: 14.8B params in bfloat16 (27.5 GiB)\nnodeSelector:\n  cloud.google.com/gke-accelerator: nvidia-l4\n" +
			"containers:\n  - name: vllm\n    args: [--model=/models/qwen2.5-14b]\n    resources:\n      limits: {nvidia.com/gpu: 1}",
		Good: "nodeSelector:\n  cloud.google.com/gke-accelerator: nvidia-l4\ncontainers:\n  - name: vllm\n" +
			"    args: [--model=/models/qwen2.5-14b, --tensor-parallel-size=2]   # 13.8 GiB per GPU\n" +
			"    resources:\n      limits: {nvidia.com/gpu: 2}",
		Fix: "Schedule the pod on a larger GPU, split the model over more GPUs (--tensor-parallel-size, --tp-size, " +
			"--num-shard, with as many nvidia.com/gpu), serve a quantized model, or lower the context length.",
		References: []string{
			"https://docs.vllm.ai/en/latest/configuration/conserving_memory.html",
			"https://docs.vllm.ai/en/latest/configuration/engine_args.html",
			"https://docs.sglang.io/advanced_features/server_arguments.html",
			"https://huggingface.co/docs/text-generation-inference/reference/launcher",
			"https://cloud.google.com/kubernetes-engine/docs/how-to/gpus",
			"https://github.com/NVIDIA/k8s-device-plugin/blob/main/docs/gpu-feature-discovery/README.md",
		},
	},
	Check: checkGPUMemory,
}

// setting is where a server reads one setting: flags first, then env.
type setting struct{ flags, env []string }

// name is how messages name the setting: its first flag, or env var.
func (s setting) name() string {
	if len(s.flags) > 0 {
		return s.flags[0]
	}
	if len(s.env) > 0 {
		return s.env[0]
	}
	return ""
}

// gpuServer is how a server is told its parallelism, memory share,
// precision and context length.
type gpuServer struct {
	tensorParallel, pipelineParallel setting
	// shardsOverAllGPUs says the server splits the model over every GPU it
	// sees when no degree is set (TGI, NIM, llama.cpp).
	shardsOverAllGPUs bool
	fraction          setting
	defaultFraction   float64
	// castsFloat32 says the server loads a float32 checkpoint as 16-bit
	// unless --dtype says otherwise.
	castsFloat32                      bool
	dtype, quantization, kvCacheDtype setting
	contextLength                     setting
	// contextFromModel says the context length defaults to the model's
	// max_position_embeddings (a GGUF's context_length).
	contextFromModel bool
	// contextZeroIsModel says a context length of 0 means the model's.
	contextZeroIsModel bool
	// kvFailure is what the server does when one sequence does not fit.
	kvFailure string
	// gpuLayers is llama.cpp's layer count on the GPU: unless it is all of
	// them, the rest stay in host memory and nothing fails.
	gpuLayers setting
	// cpuOffload moves this many GiB of each GPU's weights to host memory.
	cpuOffload setting
	// smallerKVCache is the 8-bit value of kvCacheDtype; "" is fp8.
	smallerKVCache string
}

// gpuServers are the servers whose weights live in GPU memory.
// vLLM: https://docs.vllm.ai/en/latest/configuration/engine_args.html
// SGLang: https://docs.sglang.io/advanced_features/server_arguments.html (--mem-fraction-static, when unset, is
// derived from the GPU's memory, 0.88 at most: python/sglang/srt/server_args.py)
// TGI: https://huggingface.co/docs/text-generation-inference/reference/launcher
// NIM: https://docs.nvidia.com/nim/large-language-models/latest/reference/environment-variables.html
// llama.cpp: https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md
var gpuServers = map[string]gpuServer{
	"vllm": {
		tensorParallel:   flags("--tensor-parallel-size", "-tp"),
		pipelineParallel: flags("--pipeline-parallel-size", "-pp"),
		fraction:         flags("--gpu-memory-utilization"),
		defaultFraction:  0.9,
		castsFloat32:     true,
		dtype:            flags("--dtype"),
		quantization:     flags("--quantization", "-q"),
		kvCacheDtype:     flags("--kv-cache-dtype"),
		contextLength:    flags("--max-model-len"),
		contextFromModel: true,
		cpuOffload:       flags("--cpu-offload-gb"),
		kvFailure: "vLLM refuses to start: \"The model's max seq len … is larger than the maximum number of tokens " +
			"that can be stored in KV cache\"",
	},
	"sglang": {
		tensorParallel:   flags("--tp-size", "--tp"),
		pipelineParallel: flags("--pp-size"),
		fraction:         flags("--mem-fraction-static"),
		defaultFraction:  0.88,
		castsFloat32:     true,
		dtype:            flags("--dtype"),
		quantization:     flags("--quantization"),
		kvCacheDtype:     flags("--kv-cache-dtype"),
		contextLength:    flags("--context-length"),
		contextFromModel: true,
		cpuOffload:       flags("--cpu-offload-gb"),
		kvFailure:        "SGLang's KV cache pool cannot hold one request of that length",
	},
	"tgi": {
		tensorParallel:    flagOrEnv("--num-shard", "NUM_SHARD"),
		shardsOverAllGPUs: true,
		fraction:          flagOrEnv("--cuda-memory-fraction", "CUDA_MEMORY_FRACTION"),
		defaultFraction:   1,
		castsFloat32:      true,
		dtype:             flagOrEnv("--dtype", "DTYPE"),
		quantization:      flagOrEnv("--quantize", "QUANTIZE"),
		contextLength:     flagOrEnv("--max-total-tokens", "MAX_TOTAL_TOKENS"),
		kvFailure:         "TGI fails its warmup with \"Not enough memory to handle … total tokens\"",
	},
	"nim": {
		tensorParallel:    setting{env: []string{"NIM_TENSOR_PARALLEL_SIZE"}},
		pipelineParallel:  setting{env: []string{"NIM_PIPELINE_PARALLEL_SIZE"}},
		shardsOverAllGPUs: true,
		defaultFraction:   0.9, // its vLLM engine's
		castsFloat32:      true,
		contextLength:     setting{env: []string{"NIM_MAX_MODEL_LEN"}},
		kvFailure:         "the NIM's engine refuses to start: its KV cache cannot hold one sequence of that length",
	},
	// Triton loads each model instance whole onto a GPU; a TensorRT-LLM
	// engine's own split is not in the weights' headers.
	"triton": {defaultFraction: 1},
	// Its context length is checked only when --ctx-size is set: the
	// default has changed between releases (512, 4096, the model's), and
	// -c 0 takes the model's context_length.
	"llama.cpp": {
		shardsOverAllGPUs:  true,
		defaultFraction:    1,
		gpuLayers:          setting{flags: []string{"--n-gpu-layers", "-ngl", "--gpu-layers"}, env: []string{"LLAMA_ARG_N_GPU_LAYERS"}},
		contextLength:      setting{flags: []string{"--ctx-size", "-c"}, env: []string{"LLAMA_ARG_CTX_SIZE"}},
		contextZeroIsModel: true,
		kvCacheDtype:       setting{flags: []string{"--cache-type-k", "-ctk"}, env: []string{"LLAMA_ARG_CACHE_TYPE_K"}},
		smallerKVCache:     "q8_0",
		kvFailure: "llama.cpp cannot allocate its KV cache on the GPU and exits (\"failed to allocate buffer for kv " +
			"cache\", \"cudaMalloc failed: out of memory\")",
	},
}

func flags(names ...string) setting { return setting{flags: names} }

func flagOrEnv(flag, env string) setting { return setting{flags: []string{flag}, env: []string{env}} }

// bytesPerParameter are the sizes of weights by --dtype, --quantization
// and torch_dtype names. 4-bit methods keep scales and some layers in 16
// bits, so 0.5 is their least.
var bytesPerParameter = map[string]float64{
	"float32": 4, "float": 4, "fp32": 4,
	"bfloat16": 2, "float16": 2, "half": 2, "fp16": 2, "bf16": 2,
	"fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "int8": 1, "eetq": 1,
	"awq": 0.5, "awq_marlin": 0.5, "gptq": 0.5, "gptq_marlin": 0.5, "marlin": 0.5,
	"bitsandbytes-nf4": 0.5, "bitsandbytes-fp4": 0.5,
}

const skipGPUTypeUnknown = "the pod's GPU type is not known: set a nodeSelector such as cloud.google.com/gke-accelerator " +
	"(GKE), nvidia.com/gpu.product (GPU Feature Discovery), karpenter.k8s.aws/instance-gpu-name (Karpenter) or " +
	"node.kubernetes.io/instance-type, so that its memory is known"

func checkGPUMemory(pass *lint.Pass) {
	gpuResource := corev1.ResourceName(pass.Config.GPUResourceName())
	var coverage lint.Coverage
	for _, link := range linkedModels(pass) {
		c := link.Container
		srv, known := gpuServers[c.Runtime.Name]
		gpus := gpuCount(c, gpuResource)
		switch {
		case !known:
			coverage.Missed("no vLLM, SGLang, TGI, Triton, llama.cpp or NIM container serves a linked model")
			continue
		case gpus == 0:
			coverage.Missed(fmt.Sprintf("no container that serves a linked model requests %s", gpuResource))
			continue
		}
		device, how, ok := gpu.ForPod(pass.Workload().Spec)
		if !ok && pass.Cluster != nil {
			device, how, ok = clusterGPU(pass, gpuResource)
		}
		if !ok {
			coverage.Missed(skipGPUTypeUnknown)
			continue
		}
		args := serverArgsOf(pass, c)
		if flag := srv.gpuLayers.name(); flag != "" {
			if layers, ok := args.value(srv.gpuLayers); !ok || !allLayers(layers.Value) {
				coverage.Missed(fmt.Sprintf("%s does not put every layer on the GPU (%s)", describe(c), flag))
				continue
			}
		}
		ggufs, problem := ggufFor(link)
		if problem.kind != ggufFine {
			coverage.Missed(problem.text)
			continue
		}
		weights, ok := loadedWeights(link.Model, ggufs, srv, args)
		if !ok {
			coverage.Missed(fmt.Sprintf("the weight bytes of model %s are not known (no safetensors, GGUF, "+
				"ONNX or SavedModel variables headers read)", link.Model.Dir))
			continue
		}
		coverage.Checked()
		gpuCheck{pass: pass, c: c, srv: srv, args: args, gpuResource: gpuResource, gpus: gpus,
			device: device, how: how, weights: weights, m: link.Model, shape: shapeOf(link.Model, ggufs)}.run()
	}
	coverage.SkipIfNone(pass, "")
}

// gpuCheck is one container's weights against one GPU.
type gpuCheck struct {
	pass        *lint.Pass
	c           *manifest.Container
	srv         gpuServer
	args        serverArgs
	gpuResource corev1.ResourceName
	gpus        int64
	device      gpu.GPU
	how         string
	weights     weightEstimate
	m           *model.Model
	shape       modelShape
}

func (g gpuCheck) run() {
	tp, tpValue := g.degree(g.srv.tensorParallel)
	pp, _ := g.degree(g.srv.pipelineParallel)
	if g.srv.shardsOverAllGPUs && tpValue.From == "" {
		tp = max(1, g.gpus/pp)
	}
	shards := tp * pp
	field := g.gpuField()
	if shards > g.gpus {
		at := field
		if tpValue.Field != "" {
			at = g.c.Path + "." + tpValue.Field
		}
		g.pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: at, Message: fmt.Sprintf("%s: %s needs %d GPUs but the container requests %s: %d: the server "+
			"fails at start-up, it cannot place its workers; request %s: %d, or lower %s", describe(g.c), parallelText(tp, pp), shards, g.gpuResource, g.gpus, g.gpuResource, shards, tpValue.From)})
	}
	fraction, fractionText := g.fraction()
	budget := int64(float64(g.device.MemoryBytes) * fraction)
	perGPU := g.weights.bytes / shards
	split := " / " + parallelText(tp, pp)
	if offload, ok := g.args.value(g.srv.cpuOffload); ok {
		if gib, err := strconv.ParseFloat(offload.Value, 64); err == nil && gib > 0 {
			perGPU = max(0, perGPU-int64(gib*(1<<30)))
			split += fmt.Sprintf(" − %s GiB (%s)", offload.Value, offload.From)
		}
	}
	weightsText := fmt.Sprintf("%s%s = %s of weights per GPU", g.weights.formula, split, humanBytes(perGPU))
	gpuText := fmt.Sprintf("%s (%s) has %s × %s = %s", g.device.Name, g.how, humanBytes(g.device.MemoryBytes),
		fractionText, humanBytes(budget))
	if perGPU > budget {
		g.pass.Reportf(field, "%s: %s, but %s: the server fails to load the model with \"CUDA out of memory\" and "+
			"restarts forever; %s", describe(g.c), weightsText, gpuText, g.weightsFix(budget))
		return
	}
	kv, ok := g.kvCache(shards)
	if !ok || perGPU+kv.bytes <= budget {
		return
	}
	left := budget - perGPU
	g.pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Message: fmt.Sprintf("%s: %s; %s, which leaves %s, but the KV cache for one sequence of %d "+
		"tokens (%s) needs %s (%s): %s; %s", describe(g.c), weightsText, gpuText, humanBytes(left), kv.tokens, kv.from, humanBytes(kv.bytes), kv.formula, g.srv.kvFailure, g.kvFix(kv, left))})
}

// gpuField is the container's GPU limit, else its request: what a user
// edits along with the GPU type.
func (g gpuCheck) gpuField() string {
	if _, ok := g.c.Resources.Limits[g.gpuResource]; ok {
		return resourcePath(g.c, "limits", g.gpuResource)
	}
	return resourcePath(g.c, "requests", g.gpuResource)
}

// degree reads a parallel degree, 1 when unset or not a number.
func (g gpuCheck) degree(s setting) (int64, server.Value) {
	value, ok := g.args.value(s)
	if !ok {
		return 1, server.Value{}
	}
	n, err := strconv.ParseInt(value.Value, 10, 64)
	if err != nil || n < 1 {
		return 1, server.Value{}
	}
	return n, value
}

func (g gpuCheck) fraction() (float64, string) {
	if value, ok := g.args.value(g.srv.fraction); ok {
		if f, err := strconv.ParseFloat(value.Value, 64); err == nil && f > 0 && f <= 1 {
			return f, fmt.Sprintf("%.2f (%s)", f, value.From)
		}
	}
	if name := g.srv.fraction.name(); name != "" {
		return g.srv.defaultFraction, fmt.Sprintf("%.2f (%s default)", g.srv.defaultFraction, name)
	}
	return g.srv.defaultFraction, fmt.Sprintf("%.2f", g.srv.defaultFraction)
}

// weightsFix names the smallest split that fits, where the server has one.
func (g gpuCheck) weightsFix(budget int64) string {
	smaller := "a quantized model"
	if g.shape.quantized {
		smaller = "a smaller model"
	}
	split := int64(2)
	for split < 8 && g.weights.bytes/split > budget {
		split *= 2
	}
	flag := g.srv.tensorParallel.name()
	switch {
	case g.weights.bytes/split > budget:
		return "use a larger GPU or " + smaller
	case flag == "" && g.srv.shardsOverAllGPUs:
		return fmt.Sprintf("use a larger GPU, request %s: %d (the server splits the model over every GPU it sees), "+
			"or serve %s", g.gpuResource, split, smaller)
	case flag == "":
		return "use a larger GPU or " + smaller
	}
	return fmt.Sprintf("use a larger GPU, split the model with %s %d and %s: %d, or serve %s",
		flag, split, g.gpuResource, split, smaller)
}

// kvFix names the context length that fits what the weights leave, and
// the other ways out.
func (g gpuCheck) kvFix(kv kvEstimate, left int64) string {
	fits := int64(float64(kv.tokens) * float64(left) / float64(kv.bytes))
	if fits >= 1024 {
		fits = fits / 1024 * 1024
	}
	others := "a quantized model, a larger GPU or more GPUs"
	if flag := g.srv.kvCacheDtype.name(); flag != "" {
		others = flag + " " + cmp.Or(g.srv.smallerKVCache, "fp8") + ", a larger GPU or more GPUs"
	}
	return fmt.Sprintf("set %s to %d or lower, or use %s", g.srv.contextLength.name(), fits, others)
}

// kvEstimate is the KV cache of one full-length sequence on one GPU.
type kvEstimate struct {
	tokens  int64
	from    string
	bytes   int64
	formula string
}

// kvCache sizes the KV cache of one sequence of the server's context
// length, split over shards GPUs; ok is false when the model's shape or
// the length is not known.
func (g gpuCheck) kvCache(shards int64) (kvEstimate, bool) {
	shape := g.shape
	// Latent attention (kv_lora_rank) caches a compressed KV, which this
	// formula does not size.
	if shape.source == "" || shape.latent || g.srv.contextLength.name() == "" {
		return kvEstimate{}, false
	}
	kv := kvEstimate{}
	fromModel := func() { kv.tokens, kv.from = shape.context, shape.contextKey+" in "+shape.source }
	if value, ok := g.args.value(g.srv.contextLength); ok {
		kv.tokens, kv.from = parseTokens(value.Value), value.From
		if kv.tokens == 0 && g.srv.contextZeroIsModel && strings.TrimSpace(value.Value) == "0" {
			fromModel()
			kv.from = value.From + " 0: " + kv.from
		}
	} else if g.srv.contextFromModel {
		fromModel()
	}
	if kv.tokens <= 0 || shape.layers <= 0 || shape.kvHeads <= 0 || shape.headDim <= 0 {
		return kvEstimate{}, false
	}
	element := int64(2)
	if dtype, ok := g.args.value(g.srv.dtype); ok && bytesPerParameter[strings.ToLower(dtype.Value)] == 4 {
		element = 4
	}
	if kvDtype, ok := g.args.value(g.srv.kvCacheDtype); ok {
		switch value := strings.ToLower(kvDtype.Value); {
		case strings.HasPrefix(value, "fp8"), value == "q8_0":
			element = 1
		case value == "f32":
			element = 4
		case value != "f16" && value != "bf16" && value != "auto":
			return kvEstimate{}, false // a 4- or 5-bit cache: not sized here
		}
	}
	kv.bytes = 2 * shape.layers * shape.kvHeads * shape.headDim * element * kv.tokens / shards
	kv.formula = fmt.Sprintf("2 × %d layers × %d KV heads × %d head dim × %s × %d tokens", shape.layers,
		shape.kvHeads, shape.headDim, plural(int(element), "byte"), kv.tokens)
	if shards > 1 {
		kv.formula += fmt.Sprintf(" / %d GPUs", shards)
	}
	return kv, true
}

// modelShape is what sizes a model's KV cache, from its config.json or
// the GGUF header the server loads; source is "" when neither is known.
type modelShape struct {
	source, contextKey                string
	layers, kvHeads, headDim, context int64
	// latent is multi-head latent attention (DeepSeek's kv_lora_rank).
	latent bool
	// quantized says the weights already are.
	quantized bool
}

func shapeOf(m *model.Model, ggufs []model.GGUFFile) modelShape {
	if len(ggufs) > 0 {
		return ggufShape(ggufs)
	}
	if config := m.HFConfig; config != nil {
		shape := modelShape{source: "config.json", contextKey: "max_position_embeddings",
			layers: config.NumHiddenLayers, kvHeads: config.NumKeyValueHeads, headDim: config.HeadDim,
			context: config.MaxPositionEmbeddings, latent: config.KVLoraRank > 0, quantized: config.Quantization != nil}
		if shape.kvHeads == 0 {
			shape.kvHeads = config.NumAttentionHeads
		}
		if shape.headDim == 0 && config.NumAttentionHeads > 0 {
			shape.headDim = config.HiddenSize / config.NumAttentionHeads
		}
		return shape
	}
	return modelShape{}
}

// ggufShape reads the shape from the metadata, which the first split holds.
func ggufShape(ggufs []model.GGUFFile) modelShape {
	header := ggufs[0].Header // the first split holds the metadata
	arch := header.Architecture
	shape := modelShape{source: "the GGUF header of " + path.Base(ggufs[0].Path), contextKey: arch + ".context_length",
		layers: header.BlockCount, kvHeads: header.HeadCountKV, headDim: header.HeadDim(), context: header.ContextLength}
	if shape.kvHeads == 0 {
		shape.kvHeads = header.HeadCount
	}
	for _, file := range ggufs {
		for _, t := range file.Header.Types {
			if !slices.Contains([]string{"F32", "F16", "BF16", "F64"}, t) {
				shape.quantized = true
			}
		}
	}
	return shape
}

// parseTokens reads a token count as vLLM does: 32768, or 32k (×1000), 32K
// (×1024), 1m, 1M; 0 when it is none.
func parseTokens(value string) int64 {
	multiplier := int64(1)
	switch {
	case strings.HasSuffix(value, "k"):
		multiplier = 1000
	case strings.HasSuffix(value, "K"):
		multiplier = 1024
	case strings.HasSuffix(value, "m"):
		multiplier = 1000 * 1000
	case strings.HasSuffix(value, "M"):
		multiplier = 1024 * 1024
	}
	if multiplier > 1 {
		value = value[:len(value)-1]
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n * multiplier
}

// weightEstimate is what the server loads onto its GPUs, with the
// arithmetic for messages.
type weightEstimate struct {
	bytes   int64
	formula string
}

// loadedWeights sizes the weights as the server holds them: exact from the
// headers, unless the server changes their precision.
func loadedWeights(m *model.Model, ggufs []model.GGUFFile, srv gpuServer, args serverArgs) (weightEstimate, bool) {
	if len(ggufs) > 0 {
		return ggufWeights(ggufs), true
	}
	params := m.Parameters
	onDisk := 0.0 // bytes per parameter in the checkpoint
	if params > 0 && m.WeightBytes > 0 {
		onDisk = float64(m.WeightBytes) / float64(params)
	}
	quantized := m.HFConfig != nil && m.HFConfig.Quantization != nil
	computed := func(perParameter float64, why string) weightEstimate {
		unit := "bytes"
		if perParameter == 1 {
			unit = "byte"
		}
		formula := fmt.Sprintf("%s params × %s %s (%s)", humanCount(params),
			strconv.FormatFloat(perParameter, 'g', -1, 64), unit, why)
		return weightEstimate{bytes: int64(float64(params) * perParameter), formula: formula}
	}
	if !quantized && params > 0 {
		for _, s := range []setting{srv.quantization, srv.dtype} {
			value, ok := args.value(s)
			perParameter := bytesPerParameter[strings.ToLower(value.Value)]
			if ok && perParameter > 0 && perParameter != onDisk {
				return computed(perParameter, value.From+" "+value.Value), true
			}
		}
		if dtype, set := args.value(srv.dtype); srv.castsFloat32 && onDisk == 4 && (!set || dtype.Value == "auto") {
			return computed(2, "a float32 checkpoint, loaded as 16-bit unless --dtype float32"), true
		}
	}
	dtype := ""
	if m.HFConfig != nil {
		dtype = strings.ToLower(m.HFConfig.TorchDtype)
	}
	switch {
	case onDisk > 0 && onDisk == math.Trunc(onDisk):
		label := "the weights' headers"
		if bytesPerParameter[dtype] == onDisk {
			label = dtype
		}
		return computed(onDisk, label), true
	case m.WeightBytes > 0:
		return weightEstimate{bytes: m.WeightBytes, formula: humanBytes(m.WeightBytes) + " (the weights' headers)"}, true
	case params > 0 && bytesPerParameter[dtype] > 0 && !quantized:
		return computed(bytesPerParameter[dtype], dtype+" in config.json"), true
	}
	return weightEstimate{}, false
}

// ggufWeights sums the GGUF files the server loads: ggml's quantized
// blocks hold their scales, so the bytes are exact, not params × a size.
func ggufWeights(ggufs []model.GGUFFile) weightEstimate {
	var bytes, params int64
	types := map[string]bool{}
	for _, file := range ggufs {
		bytes += file.Header.WeightBytes
		params += file.Header.Parameters
		for _, t := range file.Header.Types {
			types[t] = true
		}
	}
	files := "the GGUF header of " + path.Base(ggufs[0].Path)
	if len(ggufs) > 1 {
		files = fmt.Sprintf("the GGUF headers of %s and %d more splits", path.Base(ggufs[0].Path), len(ggufs)-1)
	}
	return weightEstimate{bytes: bytes, formula: fmt.Sprintf("%s params in %s = %s (%s)", humanCount(params),
		strings.Join(slices.Sorted(maps.Keys(types)), ", "), humanBytes(bytes), files)}
}

// allLayersOnGPU reports whether a llama.cpp container's --n-gpu-layers
// puts every layer on the GPU.
func allLayersOnGPU(pass *lint.Pass, c *manifest.Container) bool {
	layers, ok := serverArgsOf(pass, c).value(gpuServers["llama.cpp"].gpuLayers)
	return ok && allLayers(layers.Value)
}

// allLayers reports whether an --n-gpu-layers value puts every layer on
// the GPU: "all", -1, or the customary large count (models have fewer).
func allLayers(value string) bool {
	if value == "all" {
		return true
	}
	n, err := strconv.Atoi(value)
	return err == nil && (n < 0 || n >= 99)
}

func gpuCount(c *manifest.Container, resource corev1.ResourceName) int64 {
	if quantity, ok := c.Resources.Limits[resource]; ok {
		return quantity.Value()
	}
	if quantity, ok := c.Resources.Requests[resource]; ok {
		return quantity.Value()
	}
	return 0
}

func parallelText(tp, pp int64) string {
	if pp > 1 {
		return fmt.Sprintf("TP %d × PP %d", tp, pp)
	}
	return fmt.Sprintf("TP %d", tp)
}

// humanCount writes a parameter count the way model cards do: 8.0B, 110.0M.
func humanCount(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1fB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return strconv.FormatInt(n, 10)
}

// serverArgs are what the server runs with: the words of the command line
// the bundle recognised (a sh -c string split into its words) and the
// environment, with the manifest fields that wrote them.
type serverArgs struct {
	words    []server.Word
	env      map[string]string
	envIndex map[string]int
}

func serverArgsOf(pass *lint.Pass, c *manifest.Container) serverArgs {
	args := serverArgs{env: envValues(c), envIndex: c.EnvIndex()}
	var line []server.Word
	for _, word := range argv(c) {
		line = append(line, server.Word{Text: word})
	}
	if bundle := pass.Target.Bundle(c); bundle != nil {
		// The bundle's env is the image's ENV and the manifest's values, as the server sees them.
		line = bundle.Server.Argv
		for _, entry := range bundle.Spec.Env {
			name, value, _ := strings.Cut(entry, "=")
			args.env[name] = value
		}
	}
	for _, word := range line {
		for _, part := range strings.Fields(word.Text) {
			args.words = append(args.words, server.Word{Text: part, Field: word.Field})
		}
	}
	return args
}

// value finds a setting: the last "--flag=value" or "--flag value" of its
// first flag that is given, else its env var.
func (a serverArgs) value(s setting) (server.Value, bool) {
	for _, flag := range s.flags {
		name := strings.TrimLeft(flag, "-")
		var found server.Value
		for i, word := range a.words {
			key, value, inline := strings.Cut(strings.TrimLeft(word.Text, "-"), "=")
			if !strings.HasPrefix(word.Text, "-") || key != name {
				continue
			}
			field := word.Field
			if !inline {
				if i+1 >= len(a.words) {
					continue
				}
				value, field = a.words[i+1].Text, a.words[i+1].Field
			}
			found = server.Value{Value: strings.Trim(value, `"'`), From: flag, Field: field}
		}
		if found.From != "" {
			return found, true
		}
	}
	for _, name := range s.env {
		if value, ok := a.env[name]; ok {
			field := ""
			if i, ok := a.envIndex[name]; ok {
				field = "env[" + strconv.Itoa(i) + "].value"
			}
			return server.Value{Value: value, From: "env " + name, Field: field}, true
		}
	}
	return server.Value{}, false
}
