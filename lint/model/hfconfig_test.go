package model

import (
	"reflect"
	"strings"
	"testing"
)

// llama31Config is meta-llama/Llama-3.1-8B-Instruct's config.json, cut to
// the fields that matter and a few that do not.
const llama31Config = `{
  "architectures": ["LlamaForCausalLM"],
  "head_dim": 128,
  "hidden_size": 4096,
  "max_position_embeddings": 131072,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "rope_scaling": {"factor": 8.0, "rope_type": "llama3"},
  "torch_dtype": "bfloat16",
  "vocab_size": 128256
}`

func TestParseHFConfig(t *testing.T) {
	tests := []struct {
		name string
		json string
		want *HFConfig
	}{
		{"Llama 3.1", llama31Config, &HFConfig{TorchDtype: "bfloat16", NumHiddenLayers: 32, NumAttentionHeads: 32,
			NumKeyValueHeads: 8, HeadDim: 128, HiddenSize: 4096, MaxPositionEmbeddings: 131072, RopeScaling: true,
			ModelType: "llama", Rope: &Rope{Key: "rope_scaling", Type: "llama3", Factor: 8}}},
		{"YaRN in the older type key", `{"model_type": "qwen2", "max_position_embeddings": 32768, "seq_length": 32768,
			"rope_scaling": {"type": "yarn", "factor": 4, "original_max_position_embeddings": 32768}}`,
			&HFConfig{MaxPositionEmbeddings: 32768, RopeScaling: true, ModelType: "qwen2", LengthKeys: map[string]int64{"seq_length": 32768},
				Rope: &Rope{Key: "rope_scaling", Type: "yarn", Factor: 4, OriginalMaxPositionEmbeddings: 32768}}},
		{"rope parameters per layer type", `{"rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8},
			"sliding_attention": {"rope_type": "default"}}}`, &HFConfig{RopeScaling: true, Rope: &Rope{Key: "rope_parameters", Mixed: true}}},
		{"a length of an odd type is left out", `{"seq_len": "long", "model_max_length": 4096}`,
			&HFConfig{LengthKeys: map[string]int64{"model_max_length": 4096}}},
		{"compressed-tensors' older key", `{"compression_config": {"format": "pack-quantized"}}`,
			&HFConfig{Quantization: &Quantization{Method: "compressed-tensors"}}},
		{"AWQ", `{"torch_dtype": "float16", "num_hidden_layers": 48,
			"quantization_config": {"bits": 4, "group_size": 128, "quant_method": "awq", "version": "gemm", "zero_point": true}}`,
			&HFConfig{TorchDtype: "float16", NumHiddenLayers: 48, Quantization: &Quantization{Method: "awq", Bits: 4}}},
		{"bitsandbytes says 4-bit with a flag", `{"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true}}`,
			&HFConfig{Quantization: &Quantization{Method: "bitsandbytes", Bits: 4}}},
		{"fp8 gives no bits", `{"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}`,
			&HFConfig{Quantization: &Quantization{Method: "fp8"}}},
		{"the newer dtype key", `{"dtype": "bfloat16", "num_hidden_layers": 28}`,
			&HFConfig{TorchDtype: "bfloat16", NumHiddenLayers: 28}},
		{"a multimodal model's text_config", `{"torch_dtype": "bfloat16", "vision_config": {"num_hidden_layers": 27},
			"text_config": {"num_hidden_layers": 34, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
			"max_position_embeddings": 131072}}`,
			&HFConfig{TorchDtype: "bfloat16", NumHiddenLayers: 34, NumAttentionHeads: 8, NumKeyValueHeads: 4, HeadDim: 256,
				MaxPositionEmbeddings: 131072}},
		{"latent attention", `{"num_hidden_layers": 61, "kv_lora_rank": 512, "torch_dtype": "bfloat16"}`,
			&HFConfig{TorchDtype: "bfloat16", NumHiddenLayers: 61, KVLoraRank: 512}},
		{"null fields are unset", `{"head_dim": null, "num_hidden_layers": 2, "rope_scaling": null}`, &HFConfig{NumHiddenLayers: 2}},
		{"transformers 5's rope_parameters", `{"num_hidden_layers": 2, "rope_parameters": {"rope_type": "default"}}`,
			&HFConfig{NumHiddenLayers: 2, RopeScaling: true, Rope: &Rope{Key: "rope_parameters", Type: "default"}}},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			got, err := ParseHFConfig([]byte(test.json))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, test.want) {
				t.Errorf("got %+v (quantization %+v), want %+v", got, got.Quantization, test.want)
			}
		})
	}
	for _, bad := range []string{`not json`, `{"num_hidden_layers": "32"}`, `[1, 2]`} {
		if got, err := ParseHFConfig([]byte(bad)); err == nil {
			t.Errorf("ParseHFConfig(%s) = %+v, want an error", bad, got)
		}
	}
}

