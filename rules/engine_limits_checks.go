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

// derivedLength is the longest sequence vLLM accepts for a config, as
// _get_and_verify_max_len in vllm/config/model.py derives it.
type derivedLength struct {
	tokens int64
	// modelMaxLength is config.json's model_max_length, which vLLM lets a
	// longer --max-model-len reach; 0 when unset.
	modelMaxLength int64
	// how is the arithmetic, for messages.
	how string
}

// deriveMaxLen derives the length: the smallest of the length keys the
// config sets (model_max_length over them all when set), times the rope
// scaling factor unless the rope type is su, longrope or llama3 (whose
// max_position_embeddings already hold the scaled length) or the model is
// a Gemma 3; YaRN scales its original_max_position_embeddings. ok is false
// when the config sets no length or rope parameters this reads.
func deriveMaxLen(config *model.HFConfig) (derivedLength, bool) {
	keys := map[string]int64{}
	for key, value := range config.LengthKeys {
		keys[key] = value
	}
	if config.MaxPositionEmbeddings > 0 {
		keys["max_position_embeddings"] = config.MaxPositionEmbeddings
	}
	if len(keys) == 0 {
		return derivedLength{}, false
	}
	names := slices.Sorted(maps.Keys(keys))
	key := slices.MinFunc(names, func(a, b string) int { return int(keys[a] - keys[b]) })
	modelMaxLength := keys["model_max_length"]
	if modelMaxLength > 0 {
		key = "model_max_length"
	}
	derived := derivedLength{tokens: keys[key], modelMaxLength: modelMaxLength,
		how: fmt.Sprintf("config.json %s %d", key, keys[key])}
	rope := config.Rope
	switch {
	case rope == nil:
		derived.how += ", no rope scaling"
		return derived, true
	case rope.Mixed:
		return derivedLength{}, false
	case strings.Contains(config.ModelType, "gemma3"):
		derived.how += " (vLLM does not scale a Gemma 3's length again)"
		return derived, true
	}
	ropeType := rope.Type
	switch ropeType {
	case "su":
		ropeType = "longrope"
	case "mrope":
		ropeType = "default"
	}
	if ropeType == "longrope" || ropeType == "llama3" {
		derived.how += fmt.Sprintf(", rope_scaling %s, which vLLM does not scale", ropeType)
		return derived, true
	}
	factor := rope.Factor
	if factor <= 0 {
		factor = 1
	}
	if ropeType == "yarn" {
		original := rope.OriginalMaxPositionEmbeddings
		if original == 0 {
			original = config.MaxPositionEmbeddings
		}
		if original <= 0 {
			return derivedLength{}, false
		}
		derived.how = fmt.Sprintf("config.json rope_scaling yarn: original_max_position_embeddings %d", original)
		derived.tokens = original
	}
	scaled := float64(derived.tokens) * factor
	if scaled > math.MaxInt32*1024 {
		return derivedLength{}, false
	}
	switch {
	case factor != 1 && ropeType == "yarn":
		derived.how += fmt.Sprintf(" × factor %s", strconv.FormatFloat(factor, 'g', -1, 64))
	case factor != 1:
		derived.how += fmt.Sprintf(" × rope_scaling factor %s (%s)", strconv.FormatFloat(factor, 'g', -1, 64), ropeType)
	}
	derived.tokens = int64(scaled)
	return derived, true
}

// checkMaxModelLen holds --max-model-len to the length vLLM derives.
func checkMaxModelLen(pass *lint.Pass, m *model.Model, c *manifest.Container, args server.Args) {
	value, ok := args.Value(engineGPU(c).ContextLength)
	if !ok || m.HFConfig == nil {
		return
	}
	length := parseTokens(value.Value)
	derived, known := deriveMaxLen(m.HFConfig)
	switch {
	case length <= 0 || !known || length <= derived.tokens || allowsLongLength(args):
		return
	case derived.modelMaxLength > 0 && length <= derived.modelMaxLength:
		return
	}
	pass.Reportf(fieldOf(c.Path, value.Field), "%s: %s %d is beyond the %d positions of model %s (%s): vLLM refuses "+
		"to start with \"User-specified max_model_len (%d) is greater than the derived max_model_len\"; set %s to at "+
		"most %d", describe(c), value.From, length, derived.tokens, m.Dir, derived.how, length, value.From, derived.tokens)
}

