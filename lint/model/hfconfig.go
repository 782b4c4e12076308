package model

import (
	"encoding/json"
	"io"
)

// HFConfigFile is the Hugging Face model config a checkpoint dir holds.
const HFConfigFile = "config.json"

// maxHFConfig bounds the config read into memory; real ones are a few KiB.
const maxHFConfig = 1 << 20

// HFConfig is what a Hugging Face config.json says of a model's precision
// and shape: what sizes its weights and its KV cache on a GPU. A field the
// file does not set is zero.
type HFConfig struct {
	// TorchDtype is the precision the weights were saved in ("bfloat16").
	TorchDtype            string
	NumHiddenLayers       int64
	NumAttentionHeads     int64
	NumKeyValueHeads      int64
	HeadDim               int64
	HiddenSize            int64
	MaxPositionEmbeddings int64
	// KVLoraRank is set by models with multi-head latent attention
	// (DeepSeek), whose KV cache is not layers × heads × head dim.
	KVLoraRank int64
	// Quantization is the checkpoint's quantization_config; nil when the
	// weights are not quantized.
	Quantization *Quantization
	// RopeScaling says the config scales its positions (rope_scaling or
	// rope_parameters), so the context a server derives may exceed
	// MaxPositionEmbeddings.
	RopeScaling bool
	// ModelType is the model_type of the config that holds the shape.
	ModelType string
	// Rope is what rope_scaling (or, without it, rope_parameters) says of
	// the scaling; nil when the config sets neither.
	Rope *Rope
	// LengthKeys are the other keys that bound a sequence's length that
	// the config sets (n_positions, max_seq_len, seq_length,
	// model_max_length, max_target_positions, max_sequence_length,
	// max_seq_length, seq_len), as positive integers.
	LengthKeys map[string]int64
}

// Rope is a config's RoPE scaling.
type Rope struct {
	// Key is the key that set it: rope_scaling or rope_parameters.
	Key string
	// Type is rope_type, else the older type key ("linear", "dynamic",
	// "yarn", "llama3", "longrope", "su", "mrope", "default").
	Type string
	// Factor is the scaling factor, 0 when unset.
	Factor float64
	// OriginalMaxPositionEmbeddings is YaRN's original length, 0 when unset.
	OriginalMaxPositionEmbeddings int64
	// Mixed says the per-layer-type parameters (transformers 5's nested
	// rope_parameters) disagree in type or factor.
	Mixed bool
}

// lengthKeys are the keys besides max_position_embeddings that vLLM's
// _get_and_verify_max_len (vllm/config/model.py) reads as a bound.
var lengthKeys = []string{"n_positions", "max_seq_len", "seq_length", "model_max_length", "max_target_positions",
	"max_sequence_length", "max_seq_length", "seq_len"}

// Quantization is a quantized checkpoint's method and bits per weight.
type Quantization struct {
	Method string // "awq", "gptq", "fp8", "bitsandbytes", ...
	Bits   int64  // 0 when the config does not say
}

// hfConfigJSON is config.json as transformers writes it. Multimodal models
// keep the language model's shape under text_config.
type hfConfigJSON struct {
	TorchDtype            string            `json:"torch_dtype"`
	Dtype                 string            `json:"dtype"` // the name transformers 4.56 and later write
	NumHiddenLayers       int64             `json:"num_hidden_layers"`
	NumAttentionHeads     int64             `json:"num_attention_heads"`
	NumKeyValueHeads      int64             `json:"num_key_value_heads"`
	HeadDim               int64             `json:"head_dim"`
	HiddenSize            int64             `json:"hidden_size"`
	MaxPositionEmbeddings int64             `json:"max_position_embeddings"`
	KVLoraRank            int64             `json:"kv_lora_rank"`
	QuantizationConfig    *quantizationJSON `json:"quantization_config"`
	// CompressionConfig is the older key of compressed-tensors
	// checkpoints, which vLLM reads when quantization_config is not set.
	CompressionConfig *quantizationJSON `json:"compression_config"`
	TextConfig        *hfConfigJSON     `json:"text_config"`
	RopeScaling       json.RawMessage   `json:"rope_scaling"`
	RopeParameters    json.RawMessage   `json:"rope_parameters"`
}

type quantizationJSON struct {
	QuantMethod string `json:"quant_method"`
	Bits        int64  `json:"bits"`
	LoadIn4bit  bool   `json:"load_in_4bit"`
	LoadIn8bit  bool   `json:"load_in_8bit"`
}

