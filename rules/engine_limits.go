package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/server"
)

var engineLimitsExceeded = &lint.Rule{
	ID: "MDL410", Name: "engine-limits-exceeded", Severity: lint.Error,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "vLLM is told engine arguments that the linked model's config.json or the pod's GPUs refuse: a " +
			"tensor-parallel size that does not fit the heads, a --max-model-len beyond the length vLLM derives, a world " +
			"size beyond the GPUs, a --quantization the checkpoint is not, or bfloat16 on a GPU without it; or SGLang a " +
			"tensor-parallel size that does not fit the heads, a --context-length beyond the length it derives, or a " +
			"LeaderWorkerSet group whose pods or GPUs its --nnodes and parallel sizes do not fit; or TGI a --num-shard " +
			"that does not divide the heads, or token limits that contradict one another.",
		Why: "vLLM checks its arguments against the model's config.json and the GPUs before it serves, and refuses to " +
			"start; the pod restarts forever.\n\n" +
			"Heads: \"Total number of attention heads (32) must be divisible by tensor parallel size (3)\" " +
			"(ModelConfig.verify_with_parallel_config); the key-value heads are split over the ranks, or replicated when " +
			"there are fewer than the ranks (QKVParallelLinear), so one of the two must divide the other.\n\n" +
			"Length: \"User-specified max_model_len (65536) is greater than the derived max_model_len\" " +
			"(_get_and_verify_max_len in vllm/config/model.py) unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. The derived length " +
			"is the smallest of max_position_embeddings and the other length keys (n_positions, max_seq_len, seq_length, " +
			"max_target_positions, max_sequence_length, max_seq_length, seq_len), or model_max_length when set, times " +
			"the rope scaling factor (rope_scaling, else rope_parameters) unless the rope type is llama3, longrope or su, " +
			"whose max_position_embeddings is already the scaled length, or the model is a Gemma 3; YaRN scales its " +
			"original_max_position_embeddings. A --max-model-len up to model_max_length passes.\n\n" +
			"World size: tensor × pipeline parallel must not exceed the NVIDIA GPUs. In one pod, vLLM refuses to start " +
			"(\"World size (8) is larger than the number of available GPUs (4) in this node\", ParallelConfig in " +
			"vllm/config/parallel.py; older releases fall back to Ray instead, which waits 30 minutes for a placement " +
			"group of that many GPUs, then fails); a CUDA process sees one MIG slice however many it gets (a privileged container, or one whose env sets " +
			"NVIDIA_VISIBLE_DEVICES=all, sees every GPU of the node and is not held to its request). With " +
			"--distributed-executor-backend ray or RAY_ADDRESS the Ray cluster may hold other GPUs, so it is a warning: " +
			"without them vLLM hangs 30 minutes, then fails. A LeaderWorkerSet group has the leader's GPUs and size − 1 " +
			"workers' (from their templates): over Ray the placement group never fills, a hang then a failure; with " +
			"--nnodes each node fails at start-up.\n\n" +
			"Quantization: an AWQ, GPTQ or Marlin --quantization on a checkpoint without quantization_config (nor " +
			"quant_config.json or quantize_config.json) fails with \"Cannot find the config file for awq\" " +
			"(get_quant_config); a quantization_config whose quant_method differs from --quantization fails with " +
			"\"Quantization method specified in the model config (gptq) does not match the quantization method " +
			"specified in the `quantization` argument (awq)\" (ModelConfig._verify_quantization), except for the " +
			"kernels of the same checkpoints (awq_marlin for awq, gptq_marlin for gptq, …).\n\n" +
			"Dtype: where the GPU is known (MDL408's sources), --dtype bfloat16 on compute capability below 8.0 (T4, " +
			"V100) fails with \"Bfloat16 is only supported on GPUs with compute capability of at least 8.0\"; --dtype " +
			"auto on bfloat16 weights falls back to float16 with a warning (a warning here: a model trained in " +
			"bfloat16 may overflow in float16).\n\n" +
			"SGLang splits the heads the same way (--tp-size, --tp or --tensor-parallel-size): each model's attention " +
			"asserts that the degree divides the attention heads, and divides or is a multiple of the key-value heads, " +
			"so SGLang fails with an AssertionError as it builds the model (python/sglang/srt/models/llama.py); not on " +
			"the CPU (--device cpu), where it pads the heads, nor with --enable-dp-attention, where the attention has " +
			"fewer ranks. TGI's shards (--num-shard or NUM_SHARD) each load an equal share of the heads: " +
			"\"`num_heads` must be divisible by `num_shards`\" (the flash_*_modeling.py of each model family), every " +
			"shard fails and the launcher exits; the sizes it takes also divide the key-value heads, which it does not " +
			"replicate.\n\n" +
			"SGLang: a --context-length beyond the length get_context_length derives (the first of " +
			"max_sequence_length, seq_length, max_seq_len, model_max_length and max_position_embeddings, times " +
			"rope_scaling's factor unless rope_scaling has an original_max_position_embeddings or is llama3's, so a YaRN " +
			"model's length is not scaled) fails with \"User-specified context_length (131072) is greater than the " +
			"derived context_length (32768)\" (ModelConfig in sglang/srt/configs/model_config.py) unless " +
			"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1.\n\n" +
			"SGLang on a LeaderWorkerSet (checked without a linked model): each pod is one node, --nnodes of them, " +
			"--node-rank $(LWS_WORKER_INDEX). A --nnodes above the group's size waits for nodes that never start until " +
			"torch.distributed times out; below it, the extra pods are no node of the server (a warning). SGLang " +
			"refuses to start when --nnodes does not divide tensor × pipeline parallel (\"tp_size must be divisible " +
			"by number of nodes\") and when --dp-size spans nodes without --enable-dp-attention (check_server_args in " +
			"sglang/srt/server_args.py). Each node starts tensor × pipeline parallel ÷ --nnodes ranks, one process per " +
			"GPU from --base-gpu-id on (without --nnodes each pod starts them all; without --enable-dp-attention each " +
			"of --dp-size replicas takes GPUs of its own, with it they share the tensor-parallel group); a rank whose " +
			"GPU the pod lacks fails with \"CUDA error: invalid device ordinal\". The group's GPUs are counted as for " +
			"vLLM.\n\n" +
			"TGI: the launcher exits with an argument error when --max-input-tokens and the older --max-input-length " +
			"are both set, when the input limit is not below --max-total-tokens, or when --max-total-tokens is above " +
			"--max-batch-total-tokens (main in launcher/src/main.rs); the limits TGI derives when unset are not " +
			"checked, as their defaults changed between releases.\n\n" +
			"Checked: vLLM and SGLang containers with a linked model that has a config.json; SGLang containers of a " +
			"LeaderWorkerSet group that request NVIDIA GPUs, for --nnodes and the GPUs; TGI containers that serve a " +
			"linked model (its shards against the heads when the model has a config.json).",
		Bad: "containers:\n  - name: vllm\n    image: vllm/vllm-openai:v0.8.5\n" +
			"    args: [--model=/models/qwen2.5-7b, --tensor-parallel-size=8, --max-model-len=65536, --quantization=awq]\n" +
			"    resources:\n      limits: {nvidia.com/gpu: 4}\n---\n" + docQwen7B,
		Good: "containers:\n  - name: vllm\n    image: vllm/vllm-openai:v0.8.5\n" +
			"    args: [--model=/models/qwen2.5-7b, --tensor-parallel-size=4, --max-model-len=32768]\n" +
			"    resources:\n      limits: {nvidia.com/gpu: 4}\n---\n" + docQwen7B,
		Fix: "Use a tensor-parallel size (or TGI shard count) that divides the attention heads and request as many GPUs as tensor × pipeline " +
			"parallel, keep --max-model-len within the length the config gives, drop a --quantization the checkpoint " +
			"does not have, and use --dtype half on GPUs older than Ampere.",
		References: []string{
			"https://docs.vllm.ai/en/latest/configuration/engine_args.html",
			"https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",
			"https://github.com/vllm-project/vllm/blob/main/vllm/config/model.py",
			"https://github.com/vllm-project/vllm/blob/main/vllm/config/parallel.py",
			"https://github.com/vllm-project/vllm/blob/main/vllm/model_executor/model_loader/weight_utils.py",
			"https://github.com/vllm-project/vllm/blob/main/vllm/platforms/cuda.py",
			"https://docs.nvidia.com/datacenter/tesla/mig-user-guide/",
			"https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/configs/model_config.py",
			"https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/server_args.py",
			"https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/entrypoints/engine.py",
			"https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/models/llama.py",
			"https://github.com/huggingface/text-generation-inference/blob/main/server/text_generation_server/models/custom_modeling/flash_llama_modeling.py",
			"https://github.com/huggingface/text-generation-inference/blob/main/launcher/src/main.rs",
		},
	},
	Check: checkEngineLimits,
}