// sglangLengthKeys are the keys SGLang's get_context_length
// (sglang/srt/utils/hf_transformers_utils.py) reads, the first set wins.
var sglangLengthKeys = []string{"max_sequence_length", "seq_length", "max_seq_len", "model_max_length", "max_position_embeddings"}

// sglangContextLength derives the context SGLang accepts: the first
// length key set, times rope_scaling's factor unless rope_scaling has an
// original_max_position_embeddings or is llama3's.
func sglangContextLength(config *model.HFConfig) (derivedLength, bool) {
	for _, key := range sglangLengthKeys {
		value := config.LengthKeys[key]
		if key == "max_position_embeddings" {
			value = config.MaxPositionEmbeddings
		}
		if value <= 0 {
			continue
		}
		derived := derivedLength{tokens: value, how: fmt.Sprintf("config.json %s %d", key, value)}
		rope := config.Rope
		switch {
		case rope == nil || rope.Key != "rope_scaling":
			derived.how += ", no rope_scaling"
		case rope.Mixed:
			return derivedLength{}, false
		case rope.OriginalMaxPositionEmbeddings > 0:
			derived.how += ", rope_scaling with original_max_position_embeddings, which SGLang does not scale"
		case rope.Type == "llama3":
			derived.how += ", rope_scaling llama3, which SGLang does not scale"
		case rope.Factor > 0 && rope.Factor*float64(value) < math.MaxInt32*1024:
			derived.tokens = int64(rope.Factor * float64(value))
			derived.how += fmt.Sprintf(" × rope_scaling factor %s", strconv.FormatFloat(rope.Factor, 'g', -1, 64))
		}
		return derived, true
	}
	return derivedLength{}, false
}

// checkContextLength holds SGLang's --context-length to the length it
// derives: ModelConfig._derive_context_length (sglang/srt/configs/
// model_config.py) raises unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN
// is set.
func checkContextLength(pass *lint.Pass, m *model.Model, c *manifest.Container, args server.Args) {
	value, ok := args.Value(engineGPU(c).ContextLength)
	if !ok || m.HFConfig == nil {
		return
	}
	length, err := strconv.ParseInt(value.Value, 10, 64)
	derived, known := sglangContextLength(m.HFConfig)
	allow, allowed := args.Env("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN")
	if err != nil || !known || length <= derived.tokens || (allowed && envTrue(allow.Value)) {
		return
	}
	pass.Reportf(fieldOf(c.Path, value.Field), "%s: %s %d is beyond the %d tokens SGLang derives for model %s (%s): "+
		"SGLang refuses to start with \"User-specified context_length (%d) is greater than the derived context_length "+
		"(%d)\"; set %s to at most %d, or set SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 if the model was trained "+
		"for longer", describe(c), value.From, length, derived.tokens, m.Dir, derived.how, length, derived.tokens,
		value.From, derived.tokens)
}

// envTrue reads a boolean env var as SGLang does (get_bool_env_var): 1 or true.
func envTrue(value string) bool {
	return slices.Contains([]string{"1", "true"}, strings.ToLower(strings.TrimSpace(value)))
}

// distributedBackend is vLLM's --distributed-executor-backend.
var distributedBackend = server.Flags("--distributed-executor-backend")