// ParseHFConfig reads a config.json. Fields of unexpected types fail it.
func ParseHFConfig(data []byte) (*HFConfig, error) {
	var raw hfConfigJSON
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	shape := &raw
	if raw.NumHiddenLayers == 0 && raw.TextConfig != nil {
		shape = raw.TextConfig
	}
	config := &HFConfig{
		TorchDtype:            firstSet(raw.TorchDtype, raw.Dtype, shape.TorchDtype, shape.Dtype),
		NumHiddenLayers:       shape.NumHiddenLayers,
		NumAttentionHeads:     shape.NumAttentionHeads,
		NumKeyValueHeads:      shape.NumKeyValueHeads,
		HeadDim:               shape.HeadDim,
		HiddenSize:            shape.HiddenSize,
		MaxPositionEmbeddings: shape.MaxPositionEmbeddings,
		KVLoraRank:            shape.KVLoraRank,
		RopeScaling:           setJSON(shape.RopeScaling) || setJSON(shape.RopeParameters),
	}
	readLengths(data, config, shape == raw.TextConfig)
	if raw.QuantizationConfig == nil && raw.CompressionConfig != nil {
		raw.QuantizationConfig = raw.CompressionConfig
		raw.QuantizationConfig.QuantMethod = firstSet(raw.QuantizationConfig.QuantMethod, "compressed-tensors")
	}
	if q := raw.QuantizationConfig; q != nil {
		config.Quantization = &Quantization{Method: q.QuantMethod, Bits: q.Bits}
		switch {
		case q.Bits == 0 && q.LoadIn4bit:
			config.Quantization.Bits = 4
		case q.Bits == 0 && q.LoadIn8bit:
			config.Quantization.Bits = 8
		}
	}
	return config, nil
}

// readLengths reads the model type, the rope scaling and the length keys
// of the config that holds the shape, leniently: a field of an unexpected
// type is left unset.
func readLengths(data []byte, config *HFConfig, fromTextConfig bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return
	}
	top := fields
	if fromTextConfig {
		fields = nil
		if json.Unmarshal(top["text_config"], &fields) != nil {
			return
		}
	}
	for _, source := range []map[string]json.RawMessage{fields, top} {
		if config.ModelType == "" {
			_ = json.Unmarshal(source["model_type"], &config.ModelType)
		}
	}
	for _, key := range lengthKeys {
		var n float64
		if json.Unmarshal(fields[key], &n) == nil && n >= 1 && n <= 1<<40 && n == float64(int64(n)) {
			if config.LengthKeys == nil {
				config.LengthKeys = map[string]int64{}
			}
			config.LengthKeys[key] = int64(n)
		}
	}
	key := "rope_scaling"
	if !setJSON(fields[key]) {
		key = "rope_parameters"
	}
	if raw := fields[key]; setJSON(raw) {
		config.Rope = parseRope(raw)
		config.Rope.Key = key
	}
}

// ropeJSON is one set of RoPE parameters.
type ropeJSON struct {
	RopeType                      string  `json:"rope_type"`
	Type                          string  `json:"type"`
	Factor                        float64 `json:"factor"`
	OriginalMaxPositionEmbeddings float64 `json:"original_max_position_embeddings"`
}

// parseRope reads rope_scaling or rope_parameters: one set of parameters,
// or one per layer type (transformers 5), which vLLM takes to agree.
func parseRope(raw json.RawMessage) *Rope {
	var flat ropeJSON
	if json.Unmarshal(raw, &flat) == nil && (flat.RopeType != "" || flat.Type != "" || flat.Factor != 0) {
		return flat.rope()
	}
	var layers map[string]ropeJSON
	if json.Unmarshal(raw, &layers) != nil || len(layers) == 0 {
		return &Rope{Mixed: true} // not parameters this reader knows
	}
	var rope *Rope
	for _, layer := range layers {
		this := layer.rope()
		if rope != nil && (this.Type != rope.Type || this.Factor != rope.Factor) {
			return &Rope{Mixed: true}
		}
		rope = this
	}
	return rope
}

func (r ropeJSON) rope() *Rope {
	rope := &Rope{Type: firstSet(r.RopeType, r.Type), Factor: r.Factor}
	if r.OriginalMaxPositionEmbeddings >= 1 && r.OriginalMaxPositionEmbeddings <= 1<<40 {
		rope.OriginalMaxPositionEmbeddings = int64(r.OriginalMaxPositionEmbeddings)
	}
	return rope
}

// setJSON reports whether a raw JSON field is written and not null.
func setJSON(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

func firstSet(values ...string) string {
	for _, value := range values {
		if value != "" {
			return value
		}
	}
	return ""
}

// readHFConfig reads the dir's config.json into Model.HFConfig. One that
// is too large, not a config or not held by the FS leaves it nil: the
// model's shape is then unknown, which is no problem of the model.
func (l *loader) readHFConfig() error {
	file := l.tree.file(HFConfigFile)
	if file == nil || file.LFSPointer || file.Size > maxHFConfig {
		return nil
	}
	f, err := l.tree.open(file.Path)
	if err != nil {
		return l.fileError(file.Path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxHFConfig))
	if l.unread(f) {
		return nil
	}
	if err != nil {
		return l.fileError(file.Path, err)
	}
	l.model.HFConfig, _ = ParseHFConfig(data)
	return nil
}
