package rules

import (
	"testing"

	"github.com/modellint/modellint/lint/model"
)

// TestDeriveMaxLen follows vLLM's _get_and_verify_max_len and SGLang's
// get_context_length over the rope types.
func TestDeriveMaxLen(t *testing.T) {
	rope := func(key, ropeType string, factor float64, original int64) *model.Rope {
		return &model.Rope{Key: key, Type: ropeType, Factor: factor, OriginalMaxPositionEmbeddings: original}
	}
	tests := []struct {
		name         string
		config       model.HFConfig
		vllm, sglang int64 // 0: not derived
	}{
		{"no rope", model.HFConfig{MaxPositionEmbeddings: 32768}, 32768, 32768},
		{"linear", model.HFConfig{MaxPositionEmbeddings: 4096, Rope: rope("rope_scaling", "linear", 4, 0)}, 16384, 16384},
		{"dynamic", model.HFConfig{MaxPositionEmbeddings: 4096, Rope: rope("rope_scaling", "dynamic", 2, 0)}, 8192, 8192},
		{"yarn scales the original length", model.HFConfig{MaxPositionEmbeddings: 32768,
			Rope: rope("rope_scaling", "yarn", 4, 32768)}, 131072, 32768},
		{"yarn without an original length", model.HFConfig{MaxPositionEmbeddings: 4096,
			Rope: rope("rope_scaling", "yarn", 4, 0)}, 16384, 16384},
		{"llama3 is not scaled", model.HFConfig{MaxPositionEmbeddings: 131072, Rope: rope("rope_scaling", "llama3", 8, 8192)},
			131072, 131072},
		{"longrope (su) is not scaled by vLLM", model.HFConfig{MaxPositionEmbeddings: 131072,
			Rope: rope("rope_scaling", "su", 32, 4096)}, 131072, 131072},
		{"mrope has no factor", model.HFConfig{MaxPositionEmbeddings: 32768, Rope: rope("rope_scaling", "mrope", 0, 0)},
			32768, 32768},
		{"Gemma 3's length is already scaled", model.HFConfig{MaxPositionEmbeddings: 131072, ModelType: "gemma3_text",
			Rope: rope("rope_scaling", "linear", 8, 0)}, 131072, 1048576},
		{"the smallest key for vLLM, the first for SGLang", model.HFConfig{MaxPositionEmbeddings: 8192,
			LengthKeys: map[string]int64{"seq_length": 4096}}, 4096, 4096},
		{"model_max_length over the others", model.HFConfig{MaxPositionEmbeddings: 2048,
			LengthKeys: map[string]int64{"model_max_length": 8192}}, 8192, 8192},
		{"SGLang reads rope_scaling only", model.HFConfig{MaxPositionEmbeddings: 4096,
			Rope: rope("rope_parameters", "linear", 2, 0)}, 8192, 4096},
		{"disagreeing layers", model.HFConfig{MaxPositionEmbeddings: 4096, Rope: &model.Rope{Key: "rope_parameters", Mixed: true}},
			0, 4096},
		{"no length", model.HFConfig{}, 0, 0},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			derived, ok := deriveMaxLen(&test.config)
			if got := map[bool]int64{true: derived.tokens}[ok]; got != test.vllm {
				t.Errorf("vLLM derives %d (%s), want %d", got, derived.how, test.vllm)
			}
			derived, ok = sglangContextLength(&test.config)
			if got := map[bool]int64{true: derived.tokens}[ok]; got != test.sglang {
				t.Errorf("SGLang derives %d (%s), want %d", got, derived.how, test.sglang)
			}
		})
	}
}

// TestFittingSizes names the sizes nearest a refused one: vLLM and SGLang
// replicate key-value heads over more ranks than there are, TGI does not.
func TestFittingSizes(t *testing.T) {
	tests := []struct {
		heads, kvHeads, tp int64
		replicatesKV       bool
		want               string
	}{
		{28, 4, 8, true, "4 or 28"},
		{32, 8, 3, true, "2 or 4"},
		{32, 2, 3, true, "2 or 4"},
		{32, 2, 3, false, "2"},
		{32, 0, 5, false, "4 or 8"},
	}
	for _, test := range tests {
		if got := fittingSizes(test.heads, test.kvHeads, test.tp, test.replicatesKV); got != test.want {
			t.Errorf("fittingSizes(%d heads, %d KV heads, TP %d, replicated %v) = %q, want %q", test.heads, test.kvHeads,
				test.tp, test.replicatesKV, got, test.want)
		}
	}
}