// docQwen7B is the model dir of MDL410's examples: Qwen2.5-7B-Instruct's
// config.json, the keys vLLM checks the engine arguments against, and its
// 7.6B parameters in bfloat16, in one tensor for short.
const docQwen7B = "# model dir\nmodels/qwen2.5-7b/\n  config.json <<EOF\n" +
	"    {\"num_attention_heads\": 28, \"num_key_value_heads\": 4, \"max_position_embeddings\": 32768, \"torch_dtype\": \"bfloat16\"}\n  EOF\n" +
	"  model.safetensors (14.2 GiB) <<safetensors\n" +
	"    {\"weight\": {\"dtype\": \"BF16\", \"shape\": [7615616512], \"data_offsets\": [0, 15231233024]}}\n  safetensors"

func checkEngineLimits(pass *lint.Pass) {
	var coverage lint.Coverage
	for _, c := range pass.Workload().Containers {
		checkSGLangGroup(pass, c, &coverage)
	}
	var links []*lint.Link
	for _, link := range pass.Target.Links {
		if link.Model != nil {
			links = append(links, link)
		}
	}
	if len(links) == 0 {
		switch {
		case coverage.Any():
		case pass.Workload().Preset != nil:
			pass.Skip(skipNoLink)
		default:
			pass.Skip(lint.SkipNoModelLinked)
		}
		return
	}
	for _, link := range links {
		c, config := link.Container, link.Model.HFConfig
		engine := engineOf(c)
		switch {
		case !slices.Contains([]string{"vllm", "sglang", "tgi"}, engine):
			coverage.Missed("no vLLM, SGLang or TGI container serves a linked model")
			continue
		case engine == "tgi":
			coverage.Checked()
			args := serverArgs(pass, c)
			if config != nil {
				checkHeads(pass, link.Model, c, args, engine)
			}
			checkTGITokens(pass, c, args)
			continue
		case config == nil:
			coverage.Missed(fmt.Sprintf("model %s has no config.json", link.Model.Dir))
			continue
		}
		coverage.Checked()
		args := serverArgs(pass, c)
		checkHeads(pass, link.Model, c, args, engine)
		if engine == "sglang" {
			checkContextLength(pass, link.Model, c, args)
			continue
		}
		checkMaxModelLen(pass, link.Model, c, args)
		checkWorldSize(pass, c, args)
		checkQuantizationArgument(pass, link.Model, c, args)
		checkDtypeCapability(pass, config, c, args)
	}
	coverage.SkipIfNone(pass, "")
}