// checkWorldSize holds vLLM's world size, tensor × pipeline parallel, to
// the GPUs it can use: the container's, or its LeaderWorkerSet group's.
// vLLM's ParallelConfig (vllm/config/parallel.py) refuses a world size
// above the node's GPUs unless Ray places the workers; Ray waits for a
// placement group of that many GPUs (PG_WAIT_TIMEOUT, 1800 s, in
// vllm/v1/executor/ray_utils.py) and then fails.
func checkWorldSize(pass *lint.Pass, c *manifest.Container, args server.Args) {
	srv := engineGPU(c)
	tp, tpValue := parallelDegree(args, srv.TensorParallel)
	pp, ppValue := parallelDegree(args, srv.PipelineParallel)
	world := tp * pp
	gpuResource := corev1.ResourceName(pass.Config.GPUResourceName())
	resource, perPod, requested := gpu.Requested(c.Resources, gpuResource)
	if world <= 1 || !requested || !gpu.IsNVIDIA(resource) {
		return // ParallelConfig's check is CUDA's; other platforms fail in their own ways
	}
	field := cmp.Or(fieldIf(c.Path, tpValue.Field), fieldIf(c.Path, ppValue.Field), limitOrRequest(c, resource))
	lower := cmp.Or(tpValue.From, ppValue.From, srv.TensorParallel.Name())
	if gpu.IsMIG(resource) {
		// A CUDA process enumerates one MIG instance, however many the
		// container gets (NVIDIA's MIG user guide, "CUDA Device
		// Enumeration").
		pass.Reportf(field, "%s: %s needs %d GPUs, but the container requests MIG slices (%s: %d), of which a CUDA process "+
			"sees only one: vLLM refuses to start (\"World size (%d) is larger than the number of available GPUs (1)\"); "+
			"serve the model on one slice, or on whole GPUs (%s: %d)", describe(c), parallelText(tp, pp), world, resource,
			perPod, world, gpu.ResourceNVIDIA, world)
		return
	}
	backend, _ := args.Value(distributedBackend)
	_, rayAddress := args.Env("RAY_ADDRESS")
	group := pass.Workload().Group
	if group == nil || group.Size <= 1 {
		if world <= perPod {
			return
		}
		// A pod of a Ray cluster (KubeRay, AIBrix) places workers on the
		// cluster's other nodes.
		rayCluster := slices.Contains([]string{"ray.io", "orchestration.aibrix.ai"}, pass.Workload().Object.Group())
		if seesEveryGPU(c) {
			return // the container sees the node's GPUs, not only those it requests
		}
		if backend.Value == "ray" || rayAddress || rayCluster {
			pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Message: fmt.Sprintf("%s: %s needs %d GPUs, but "+
				"the container requests %s: %d: with Ray, vLLM waits for a placement group of %d GPUs, which only a Ray "+
				"cluster with other GPU nodes fills; without them it hangs for 30 minutes, then fails (\"Cannot provide a "+
				"placement group\"); request %s: %d, or lower %s", describe(c), parallelText(tp, pp), world, resource, perPod,
				world, resource, world, lower)})
			return
		}
		pass.Reportf(field, "%s: %s needs %d GPUs, but the container requests %s: %d: vLLM refuses to start (\"World size "+
			"(%d) is larger than the number of available GPUs (%d) in this node\"; older releases fall back to Ray "+
			"instead, hang for 30 minutes waiting for a placement group, then fail); request %s: %d, or lower %s",
			describe(c), parallelText(tp, pp), world, resource, perPod, world, perPod, resource, world, lower)
		return
	}
	total, text, known := groupGPUs(pass, resource, perPod)
	if world <= total {
		return
	}
	nodes, _ := args.Value(server.Flags("--nnodes"))
	failure := "with Ray, vLLM waits for a placement group of %d GPUs that the group's pods cannot fill: it hangs " +
		"for 30 minutes, then fails (\"Cannot provide a placement group\")"
	failure = fmt.Sprintf(failure, world)
	if backend.Value == "mp" || nodes.Value != "" {
		failure = "each vLLM node fails at start-up: its share of the world size is more than the GPUs it sees"
	}
	diagnostic := lint.Diagnostic{Severity: lint.Error, Path: field, Message: fmt.Sprintf("%s: %s needs %d GPUs, but %s: %s; "+
		"request %s: %d in each pod, a larger group (%s), or lower %s", describe(c), parallelText(tp, pp), world, text,
		failure, resource, (world+int64(group.Size)-1)/int64(group.Size), cmp.Or(group.SizePath, "spec.leaderWorkerTemplate.size"), lower)}
	if !known {
		diagnostic.Severity = lint.Warning
	}
	pass.Report(diagnostic)
}

