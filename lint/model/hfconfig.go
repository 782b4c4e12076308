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
}

// Quantization is a quantized checkpoint's method and bits per weight.
type Quantization struct {
	Method string // "awq", "gptq", "fp8", "bitsandbytes", ...
	Bits   int64  // 0 when the config does not say
}

// hfConfigJSON is config.json as transformers writes it. Multimodal models
// keep the language model's shape under text_config.
type hfConfigJSON struct {
	TorchDtype            string `json:"torch_dtype"`
	Dtype                 string `json:"dtype"` // the name transformers 4.56 and later write
	NumHiddenLayers       int64  `json:"num_hidden_layers"`
	NumAttentionHeads     int64  `json:"num_attention_heads"`
	NumKeyValueHeads      int64  `json:"num_key_value_heads"`
	HeadDim               int64  `json:"head_dim"`
	HiddenSize            int64  `json:"hidden_size"`
	MaxPositionEmbeddings int64  `json:"max_position_embeddings"`
	KVLoraRank            int64  `json:"kv_lora_rank"`
	QuantizationConfig    *struct {
		QuantMethod string `json:"quant_method"`
		Bits        int64  `json:"bits"`
		LoadIn4bit  bool   `json:"load_in_4bit"`
		LoadIn8bit  bool   `json:"load_in_8bit"`
	} `json:"quantization_config"`
	TextConfig     *hfConfigJSON   `json:"text_config"`
	RopeScaling    json.RawMessage `json:"rope_scaling"`
	RopeParameters json.RawMessage `json:"rope_parameters"`
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
