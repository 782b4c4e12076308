package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/server"
)

var engineLimitsExceeded = &lint.Rule{
	ID: "MDL410", Name: "engine-limits-exceeded", Severity: lint.Error,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest, lint.FactModel},
	Doc: lint.Doc{
		Summary: "vLLM is told a tensor-parallel size that does not fit the linked model's attention or key-value " +
			"heads, or a --max-model-len beyond its max_position_embeddings.",
		Why: "vLLM checks the engine's arguments against the model's config.json before it loads a weight, and refuses " +
			"to start: \"Total number of attention heads (32) must be divisible by tensor parallel size (3)\" " +
			"(ModelConfig.verify_with_parallel_config), and \"User-specified max_model_len (65536) is greater than the " +
			"derived max_model_len (max_position_embeddings=32768 …)\" (_get_and_verify_max_len) unless " +
			"VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. The key-value heads are split over the ranks, or replicated when there " +
			"are fewer than the ranks (QKVParallelLinear), so one of the two must divide the other, or the model " +
			"fails to build. The pod restarts forever.\n\n" +
			"Checked: vLLM containers with a linked model whose config.json gives num_attention_heads (the language " +
			"model's, for multimodal configs) and max_position_embeddings. A config that scales its positions " +
			"(rope_scaling, rope_parameters) is not checked for the length, because vLLM derives a longer one from it.",
		Bad: "# models/qwen2.5-7b/config.json: num_attention_heads 28, max_position_embeddings 32768\n" +
			"args: [--model=/models/qwen2.5-7b, --tensor-parallel-size=8, --max-model-len=65536]",
		Good: "args: [--model=/models/qwen2.5-7b, --tensor-parallel-size=4, --max-model-len=32768]",
		Fix: "Use a tensor-parallel size that divides the attention heads (and request that many GPUs), and a " +
			"--max-model-len within max_position_embeddings.",
		References: []string{
			"https://docs.vllm.ai/en/latest/configuration/engine_args.html",
			"https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html",
		},
	},
	Check: checkEngineLimits,
}

func checkEngineLimits(pass *lint.Pass) {
	var coverage lint.Coverage
	for _, link := range linkedModels(pass) {
		c, config := link.Container, link.Model.HFConfig
		switch {
		case c.Runtime == nil || c.Runtime.Name != "vllm":
			coverage.Missed("no vLLM container serves a linked model")
			continue
		case config == nil:
			coverage.Missed(fmt.Sprintf("model %s has no config.json", link.Model.Dir))
			continue
		}
		coverage.Checked()
		args := serverArgs(pass, c)
		srv := c.Runtime.GPU
		if value, ok := args.Value(srv.TensorParallel); ok {
			tp, err := strconv.ParseInt(value.Value, 10, 64)
			heads, kvHeads := config.NumAttentionHeads, config.NumKeyValueHeads
			switch {
			case err != nil || tp < 2:
			case heads > 0 && heads%tp != 0:
				pass.Reportf(fieldOf(c.Path, value.Field), "%s: %s %d does not divide the %d attention heads of model %s "+
					"(config.json num_attention_heads): vLLM refuses to start with \"Total number of attention heads (%d) "+
					"must be divisible by tensor parallel size (%d)\"; use %s", describe(c), value.From, tp, heads,
					link.Model.Dir, heads, tp, fittingSizes(heads, kvHeads, tp))
			case kvHeads > 0 && kvHeads%tp != 0 && tp%kvHeads != 0:
				// QKVParallelLinear splits the KV heads over the ranks, or
				// replicates them when there are fewer: either must divide.
				pass.Reportf(fieldOf(c.Path, value.Field), "%s: %s %d neither divides nor is a multiple of the %d "+
					"key-value heads of model %s (config.json num_key_value_heads): vLLM fails while it builds the "+
					"attention layers (\"is not divisible by\"); use %s", describe(c), value.From, tp, kvHeads,
					link.Model.Dir, fittingSizes(heads, kvHeads, tp))
			}
		}
		value, ok := args.Value(srv.ContextLength)
		if !ok || config.RopeScaling || config.MaxPositionEmbeddings <= 0 {
			continue
		}
		length, err := strconv.ParseInt(value.Value, 10, 64)
		if err != nil || length <= config.MaxPositionEmbeddings || allowsLongLength(args) {
			continue
		}
		pass.Reportf(fieldOf(c.Path, value.Field), "%s: %s %d is beyond the %d positions of model %s (config.json "+
			"max_position_embeddings, no rope scaling): vLLM refuses to start with \"User-specified max_model_len (%d) is "+
			"greater than the derived max_model_len\"; set %s to at most %d", describe(c), value.From, length,
			config.MaxPositionEmbeddings, link.Model.Dir, length, value.From, config.MaxPositionEmbeddings)
	}
	coverage.SkipIfNone(pass, "")
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
// that vLLM accepts: they divide the attention heads, and divide or are a
// multiple of the key-value heads (a count of 0 is not known).
func fittingSizes(heads, kvHeads, tp int64) string {
	fits := func(d int64) bool {
		return (heads == 0 || heads%d == 0) && (kvHeads == 0 || kvHeads%d == 0 || d%kvHeads == 0)
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