// headsFailure is how each engine fails when its tensor-parallel degree
// does not divide the attention heads: %d are the heads and the degree.
//
//   - vLLM: ModelConfig.verify_with_parallel_config (vllm/config/model.py).
//   - SGLang: each model's attention asserts it as it is built
//     ("assert self.total_num_heads % tp_size == 0" in LlamaAttention,
//     python/sglang/srt/models/llama.py), on every device but the CPU, whose
//     model runner pads the heads instead (adjust_config_with_unaligned_cpu_tp
//     in python/sglang/srt/configs/update_config.py, called when device is
//     "cpu" in python/sglang/srt/model_executor/model_runner.py).
//   - TGI: each model's attention raises it as the shard loads the weights
//     (FlashLlamaAttention in
//     server/text_generation_server/models/custom_modeling/flash_llama_modeling.py,
//     and the other flash_*_modeling.py), and the launcher exits when a
//     shard fails.
var headsFailure = map[string]string{
	"vllm": "vLLM refuses to start with \"Total number of attention heads (%d) must be divisible by tensor parallel size (%d)\"",
	"sglang": "SGLang fails while it builds the model's attention layers, which split the heads evenly over the ranks " +
		"(an AssertionError in the model's attention, %d %% %d != 0)",
	"tgi": "every shard fails to load the model with \"`num_heads` must be divisible by `num_shards` (got `num_heads`: " +
		"%d and `num_shards`: %d\" and the launcher exits",
}

// kvHeadsFailure is how vLLM and SGLang fail when the degree neither
// divides nor is a multiple of the key-value heads: QKVParallelLinear
// splits the KV heads over the ranks, or replicates them when there are
// fewer (vLLM's, and SGLang's LlamaAttention asserts the same).
var kvHeadsFailure = map[string]string{
	"vllm":   "vLLM fails while it builds the attention layers (\"is not divisible by\")",
	"sglang": "SGLang fails while it builds the attention layers (an AssertionError in the model's attention)",
}

