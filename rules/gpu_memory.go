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
			"degree above the GPUs the container requests fails at start-up too (a warning; vLLM's is MDL410's).\n\n" +
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
			"(AWS, GCP and Azure GPU instances), or a KAITO Workspace's resource.instanceType; else the smallest GPU of the --cluster nodes the pod may land on, " +
			"from the same labels on them; without one the rule is skipped. A MIG slice (nvidia.com/mig-<profile>, GKE's " +
			"cloud.google.com/gke-gpu-partition-size, or a GPU Feature Discovery product name of the single strategy) has " +
			"the memory NVIDIA's MIG user guide gives its profile; a GPU shared by MPS (nvidia.com/gpu.sharing-strategy=mps, " +
			"nvidia.com/gpu.replicas) gives each pod its fraction, a time-sliced one all of it, shared. AMD GPUs " +
			"(amd.com/gpu: the ROCm labeller's amd.com/gpu.product-name, device-id or vram), Intel Gaudi (habana.ai/gaudi: " +
			"habana.ai/device.type) and Google TPU chips (google.com/tpu: cloud.google.com/gke-tpu-accelerator) are sized " +
			"by their HBM. Activations, CUDA graphs and the " +
			"CUDA context take memory this estimate leaves out, so it errs on the side of passing.\n\n" +
			"A KAITO Workspace with a preset model is judged by KAITO's own sizing: the preset's weights (KAITO's model " +
			"catalog) against the GPUs of resource.instanceType, 84% of each less 2.3 GiB. Weights that need more nodes than " +
			"resource.count are a note (info: KAITO v0.11 and newer run them on the nodes they need, v0.10 and older refuse " +
			"a preset without distributed inference); on the " +
			"transformers runtime, weights above the GPU memory of resource.count nodes are an error (KAITO's webhook " +
			"refuses the Workspace).",
		Bad: "nodeSelector:\n  cloud.google.com/gke-accelerator: nvidia-l4\n" +
			"containers:\n  - name: vllm\n    image: vllm/vllm-openai:v0.8.5\n    args: [--model=/models/qwen2.5-14b]\n" +
			"    resources:\n      limits: {nvidia.com/gpu: 1}\n---\n" + docQwen14B,
		Good: "nodeSelector:\n  cloud.google.com/gke-accelerator: nvidia-l4\ncontainers:\n  - name: vllm\n    image: vllm/vllm-openai:v0.8.5\n" +
			"    args: [--model=/models/qwen2.5-14b, --tensor-parallel-size=2]   # 13.8 GiB per GPU\n" +
			"    resources:\n      limits: {nvidia.com/gpu: 2}\n---\n" + docQwen14B,
		Fix: "Schedule the pod on a larger GPU, split the model over more GPUs (--tensor-parallel-size, --tp-size, " +
			"--num-shard, with as many nvidia.com/gpu), serve a quantized model, or lower the context length. On a MIG " +
			"slice, use a larger profile of the same GPU (the message names the smallest that holds the weights, from " +
			"NVIDIA's MIG user guide) or a whole GPU: a model is not split over slices, as a CUDA process sees one.",
		References: []string{
			"https://docs.vllm.ai/en/latest/configuration/conserving_memory.html",
			"https://docs.vllm.ai/en/latest/configuration/engine_args.html",
			"https://docs.sglang.io/advanced_features/server_arguments.html",
			"https://huggingface.co/docs/text-generation-inference/reference/launcher",
			"https://cloud.google.com/kubernetes-engine/docs/how-to/gpus",
			"https://github.com/NVIDIA/k8s-device-plugin/blob/main/docs/gpu-feature-discovery/README.md",
			"https://docs.nvidia.com/datacenter/tesla/mig-user-guide/",
			"https://github.com/NVIDIA/k8s-device-plugin#shared-access-to-gpus",
			"https://github.com/ROCm/k8s-device-plugin/tree/master/cmd/k8s-node-labeller",
			"https://cloud.google.com/kubernetes-engine/docs/how-to/tpus",
		},
	},
	Check: checkGPUMemory,
}