// seesEveryGPU reports whether a container sees more GPUs than it
// requests: privileged, or its env sets NVIDIA_VISIBLE_DEVICES=all, which
// the kubelet passes after the device plugin's (the last one wins).
func seesEveryGPU(c *manifest.Container) bool {
	if sc := c.SecurityContext; sc != nil && sc.Privileged != nil && *sc.Privileged {
		return true
	}
	for _, env := range c.Env {
		if env.Name == "NVIDIA_VISIBLE_DEVICES" && env.Value == "all" {
			return true
		}
	}
	return false
}

// groupGPUs counts the GPUs of a LeaderWorkerSet's group: the leader's
// pod and size−1 workers, each pod's from its template (the leader's
// when the set has one template), as the templates were extracted; known
// is false when the other template is not known, and each pod is then
// taken to request as many as this one.
func groupGPUs(pass *lint.Pass, resource corev1.ResourceName, perPod int64) (total int64, text string, known bool) {
	w := pass.Workload()
	size := int64(w.Group.Size)
	podGPUs := map[string]int64{}
	for component, containers := range w.Group.Pods {
		var most int64
		for _, resources := range containers {
			if name, n, ok := gpu.Requested(resources, corev1.ResourceName(pass.Config.GPUResourceName())); ok && name == resource {
				most = max(most, n)
			}
		}
		podGPUs[component] = most
	}
	leader, hasLeader := podGPUs["leader"]
	worker, hasWorker := podGPUs["worker"]
	switch {
	case hasLeader && hasWorker:
		total = leader + (size-1)*worker
		return total, fmt.Sprintf("the group of %d pods requests %d (%s: %d in the leader, %d in each of %d workers)",
			size, total, resource, leader, worker, size-1), true
	case len(podGPUs) == 1 && !hasWorker:
		total = size * perPod
		return total, fmt.Sprintf("the group of %d pods requests %d (%s: %d in each)", size, total, resource, perPod), true
	}
	total = size * perPod
	return total, fmt.Sprintf("the group of %d pods requests %d (%s: %d each, if the other pods request as many as "+
		"this one)", size, total, resource, perPod), false
}

// parallelDegree reads a parallel degree, 1 when unset or not a number.
func parallelDegree(args server.Args, s server.Setting) (int64, server.Value) {
	value, ok := args.Value(s)
	if !ok {
		return 1, server.Value{}
	}
	n, err := strconv.ParseInt(value.Value, 10, 64)
	if err != nil || n < 1 || n > 1<<16 {
		return 1, server.Value{}
	}
	return n, value
}

// intSetting reads a setting that is a count, fallback when unset or not
// a number from 0 to 65536.
func intSetting(args server.Args, s server.Setting, fallback int64) int64 {
	value, ok := args.Value(s)
	if !ok {
		return fallback
	}
	n, err := strconv.ParseInt(value.Value, 10, 64)
	if err != nil || n < 0 || n > 1<<16 {
		return fallback
	}
	return n
}

func fieldIf(container, field string) string {
	if field == "" {
		return ""
	}
	return container + "." + field
}

// limitOrRequest is the field of a container's resource: its limit, else
// its request.
func limitOrRequest(c *manifest.Container, resource corev1.ResourceName) string {
	if _, ok := c.Resources.Limits[resource]; ok {
		return resourcePath(c, "limits", resource)
	}
	return resourcePath(c, "requests", resource)
}