func TestLoadReadsHFConfig(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  *HFConfig
	}{
		{"a checkpoint", map[string]string{"config.json": llama31Config, "model.safetensors": safetensorsShard("lm_head")},
			&HFConfig{TorchDtype: "bfloat16", NumHiddenLayers: 32, NumAttentionHeads: 32, NumKeyValueHeads: 8, HeadDim: 128,
				HiddenSize: 4096, MaxPositionEmbeddings: 131072, RopeScaling: true, ModelType: "llama",
				Rope: &Rope{Key: "rope_scaling", Type: "llama3", Factor: 8}}},
		{"no config", map[string]string{"model.safetensors": safetensorsShard("lm_head")}, nil},
		{"not a config", map[string]string{"config.json": "{", "model.safetensors": safetensorsShard("lm_head")}, nil},
		{"too large to be one", map[string]string{"config.json": `{"x": "` + strings.Repeat("x", maxHFConfig) + `"}`}, nil},
		{"an LFS pointer", map[string]string{"config.json": lfsPointer, "model.safetensors": safetensorsShard("lm_head")}, nil},
		{"only in a subdir", map[string]string{"sub/config.json": llama31Config, "model.safetensors": safetensorsShard("lm_head")}, nil},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			m := loadBothWays(t, test.files, nil, LoadOptions{})
			if !reflect.DeepEqual(m.HFConfig, test.want) {
				t.Errorf("HFConfig = %+v, want %+v", m.HFConfig, test.want)
			}
		})
	}
}

// TestLoadFSHFConfigUnavailable: a config.json the FS does not hold, or
// holds in part, leaves the shape unknown and the file in Unread.
func TestLoadFSHFConfigUnavailable(t *testing.T) {
	padded := llama31Config + strings.Repeat(" ", 2048) // larger than an LFS pointer, read only here
	for name, held := range map[string]int{"not captured": -1, "captured in part": 100} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{"config.json": padded, "model.safetensors": safetensorsShard("lm_head")}
			m, err := LoadFS(capturedFS{MapFS: mapFS(files), held: map[string]int{"config.json": held}, err: errNotCaptured}, "m")
			if err != nil {
				t.Fatal(err)
			}
			if m.HFConfig != nil || !reflect.DeepEqual(m.Unread, []string{"config.json"}) || m.WeightBytes != 16 {
				t.Errorf("HFConfig %+v, unread %v, %d weight bytes; want no config, config.json unread, the weights read",
					m.HFConfig, m.Unread, m.WeightBytes)
			}
		})
	}
}

// FuzzParseHFConfig reads hostile configs: no panic, and a rope read has a
// type or says it is mixed.
func FuzzParseHFConfig(f *testing.F) {
	f.Add([]byte(llama31Config))
	f.Add([]byte(`{"text_config": {"rope_parameters": {"a": {"factor": 1e300}}}, "seq_len": 1e20}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		config, err := ParseHFConfig(data)
		if err != nil || config.Rope == nil {
			return
		}
		if config.Rope.OriginalMaxPositionEmbeddings < 0 {
			t.Errorf("rope %+v", config.Rope)
		}
	})
}