// docQwen14B is the model dir of MDL408's examples: Qwen2.5-14B's 14.8B
// parameters in bfloat16, in one tensor for short.
const docQwen14B = "# model dir\nmodels/qwen2.5-14b/\n  model.safetensors (27.5 GiB) <<safetensors\n" +
	"    {\"weight\": {\"dtype\": \"BF16\", \"shape\": [14770033664], \"data_offsets\": [0, 29540067328]}}\n  safetensors"

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
	if pass.Workload().Preset != nil {
		checkPreset(pass)
		return
	}
	gpuResource := corev1.ResourceName(pass.Config.GPUResourceName())
	var coverage lint.Coverage
	for _, link := range linkedModels(pass) {
		c := link.Container
		srv := engineGPU(c)
		device, requested, known := containerDevice(pass, c)
		switch {
		case srv == nil:
			coverage.Missed("no vLLM, SGLang, TGI, Triton, llama.cpp or NIM container serves a linked model")
			continue
		case !requested:
			coverage.Missed(fmt.Sprintf("no container that serves a linked model requests %s (or a MIG slice, %s, %s or %s)",
				gpuResource, gpu.ResourceAMD, gpu.ResourceGaudi, gpu.ResourceTPU))
			continue
		case !known:
			coverage.Missed(skipGPUTypeUnknown)
			continue
		}
		args := serverArgs(pass, c)
		if flag := srv.GPULayers.Name(); flag != "" {
			if layers, ok := args.Value(srv.GPULayers); !ok || !allLayers(layers.Value) {
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
		gpuCheck{pass: pass, c: c, srv: srv, args: args, gpuResource: device.Resource, gpus: device.Count,
			device: device, how: device.How, weights: weights, m: link.Model, shape: shapeOf(link.Model, ggufs)}.run()
	}
	coverage.SkipIfNone(pass, "")
}

// gpuCheck is one container's weights against one GPU.
type gpuCheck struct {
	pass        *lint.Pass
	c           *manifest.Container
	srv         *server.GPUMemory
	args        server.Args
	gpuResource corev1.ResourceName
	gpus        int64
	device      gpu.Device
	how         string
	weights     weightEstimate
	m           *model.Model
	shape       modelShape
}

func (g gpuCheck) run() {
	tp, tpValue := g.degree(g.srv.TensorParallel)
	pp, _ := g.degree(g.srv.PipelineParallel)
	if g.srv.ShardsOverAllGPUs && tpValue.From == "" {
		tp = max(1, g.gpus/pp)
	}
	shards := tp * pp
	field := g.gpuField()
	// vLLM's world size against the GPUs is MDL410's, which knows how
	// vLLM fails.
	if available, requested, fix := g.groupGPUs(shards); shards > available && engineOf(g.c) != "vllm" {
		at := field
		if tpValue.Field != "" {
			at = g.c.Path + "." + tpValue.Field
		}
		g.pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: at, Message: fmt.Sprintf("%s: %s needs %d GPUs but %s: the server "+
			"fails at start-up, it cannot place its workers; %s, or lower %s", describe(g.c), parallelText(tp, pp), shards, requested, fix, tpValue.From)})
	}
	fraction, fractionText := g.fraction()
	budget := int64(float64(g.device.MemoryBytes) * fraction)
	perGPU := g.weights.bytes / shards
	split := " / " + parallelText(tp, pp)
	if offload, ok := g.args.Value(g.srv.CPUOffload); ok {
		if gib, err := strconv.ParseFloat(offload.Value, 64); err == nil && gib > 0 {
			perGPU = max(0, perGPU-int64(gib*(1<<30)))
			split += fmt.Sprintf(" − %s GiB (%s)", offload.Value, offload.From)
		}
	}
	weightsText := fmt.Sprintf("%s%s = %s of weights per GPU", g.weights.formula, split, humanBytes(perGPU))
	gpuText := fmt.Sprintf("%s (%s) has %s × %s = %s", g.device.Name, g.how, humanBytes(g.device.MemoryBytes),
		fractionText, humanBytes(budget))
	if perGPU > budget {
		failure := `with "CUDA out of memory"`
		if !gpu.IsNVIDIA(g.gpuResource) {
			failure = "out of device memory"
		}
		g.pass.Reportf(field, "%s: %s, but %s: the server fails to load the model %s and restarts forever; %s",
			describe(g.c), weightsText, gpuText, failure, g.weightsFix(budget, fraction))
		return
	}
	kv, ok := g.kvCache(shards)
	if !ok || perGPU+kv.bytes <= budget {
		return
	}
	left := budget - perGPU
	g.pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Message: fmt.Sprintf("%s: %s; %s, which leaves %s, but the KV cache for one sequence of %d "+
		"tokens (%s) needs %s (%s): %s; %s", describe(g.c), weightsText, gpuText, humanBytes(left), kv.tokens, kv.from, humanBytes(kv.bytes), kv.formula, g.srv.KVFailure, g.kvFix(kv, left))})
}