// quantizationFamilies are vLLM's quantization methods that read the same
// checkpoints: an AWQ or GPTQ checkpoint runs under its Marlin, BitBLAS,
// MoE or IPEX kernels, whose configs override the checkpoint's method
// (override_quantization_method in vllm/model_executor/layers/quantization).
var quantizationFamilies = map[string][]string{
	"awq":  {"awq", "awq_marlin", "marlin", "moe_wna16", "ipex", "cpu_awq"},
	"gptq": {"gptq", "gptq_marlin", "gptq_marlin_24", "gptq_bitblas", "bitblas", "marlin", "moe_wna16", "ipex", "cpu_gptq"},
}

// knownQuantizations are the methods this check knows the checkpoints of.
var knownQuantizations = []string{"awq", "awq_marlin", "gptq", "gptq_marlin", "gptq_marlin_24", "gptq_bitblas", "bitblas",
	"marlin", "fp8", "fbgemm_fp8", "bitsandbytes", "compressed-tensors", "gguf", "experts_int8", "mxfp4", "quark", "torchao",
	"hqq", "modelopt", "modelopt_fp4"}

// needsCheckpointConfig are the methods that read their parameters from
// the checkpoint: without quantization_config in config.json, vLLM's
// get_quant_config (vllm/model_executor/model_loader/weight_utils.py)
// looks for quant_config.json or quantize_config.json in the model dir
// and fails without one.
var needsCheckpointConfig = []string{"awq", "awq_marlin", "gptq", "gptq_marlin", "gptq_marlin_24", "gptq_bitblas", "marlin"}

// checkQuantizationArgument holds --quantization to the checkpoint
// (ModelConfig._verify_quantization in vllm/config/model.py).
func checkQuantizationArgument(pass *lint.Pass, m *model.Model, c *manifest.Container, args server.Args) {
	value, ok := args.Value(engineGPU(c).Quantization)
	if !ok || m.HFConfig == nil {
		return
	}
	argument := strings.ToLower(value.Value)
	field := fieldOf(c.Path, value.Field)
	quantization := m.HFConfig.Quantization
	if quantization == nil {
		if !slices.Contains(needsCheckpointConfig, argument) || hasQuantizeConfig(m) {
			return
		}
		pass.Reportf(field, "%s: %s %s, but model %s is not quantized (config.json has no quantization_config, and "+
			"there is no quant_config.json or quantize_config.json): vLLM fails to load it with \"Cannot find the "+
			"config file for %s\"; serve a checkpoint quantized with %s, or drop %s (fp8 and bitsandbytes quantize "+
			"16-bit weights as they load)", describe(c), value.From, value.Value, m.Dir, argument, argument, value.From)
		return
	}
	method := strings.ReplaceAll(strings.ToLower(quantization.Method), "compressed_tensors", "compressed-tensors")
	if method == "" || method == argument || !slices.Contains(knownQuantizations, method) ||
		!slices.Contains(knownQuantizations, argument) {
		return
	}
	for _, family := range quantizationFamilies {
		if slices.Contains(family, method) && slices.Contains(family, argument) {
			return
		}
	}
	pass.Reportf(field, "%s: %s %s, but model %s is quantized with %s (config.json quantization_config.quant_method): "+
		"vLLM refuses to start with \"Quantization method specified in the model config (%s) does not match the "+
		"quantization method specified in the `quantization` argument (%s)\"; drop %s (vLLM reads the method from "+
		"config.json) or set it to %s", describe(c), value.From, value.Value, m.Dir, method, method, argument,
		value.From, method)
}

// hasQuantizeConfig reports whether the model dir holds a quantization
// config file beside config.json, as get_quant_config globs it (*.json
// ending in a method's config filename).
func hasQuantizeConfig(m *model.Model) bool {
	for _, file := range m.Files {
		name := path.Base(file.Path)
		if strings.HasSuffix(name, "quant_config.json") || strings.HasSuffix(name, "quantize_config.json") {
			return true
		}
	}
	return false
}

