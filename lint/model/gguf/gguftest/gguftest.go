// Package gguftest writes GGUF headers for tests: a model's metadata and
// tensor infos, with the tensor data left for the caller to grow sparse.
// For tests only.
package gguftest

import (
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"strconv"
)

// Tensor is one tensor info: its dims (ggml order, the row length first)
// and its ggml type number.
type Tensor struct {
	Name string
	Dims []uint64
	Type uint32
}

// ggml type numbers and block sizes of the types the models here use.
const (
	F32  uint32 = 0
	F16  uint32 = 1
	Q8_0 uint32 = 8
	Q4_K uint32 = 12
	Q6_K uint32 = 14
	BF16 uint32 = 30
)

var blocks = map[uint32][2]uint64{F32: {1, 4}, F16: {1, 2}, Q8_0: {32, 34}, Q4_K: {256, 144}, Q6_K: {256, 210}, BF16: {1, 2}}

// File is a GGUF file to write: string and uint32 metadata, float32 metadata,
// per-layer arrays, one string array (the tokenizer's tokens), the tensors.
type File struct {
	Version  uint32
	Strings  map[string]string
	Uint32s  map[string]uint32
	Float32s map[string]float32
	Tokens   []string
	// PerLayer are uint32 arrays, one value a layer.
	PerLayer map[string][]uint32
	Tensors  []Tensor
}

// Header writes the header, padded to the data's alignment (32); Size is
// the whole file's size with the tensor data.
func (f File) Header() (header []byte, size int64) {
	out := []byte("GGUF")
	version := f.Version
	if version == 0 {
		version = 3
	}
	out = binary.LittleEndian.AppendUint32(out, version)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(f.Tensors)))
	pairs := len(f.Strings) + len(f.Uint32s) + len(f.Float32s) + len(f.PerLayer)
	if f.Tokens != nil {
		pairs++
	}
	out = binary.LittleEndian.AppendUint64(out, uint64(pairs))
	str := func(s string) {
		out = binary.LittleEndian.AppendUint64(out, uint64(len(s)))
		out = append(out, s...)
	}
	for _, key := range sortedKeys(f.Strings) {
		str(key)
		out = binary.LittleEndian.AppendUint32(out, 8)
		str(f.Strings[key])
	}
	for _, key := range sortedKeys(f.Uint32s) {
		str(key)
		out = binary.LittleEndian.AppendUint32(out, 4)
		out = binary.LittleEndian.AppendUint32(out, f.Uint32s[key])
	}
	for _, key := range sortedKeys(f.Float32s) {
		str(key)
		out = binary.LittleEndian.AppendUint32(out, 6)
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(f.Float32s[key]))
	}
	for _, key := range sortedKeys(f.PerLayer) {
		str(key)
		out = binary.LittleEndian.AppendUint32(out, 9)
		out = binary.LittleEndian.AppendUint32(out, 4)
		out = binary.LittleEndian.AppendUint64(out, uint64(len(f.PerLayer[key])))
		for _, v := range f.PerLayer[key] {
			out = binary.LittleEndian.AppendUint32(out, v)
		}
	}
	if f.Tokens != nil {
		str("tokenizer.ggml.tokens")
		out = binary.LittleEndian.AppendUint32(out, 9)
		out = binary.LittleEndian.AppendUint32(out, 8)
		out = binary.LittleEndian.AppendUint64(out, uint64(len(f.Tokens)))
		for _, token := range f.Tokens {
			str(token)
		}
	}
	var offset uint64
	for _, t := range f.Tensors {
		str(t.Name)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(t.Dims)))
		elements := uint64(1)
		for _, d := range t.Dims {
			out = binary.LittleEndian.AppendUint64(out, d)
			elements *= d
		}
		out = binary.LittleEndian.AppendUint32(out, t.Type)
		out = binary.LittleEndian.AppendUint64(out, offset)
		b, ok := blocks[t.Type]
		if !ok {
			b = [2]uint64{1, 1} // a type ggml does not define, for tests of its refusal
		}
		offset += (elements/b[0]*b[1] + 31) / 32 * 32
	}
	for len(out)%32 != 0 {
		out = append(out, 0)
	}
	return out, int64(len(out)) + int64(offset)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// Llama is a Llama-architecture model's shape.
type Llama struct {
	Name                           string
	Layers, Embedding, FeedForward uint64
	Heads, KVHeads                 uint32
	Vocabulary                     uint64
	ContextLength                  uint32
	// Weights is the ggml type of the large matrices, Sensitive of the
	// output and the value/down projections (Q6_K in a Q4_K_M file).
	Weights, Sensitive uint32
}

// File is the GGUF file llama.cpp's converter writes for the shape: the
// token embedding, per layer the attention and feed-forward matrices and
// their norms, the output norm and matrix.
func (l Llama) File() File {
	kvDim := l.Embedding / uint64(l.Heads) * uint64(l.KVHeads)
	tensors := []Tensor{{"token_embd.weight", []uint64{l.Embedding, l.Vocabulary}, l.Weights}}
	for i := range l.Layers {
		block := func(name string) string { return "blk." + strconv.FormatUint(i, 10) + "." + name + ".weight" }
		tensors = append(tensors,
			Tensor{block("attn_norm"), []uint64{l.Embedding}, F32},
			Tensor{block("attn_q"), []uint64{l.Embedding, l.Embedding}, l.Weights},
			Tensor{block("attn_k"), []uint64{l.Embedding, kvDim}, l.Weights},
			Tensor{block("attn_v"), []uint64{l.Embedding, kvDim}, l.Sensitive},
			Tensor{block("attn_output"), []uint64{l.Embedding, l.Embedding}, l.Weights},
			Tensor{block("ffn_norm"), []uint64{l.Embedding}, F32},
			Tensor{block("ffn_gate"), []uint64{l.Embedding, l.FeedForward}, l.Weights},
			Tensor{block("ffn_up"), []uint64{l.Embedding, l.FeedForward}, l.Weights},
			Tensor{block("ffn_down"), []uint64{l.FeedForward, l.Embedding}, l.Sensitive},
		)
	}
	tensors = append(tensors,
		Tensor{"output_norm.weight", []uint64{l.Embedding}, F32},
		Tensor{"output.weight", []uint64{l.Embedding, l.Vocabulary}, l.Sensitive})
	return File{
		Strings: map[string]string{"general.architecture": "llama", "general.name": l.Name},
		Uint32s: map[string]uint32{
			"llama.block_count": uint32(l.Layers), "llama.context_length": l.ContextLength,
			"llama.embedding_length": uint32(l.Embedding), "llama.feed_forward_length": uint32(l.FeedForward),
			"llama.attention.head_count": l.Heads, "llama.attention.head_count_kv": l.KVHeads,
			"general.alignment": 32,
		},
		Float32s: map[string]float32{"llama.rope.freq_base": 500000},
		Tokens:   []string{"<|begin_of_text|>", "<|end_of_text|>", "hello"},
		Tensors:  tensors,
	}
}