// groupGPUs are the GPUs a model split over the pod's group can use, and
// how they are requested: a LeaderWorkerSet's group spreads its tensor and
// pipeline parallelism over every pod (vLLM over Ray, SGLang --nnodes),
// each with as many GPUs as this one, an assumption the message states.
func (g gpuCheck) groupGPUs(shards int64) (available int64, requested, fix string) {
	if group := g.pass.Workload().Group; group != nil && group.Size > 1 {
		size := int64(group.Size)
		return g.gpus * size, fmt.Sprintf("its group of %d pods requests %d (%s: %d each, if the other pods request as many "+
				"as this one)", size, g.gpus*size, g.gpuResource, g.gpus),
			fmt.Sprintf("request %s: %d in each pod", g.gpuResource, (shards+size-1)/size)
	}
	return g.gpus, fmt.Sprintf("the container requests %s: %d", g.gpuResource, g.gpus),
		fmt.Sprintf("request %s: %d", g.gpuResource, shards)
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
func (g gpuCheck) degree(s server.Setting) (int64, server.Value) {
	value, ok := g.args.Value(s)
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
	if value, ok := g.args.Value(g.srv.Fraction); ok {
		if f, err := strconv.ParseFloat(value.Value, 64); err == nil && f > 0 && f <= 1 {
			return f, fmt.Sprintf("%.2f (%s)", f, value.From)
		}
	}
	if name := g.srv.Fraction.Name(); name != "" {
		return g.srv.DefaultFraction, fmt.Sprintf("%.2f (%s default)", g.srv.DefaultFraction, name)
	}
	return g.srv.DefaultFraction, fmt.Sprintf("%.2f", g.srv.DefaultFraction)
}

// weightsFix names the smallest split that fits, where the server has one.
func (g gpuCheck) weightsFix(budget int64, fraction float64) string {
	smaller := "a quantized model"
	if g.shape.quantized {
		smaller = "a smaller model"
	}
	if g.device.MIG != "" {
		return g.sliceFix(fraction, smaller)
	}
	split := int64(2)
	for split < 8 && g.weights.bytes/split > budget {
		split *= 2
	}
	flag := g.srv.TensorParallel.Name()
	switch {
	case g.weights.bytes/split > budget:
		return "use a larger GPU or " + smaller
	case flag == "" && g.srv.ShardsOverAllGPUs:
		return fmt.Sprintf("use a larger GPU, request %s: %d (the server splits the model over every GPU it sees), "+
			"or serve %s", g.gpuResource, split, smaller)
	case flag == "":
		return "use a larger GPU or " + smaller
	}
	return fmt.Sprintf("use a larger GPU, split the model with %s %d and %s: %d, or serve %s",
		flag, split, g.gpuResource, split, smaller)
}

// sliceFix names a MIG profile, else a whole GPU, that holds the
// weights. A model is not split over MIG slices: a CUDA process sees one
// slice however many the container gets (MDL410).
func (g gpuCheck) sliceFix(fraction float64, smaller string) string {
	need := int64(math.Ceil(float64(g.weights.bytes) / fraction))
	request := func(profile string) string {
		if gpu.IsMIG(g.gpuResource) {
			return gpu.ResourceMIGPrefix + profile + ": 1"
		}
		return profile // the node's partition, which the pod selects
	}
	var options []string
	switch holding := gpu.SlicesHolding(g.device, need); {
	case len(holding) == 1:
		slice := holding[0]
		options = append(options, fmt.Sprintf("a larger MIG slice, %s (%s × %.2f = %s)", request(slice.Profile),
			humanBytes(slice.MemoryBytes), fraction, humanBytes(int64(float64(slice.MemoryBytes)*fraction))))
	case len(holding) > 1:
		// The GPU is not known: the profile that holds it on each GPU
		// that has the slice's profile.
		var profiles []string
		onGPUs := map[string][]string{}
		for _, slice := range holding {
			if onGPUs[slice.Profile] == nil {
				profiles = append(profiles, slice.Profile)
			}
			onGPUs[slice.Profile] = append(onGPUs[slice.Profile], slice.Whole.Name)
		}
		var each []string
		for _, profile := range profiles {
			each = append(each, request(profile)+" on an "+strings.Join(onGPUs[profile], " or "))
		}
		options = append(options, "a larger MIG slice ("+strings.Join(each, ", ")+")")
	}
	whole, known := gpu.WholeGPU(g.device)
	wholeBudget := int64(float64(whole.MemoryBytes) * fraction)
	name := "GPU"
	if g.device.Whole.Name != "" {
		name = whole.Name
	}
	split := int64(2)
	for split < 8 && g.weights.bytes/split > wholeBudget {
		split *= 2
	}
	flag := g.srv.TensorParallel.Name()
	switch {
	case !known:
	case g.weights.bytes <= wholeBudget:
		options = append(options, fmt.Sprintf("a whole %s (%s: 1)", name, gpu.ResourceNVIDIA))
	case g.weights.bytes/split > wholeBudget:
	case flag != "":
		options = append(options, fmt.Sprintf("whole GPUs, split with %s %d and %s: %d", flag, split, gpu.ResourceNVIDIA, split))
	case g.srv.ShardsOverAllGPUs:
		options = append(options, fmt.Sprintf("whole GPUs, %s: %d (the server splits the model over every GPU it sees)",
			gpu.ResourceNVIDIA, split))
	}
	if len(options) == 0 {
		return "use a larger GPU or " + smaller
	}
	return fmt.Sprintf("use %s, or serve %s (a model is not split over MIG slices: a CUDA process sees one, however "+
		"many the container gets)", strings.Join(options, " or "), smaller)
}

// kvFix names the context length that fits what the weights leave, and
// the other ways out.
func (g gpuCheck) kvFix(kv kvEstimate, left int64) string {
	fits := int64(float64(kv.tokens) * float64(left) / float64(kv.bytes))
	if fits >= 1024 {
		fits = fits / 1024 * 1024
	}
	larger := "a larger GPU or more GPUs"
	if g.device.MIG != "" {
		larger = "a larger MIG slice or a whole GPU" // not more slices: a CUDA process sees one
	}
	others := "a quantized model, " + larger
	if flag := g.srv.KVCacheDtype.Name(); flag != "" {
		others = flag + " " + cmp.Or(g.srv.SmallerKVCache, "fp8") + ", " + larger
	}
	return fmt.Sprintf("set %s to %d or lower, or use %s", g.srv.ContextLength.Name(), fits, others)
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
	if shape.source == "" || shape.latent || g.srv.ContextLength.Name() == "" {
		return kvEstimate{}, false
	}
	kv := kvEstimate{}
	fromModel := func() { kv.tokens, kv.from = shape.context, shape.contextKey+" in "+shape.source }
	if value, ok := g.args.Value(g.srv.ContextLength); ok {
		kv.tokens, kv.from = parseTokens(value.Value), value.From
		if kv.tokens == 0 && g.srv.ContextZeroIsModel && strings.TrimSpace(value.Value) == "0" {
			fromModel()
			kv.from = value.From + " 0: " + kv.from
		}
	} else if g.srv.ContextFromModel {
		fromModel()
	}
	if kv.tokens <= 0 || shape.layers <= 0 || shape.kvHeads <= 0 || shape.headDim <= 0 {
		return kvEstimate{}, false
	}
	element := int64(2)
	if dtype, ok := g.args.Value(g.srv.Dtype); ok && bytesPerParameter[strings.ToLower(dtype.Value)] == 4 {
		element = 4
	}
	if kvDtype, ok := g.args.Value(g.srv.KVCacheDtype); ok {
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
func loadedWeights(m *model.Model, ggufs []model.GGUFFile, srv *server.GPUMemory, args server.Args) (weightEstimate, bool) {
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
		for _, s := range []server.Setting{srv.Quantization, srv.Dtype} {
			value, ok := args.Value(s)
			perParameter := bytesPerParameter[strings.ToLower(value.Value)]
			if ok && perParameter > 0 && perParameter != onDisk {
				return computed(perParameter, value.From+" "+value.Value), true
			}
		}
		if dtype, set := args.Value(srv.Dtype); srv.CastsFloat32 && onDisk == 4 && (!set || dtype.Value == "auto") {
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
	gpu := engineGPU(c)
	if gpu == nil || gpu.GPULayers.Name() == "" {
		return false
	}
	layers, ok := serverArgs(pass, c).Value(gpu.GPULayers)
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

// containerDevice is the accelerator a container gets (gpu.ForContainer):
// requested says it requests one, known that its model is known.
func containerDevice(pass *lint.Pass, c *manifest.Container) (device gpu.Device, requested, known bool) {
	gpuResource := corev1.ResourceName(pass.Config.GPUResourceName())
	if _, _, requested = gpu.Requested(c.Resources, gpuResource); !requested {
		return gpu.Device{}, false, false
	}
	w := pass.Workload()
	where := gpu.Placement{Spec: w.Spec, InstanceType: w.InstanceType}
	if pass.Cluster != nil {
		for _, node := range podNodes(pass) {
			where.Nodes = append(where.Nodes, gpu.Node{Name: node.Name, Labels: node.Labels, Allocatable: node.Allocatable})
		}
	}
	device, known = gpu.ForContainer(c.Resources, gpuResource, where)
	return device, true, known
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

// serverArgs are what the server runs with: the command line the bundle
// recognised and the image's ENV with the manifest's values, as the server
// sees them; the manifest's command, args and literal env when the image
// was not read.
func serverArgs(pass *lint.Pass, c *manifest.Container) server.Args {
	bundle := pass.Target.Bundle(c)
	if bundle == nil {
		return server.NewArgs(manifestWords(c), envValues(c), c.EnvIndex())
	}
	env := envValues(c)
	maps.Copy(env, bundle.Env())
	return server.NewArgs(bundle.Server.Argv, env, c.EnvIndex())
}

// manifestWords are the container's command and args as the manifest
// writes them, with no fields.
func manifestWords(c *manifest.Container) []server.Word {
	words := make([]server.Word, 0, len(c.Command)+len(c.Args))
	for _, word := range argv(c) {
		words = append(words, server.Word{Text: word})
	}
	return words
}

// checkPreset judges a KAITO preset's weights against the GPUs of the
// instance type KAITO provisions its nodes of.
func checkPreset(pass *lint.Pass) {
	w := pass.Workload()
	preset := w.Preset
	device, perNode, ok := gpu.Instance(w.InstanceType)
	switch {
	case preset.WeightBytes == 0:
		pass.Skip(fmt.Sprintf("KAITO preset %q is not in the table of KAITO's model catalog", preset.Name))
		return
	case w.InstanceType == "":
		pass.Skip("no resource.instanceType: KAITO runs the preset on nodes of your own, whose GPUs are not known")
		return
	case !ok:
		pass.Skip(fmt.Sprintf("the GPUs of instance type %s are not known", w.InstanceType))
		return
	}
	weights := float64(preset.WeightBytes)
	gpus := fmt.Sprintf("%d × %s (%s each)", perNode, device.Name, humanBytes(device.MemoryBytes))
	if preset.Runtime == "transformers" {
		// KAITO's webhook checks the transformers runtime's total GPU
		// memory (ResourceSpec.validateCreateWithInference).
		nodes := max(preset.Count, 1)
		perNodeBytes := float64(perNode) * float64(device.MemoryBytes)
		if weights > float64(nodes)*perNodeBytes {
			pass.Reportf(cmp.Or(preset.CountPath, preset.InstanceTypePath), "KAITO preset %s on the transformers runtime: its weights (%s) are more than "+
				"the GPU memory of %s, %s per node: KAITO's webhook refuses the Workspace (\"Insufficient total GPU "+
				"memory\"); %schoose an instance type with more GPU memory", preset.Name,
				humanBytes(preset.WeightBytes), plural(nodes, w.InstanceType+" node"), gpus,
				setCount(preset, math.Ceil(weights/perNodeBytes)))
		}
		return
	}
	nodes := manifest.KAITONodes(preset.WeightBytes, device, perNode)
	if nodes <= 1 || float64(preset.Count) >= nodes {
		return // one node holds it, or resource.count already plans for the nodes it needs
	}
	// KAITO v0.11 and newer size the Workspace themselves, so this is
	// news about cost, not a failure.
	pass.Report(lint.Diagnostic{Severity: lint.Info, Path: preset.InstanceTypePath, Message: fmt.Sprintf(
		"KAITO preset %s: its weights (%s) do not fit the GPUs of a %s node, %s, of which KAITO lets vLLM use "+
			"%.0f%% less 2.3 GiB: by KAITO's estimate the model needs %.0f nodes, and KAITO v0.11 and newer run it on "+
			"them with pipeline parallelism whatever resource.count says (KAITO v0.10 and older refuse a preset "+
			"without distributed inference); %schoose an instance type whose GPUs hold "+
			"the weights", preset.Name, humanBytes(preset.WeightBytes), w.InstanceType, gpus, manifest.KAITOGPUShare*100,
		nodes, setCount(preset, nodes))})
}

// setCount advises the node count of a preset whose object has a field
// for it (a Workspace's resource.count; an InferenceSet has none).
func setCount(preset *manifest.Preset, nodes float64) string {
	if preset.CountPath == "" {
		return ""
	}
	return fmt.Sprintf("set %s to %.0f, or ", preset.CountPath, nodes)
}