// checkDtypeCapability holds bfloat16 to the GPU's compute capability.
// vLLM's CUDA platform refuses an explicit bfloat16 below 8.0
// (check_if_supports_dtype in vllm/platforms/cuda.py: "Bfloat16 is only
// supported on GPUs with compute capability of at least 8.0"); --dtype
// auto on a bfloat16 checkpoint falls back to float16 with a warning
// (_resolve_auto_dtype in vllm/config/model.py).
func checkDtypeCapability(pass *lint.Pass, config *model.HFConfig, c *manifest.Container, args server.Args) {
	device, _, known := containerDevice(pass, c)
	if !known || device.ComputeCapability == 0 || device.ComputeCapability >= 80 {
		return
	}
	value, set := args.Value(engineGPU(c).Dtype)
	dtype := strings.ToLower(value.Value)
	on := fmt.Sprintf("%s (%s; compute capability %s)", device.Name, device.How, device.Capability())
	switch {
	case set && dtype == "bfloat16":
		pass.Reportf(fieldOf(c.Path, value.Field), "%s: %s bfloat16 on %s: vLLM refuses to start with \"Bfloat16 is "+
			"only supported on GPUs with compute capability of at least 8.0\"; set %s half, or schedule the pod on "+
			"a GPU of compute capability 8.0 or more (A10, L4, A100, H100)", describe(c), value.From, on, value.From)
	case (!set || dtype == "auto") && config != nil && strings.EqualFold(config.TorchDtype, "bfloat16"):
		at := c.Path
		if set {
			at = fieldOf(c.Path, value.Field)
		}
		pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: at, Message: fmt.Sprintf("%s: the model's weights are "+
			"bfloat16 (config.json torch_dtype) and %s auto picks them, but %s computes in bfloat16 only from "+
			"compute capability 8.0: vLLM starts, falling back to float16 with a warning (\"Your device … doesn't "+
			"support torch.bfloat16. Falling back to torch.float16\"), and a model trained in bfloat16 may overflow "+
			"in float16; set %s half to say so, or schedule the pod on a GPU of compute capability 8.0 or more",
			describe(c), cmp.Or(value.From, engineGPU(c).Dtype.Name()), on, engineGPU(c).Dtype.Name())})
	}
}

// TGI's token limits, as its launcher validates them before it starts a
// shard (main in launcher/src/main.rs of text-generation-inference).
var (
	tgiMaxInputTokens      = server.FlagOrEnv("--max-input-tokens", "MAX_INPUT_TOKENS")
	tgiMaxInputLength      = server.FlagOrEnv("--max-input-length", "MAX_INPUT_LENGTH")
	tgiMaxTotalTokens      = server.FlagOrEnv("--max-total-tokens", "MAX_TOTAL_TOKENS")
	tgiMaxBatchTotalTokens = server.FlagOrEnv("--max-batch-total-tokens", "MAX_BATCH_TOTAL_TOKENS")
)

// checkTGITokens holds TGI's written token limits to one another: the
// launcher exits with an argument error when --max-input-tokens and its
// older name --max-input-length are both set, when the input limit is not
// below --max-total-tokens, or when --max-total-tokens is above
// --max-batch-total-tokens. Limits TGI derives itself are not checked:
// their defaults changed between releases.
func checkTGITokens(pass *lint.Pass, c *manifest.Container, args server.Args) {
	tokens := func(s server.Setting) (int64, server.Value, bool) {
		value, ok := args.Value(s)
		if !ok {
			return 0, value, false
		}
		n, err := strconv.ParseInt(value.Value, 10, 64)
		return n, value, err == nil && n > 0
	}
	input, inputValue, hasInput := tokens(tgiMaxInputTokens)
	length, lengthValue, hasLength := tokens(tgiMaxInputLength)
	total, totalValue, hasTotal := tokens(tgiMaxTotalTokens)
	batch, batchValue, hasBatch := tokens(tgiMaxBatchTotalTokens)
	if hasInput && hasLength {
		pass.Reportf(fieldOf(c.Path, lengthValue.Field), "%s: %s %d and %s %d are both set: TGI's launcher exits "+
			"(\"Both `max_input_tokens` (%d) and `max_input_length` (%d) are set\"); keep only %s",
			describe(c), inputValue.From, input, lengthValue.From, length, input, length, inputValue.From)
		return
	}
	if !hasInput && hasLength {
		input, inputValue, hasInput = length, lengthValue, true
	}
	if hasInput && hasTotal && input >= total {
		pass.Reportf(fieldOf(c.Path, inputValue.Field), "%s: %s %d is not below %s %d: TGI's launcher exits "+
			"(\"`max_input_tokens must be < `max_total_tokens`\"); set %s to at most %d, or raise %s",
			describe(c), inputValue.From, input, totalValue.From, total, inputValue.From, total-1, totalValue.From)
	}
	if hasTotal && hasBatch && total > batch {
		pass.Reportf(fieldOf(c.Path, totalValue.Field), "%s: %s %d is above %s %d: TGI's launcher exits "+
			"(\"`max_total_tokens` must be <= `max_batch_total_tokens`\"); lower %s or raise %s", describe(c),
			totalValue.From, total, batchValue.From, batch, totalValue.From, batchValue.From)
	}
}