// checkHeads holds the tensor-parallel degree (vLLM --tensor-parallel-size,
// SGLang --tp-size, TGI --num-shard) to the attention heads of the model's
// config.json: each rank takes an equal share of the query heads, and of
// the key-value heads or a copy of them.
func checkHeads(pass *lint.Pass, m *model.Model, c *manifest.Container, args server.Args, engine string) {
	srv, config := engineGPU(c), m.HFConfig
	value, ok := args.Value(srv.TensorParallel)
	if !ok {
		return
	}
	if engine == "sglang" {
		// SGLang pads the heads on the CPU, and with DP attention splits
		// them over tp / dp ranks only.
		if device, set := args.Value(server.Flags("--device")); set && device.Value == "cpu" {
			return
		}
		if _, enabled, _ := args.Switch([]string{"--enable-dp-attention"}, nil); enabled {
			return
		}
	}
	tp, err := strconv.ParseInt(value.Value, 10, 64)
	heads, kvHeads := config.NumAttentionHeads, config.NumKeyValueHeads
	// TGI splits the key-value heads over the shards and never replicates
	// them (num_key_value_heads // num_shards in its attention), so the
	// sizes it takes divide both.
	replicatesKV := engine != "tgi"
	switch {
	case err != nil || tp < 2:
	case heads > 0 && heads%tp != 0:
		pass.Reportf(fieldOf(c.Path, value.Field), "%s: %s %d does not divide the %d attention heads of model %s "+
			"(config.json num_attention_heads): %s; use %s", describe(c), value.From, tp, heads, m.Dir,
			fmt.Sprintf(headsFailure[engine], heads, tp), fittingSizes(heads, kvHeads, tp, replicatesKV))
	case replicatesKV && kvHeads > 0 && kvHeads%tp != 0 && tp%kvHeads != 0:
		pass.Reportf(fieldOf(c.Path, value.Field), "%s: %s %d neither divides nor is a multiple of the %d "+
			"key-value heads of model %s (config.json num_key_value_heads): %s; use %s", describe(c), value.From, tp,
			kvHeads, m.Dir, kvHeadsFailure[engine], fittingSizes(heads, kvHeads, tp, replicatesKV))
	}
}

// engineOf names the runtime whose engine serves a container's model: its
// own, or the one a wrapping server starts (KServe's Hugging Face server
// starts vLLM's); "" for a container that is not a server.
func engineOf(c *manifest.Container) string {
	if c.Runtime == nil {
		return ""
	}
	if inv := c.Invocation(); inv != nil && inv.Engine != nil {
		return inv.Engine.Name
	}
	return c.Runtime.Name
}

// engineGPU is the GPU settings of the engine that serves a container's
// model, which every GPU and memory rule reads: a wrapping server passes
// its engine's flags on (KServe's Hugging Face server gives vLLM its
// --max-model-len) and its engine places the weights.
func engineGPU(c *manifest.Container) *server.GPUMemory {
	if engine := server.Named(engineOf(c)); engine != nil && engine.GPU != nil {
		return engine.GPU
	}
	return c.Runtime.GPU
}

// fieldOf is the field path of a setting in a container, the container's
// own when the setting has none (the image's entrypoint gave it).
func fieldOf(container, field string) string {
	if field == "" {
		return container
	}
	return container + "." + field
}

// fittingSizes names the tensor-parallel sizes nearest below and above tp
// that the engine accepts: they divide the attention heads, and divide the
// key-value heads or, where the engine replicates them, are a multiple of
// them (a count of 0 is not known).
func fittingSizes(heads, kvHeads, tp int64, replicatesKV bool) string {
	fits := func(d int64) bool {
		kvFits := kvHeads == 0 || kvHeads%d == 0 || (replicatesKV && d%kvHeads == 0)
		return (heads == 0 || heads%d == 0) && kvFits
	}
	below, above := int64(1), int64(0)
	for d := tp - 1; d > 1; d-- {
		if fits(d) {
			below = d
			break
		}
	}
	for d := tp + 1; d <= max(heads, kvHeads, 2*tp); d++ {
		if fits(d) {
			above = d
			break
		}
	}
	if above == 0 {
		return fmt.Sprintf("%d", below)
	}
	return fmt.Sprintf("%d or %d", below, above)
}

// allowsLongLength reports whether VLLM_ALLOW_LONG_MAX_MODEL_LEN lets vLLM
// start past the model's positions (vllm/envs.py: "1" or "true").
func allowsLongLength(args server.Args) bool {
	value, ok := args.Value(server.Setting{Env: []string{"VLLM_ALLOW_LONG_MAX_MODEL_LEN"}})
	return ok && (value.Value == "1" || strings.EqualFold(value.Value, "true"))
}