// SGLang's multi-node settings (ServerArgs in sglang/srt/server_args.py):
// --dp is argparse's abbreviation of --dp-size.
var (
	sglangNodes        = server.Flags("--nnodes")
	sglangDataParallel = server.Flags("--dp-size", "--data-parallel-size", "--dp")
	sglangBaseGPU      = server.Flags("--base-gpu-id")
	sglangGPUStep      = server.Flags("--gpu-id-step")
)

// checkSGLangGroup holds an SGLang server on a LeaderWorkerSet group to the
// group: --nnodes to its pods, tensor × pipeline parallel to their GPUs.
// SGLang asserts at start that --nnodes divides tensor × pipeline parallel
// and that data parallelism spans nodes only with --enable-dp-attention
// (ServerArgs.check_server_args); each node then starts its share of the
// ranks, tensor × pipeline parallel ÷ --nnodes, one process per GPU, on
// GPU --base-gpu-id + i × --gpu-id-step (_launch_subprocesses in
// sglang/srt/entrypoints/engine.py). Without --enable-dp-attention each of
// --dp-size replicas takes a tensor × pipeline parallel group of GPUs of
// its own (DataParallelController.launch_dp_schedulers); with it the
// replicas share the tensor-parallel group. It needs no linked model.
func checkSGLangGroup(pass *lint.Pass, c *manifest.Container, coverage *lint.Coverage) {
	group := pass.Workload().Group
	if group == nil || group.Size <= 1 || engineOf(c) != "sglang" || engineGPU(c) == nil {
		return
	}
	gpuResource := corev1.ResourceName(pass.Config.GPUResourceName())
	resource, perPod, requested := gpu.Requested(c.Resources, gpuResource)
	if !requested || resource != gpuResource && resource != gpu.ResourceNVIDIA {
		coverage.Missed("the SGLang container requests no whole NVIDIA GPUs")
		return
	}
	coverage.Checked()
	args := serverArgs(pass, c)
	srv := engineGPU(c)
	tp, tpValue := parallelDegree(args, srv.TensorParallel)
	pp, ppValue := parallelDegree(args, srv.PipelineParallel)
	dp, dpValue := parallelDegree(args, sglangDataParallel)
	_, dpAttention, _ := args.Switch([]string{"--enable-dp-attention"}, nil)
	world := tp * pp
	size := int64(group.Size)
	sizePath := cmp.Or(group.SizePath, "spec.leaderWorkerTemplate.size")
	parallel := cmp.Or(fieldIf(c.Path, tpValue.Field), fieldIf(c.Path, ppValue.Field), c.Path)
	nodes := int64(1)
	if nodesValue, ok := args.Value(sglangNodes); ok {
		field := fieldOf(c.Path, nodesValue.Field)
		n, err := strconv.ParseInt(nodesValue.Value, 10, 64)
		switch {
		case strings.Contains(nodesValue.Value, "LWS_GROUP_SIZE"):
			n = size // the webhook's env var of the group's size
		case err != nil || n < 1 || n > 1<<16:
			return // not known
		}
		nodes = n
		switch {
		case nodes > size:
			pass.Reportf(field, "%s: SGLang --nnodes %d, but the group has %d pods (%s): the ranks of the nodes that "+
				"never start do not join, so torch.distributed's initialisation waits for them until it times out and "+
				"the server never serves; set --nnodes to %d, the group's size ($(LWS_GROUP_SIZE))", describe(c), nodes,
				size, sizePath, size)
			return
		case nodes < size:
			pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Message: fmt.Sprintf("%s: SGLang --nnodes "+
				"%d, but the group has %d pods (%s): the pods of node rank %d and up are no node of the server (their "+
				"ranks repeat another node's or fall outside the world), so they fail or hold GPUs for nothing; set "+
				"--nnodes to %d, the group's size ($(LWS_GROUP_SIZE))", describe(c), nodes, size, sizePath, nodes, size)})
			return
		}
	}
	if nodes > 1 && dp > 1 && !dpAttention {
		pass.Reportf(fieldOf(c.Path, dpValue.Field), "%s: SGLang %s %d over --nnodes %d without --enable-dp-attention: "+
			"SGLang refuses to start (\"multi-node data parallel is not supported unless dp attention!\"); add "+
			"--enable-dp-attention, or serve each replica from a group of its own", describe(c), dpValue.From, dp, nodes)
		return
	}
	if world%nodes != 0 {
		pass.Reportf(parallel, "%s: SGLang %s (%d GPUs) is not divisible by --nnodes %d: SGLang refuses to start "+
			"(\"tp_size must be divisible by number of nodes\"); use a tensor × pipeline parallel size that is a "+
			"multiple of %d", describe(c), parallelText(tp, pp), world, nodes, nodes)
		return
	}
	if seesEveryGPU(c) {
		return // the container sees the node's GPUs, not only those it requests
	}
	ranks := world / nodes // on each node
	if nodes == 1 && dp > 1 && !dpAttention {
		ranks = dp * world
	}
	base := intSetting(args, sglangBaseGPU, 0)
	step := max(intSetting(args, sglangGPUStep, 1), 1)
	needed := base + (ranks-1)*step + 1 // the highest GPU id, plus one
	lower := cmp.Or(tpValue.From, ppValue.From, srv.TensorParallel.Name())
	failure := "a rank whose GPU the pod does not have fails with \"CUDA error: invalid device ordinal\""
	if nodes > 1 {
		total, text, known := groupGPUs(pass, resource, perPod)
		if world > total {
			diagnostic := lint.Diagnostic{Severity: lint.Error, Path: parallel, Message: fmt.Sprintf("%s: SGLang %s "+
				"needs %d GPUs, but %s: each of the %d nodes starts %d ranks, one per GPU, and %s; request %s: %d in "+
				"each pod, or lower %s", describe(c), parallelText(tp, pp), world, text, nodes, ranks, failure,
				resource, needed, lower)}
			if !known {
				diagnostic.Severity = lint.Warning
			}
			pass.Report(diagnostic)
			return
		}
	}
	if needed > perPod {
		how := fmt.Sprintf("%s over --nnodes %d starts %d ranks in each pod", parallelText(tp, pp), nodes, ranks)
		switch {
		case nodes == 1 && ranks > world:
			how = fmt.Sprintf("%s %d × %s, without --enable-dp-attention and --nnodes, starts %d ranks in each pod of "+
				"the group", dpValue.From, dp, parallelText(tp, pp), ranks)
		case nodes == 1:
			how = fmt.Sprintf("%s, without --nnodes, starts %d ranks in each pod of the group", parallelText(tp, pp), ranks)
		}
		if needed > ranks {
			how += fmt.Sprintf(" (on GPUs up to %d: --base-gpu-id %d, --gpu-id-step %d)", needed-1, base, step)
		}
		pass.Reportf(parallel, "%s: SGLang %s, one per GPU, but the pod requests %s: %d: %s; request %s: %d, or lower %s",
			describe(c), how, resource, perPod, failure, resource, needed, lower)
	}
}
