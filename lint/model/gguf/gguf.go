// Package gguf reads the header of a GGUF file (llama.cpp, Ollama): the
// magic and version, the metadata key-value pairs and the tensor infos,
// their dimensions and ggml types. From those it computes the exact size
// of the weights and their parameter count, and it keeps the metadata that
// sizes a KV cache (block_count, head_count_kv, embedding_length,
// context_length of the model's architecture). It reads the header only,
// never the tensor data, and every count and length in the header is
// checked against the file's size before anything is allocated.
//
// Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sort"
	"strings"

	"github.com/modellint/modellint/lint/model/modelfile"
)

// FormatName starts the text of the modelfile.Error values this package
// returns.
const FormatName = "invalid GGUF file"

// Bounds on what the reader accepts. Real headers hold a tokenizer's
// vocabulary (some 150k strings, a few MiB) and a few thousand tensors.
const (
	// MaxHeader is the most header bytes read.
	MaxHeader = 256 << 20
	// maxString bounds one key or string value.
	maxString = 1 << 20
	// maxDims is ggml's GGML_MAX_DIMS.
	maxDims = 4
	// maxArrayDepth bounds arrays of arrays.
	maxArrayDepth = 3
	// defaultAlignment is GGUF_DEFAULT_ALIGNMENT.
	defaultAlignment = 32
	// tokenEmbedding is llama.cpp's name of the token embedding tensor.
	tokenEmbedding = "token_embd.weight"
)

// File is what a GGUF header says.
type File struct {
	Version     uint32
	TensorCount int64
	// Parameters is the number of elements of all tensors, WeightBytes the
	// bytes their data takes (ggml block sizes).
	Parameters  int64
	WeightBytes int64
	// Size is the least size of the file: its header, padded to the
	// alignment, and the tensor data up to the end of the last tensor.
	Size int64
	// Types are the ggml types the tensors use, sorted ("Q4_K", "F32").
	Types []string
	// MatrixBytes are the bytes of the 2-D weight matrices by ggml type,
	// the token embedding left out: what llama.cpp multiplies by, and so
	// what its CPU backend may repack into buffers of its own. The token
	// embedding is a table it reads rows of.
	MatrixBytes map[string]int64
	// Architecture is general.architecture ("llama", "qwen2"), and the
	// shape below is read from the keys prefixed with it; 0 when unset.
	Architecture    string
	BlockCount      int64
	ContextLength   int64
	EmbeddingLength int64
	HeadCount       int64
	HeadCountKV     int64
	// KeyLength and ValueLength are attention.key_length/value_length, set
	// when the head dim is not embedding_length / head_count.
	KeyLength   int64
	ValueLength int64
	// SlidingWindow is attention.sliding_window: layers that attend to
	// that many tokens, whose cache llama.cpp sizes by it, not the context.
	SlidingWindow int64
	// KVLoraRank is attention.kv_lora_rank: latent attention (DeepSeek),
	// which caches a compressed KV.
	KVLoraRank int64
	// Recurrent says some layers hold a state instead of a KV cache (the
	// architecture has ssm., wkv. or shortconv. keys, or a
	// full_attention_interval): block_count overstates the cache.
	Recurrent bool
	// SplitCount is split.count of a model split over files
	// (model-00001-of-00003.gguf); 0 when unsplit.
	SplitCount int64
}

// ValueDim is the per-head size of values: attention.value_length, else
// the keys' HeadDim.
func (f *File) ValueDim() int64 {
	if f.ValueLength > 0 {
		return f.ValueLength
	}
	return f.HeadDim()
}

// HeadDim is the per-head size of keys: attention.key_length, else
// embedding_length / head_count; 0 when unknown.
func (f *File) HeadDim() int64 {
	if f.KeyLength > 0 {
		return f.KeyLength
	}
	if f.HeadCount > 0 {
		return f.EmbeddingLength / f.HeadCount
	}
	return 0
}

// ggmlType is a tensor type's block: elements and bytes.
type ggmlType struct {
	name          string
	block, blockB int64
}

// ggmlTypes are ggml's types by number (enum ggml_type in ggml.h) with
// their block sizes (type_traits in ggml.c, GGML_QUANT_SIZES in gguf-py).
// Numbers ggml removed are absent and fail the read, as they fail llama.cpp.
var ggmlTypes = map[uint32]ggmlType{
	0: {"F32", 1, 4}, 1: {"F16", 1, 2}, 2: {"Q4_0", 32, 18}, 3: {"Q4_1", 32, 20},
	6: {"Q5_0", 32, 22}, 7: {"Q5_1", 32, 24}, 8: {"Q8_0", 32, 34}, 9: {"Q8_1", 32, 36},
	10: {"Q2_K", 256, 84}, 11: {"Q3_K", 256, 110}, 12: {"Q4_K", 256, 144}, 13: {"Q5_K", 256, 176},
	14: {"Q6_K", 256, 210}, 15: {"Q8_K", 256, 292}, 16: {"IQ2_XXS", 256, 66}, 17: {"IQ2_XS", 256, 74},
	18: {"IQ3_XXS", 256, 98}, 19: {"IQ1_S", 256, 50}, 20: {"IQ4_NL", 32, 18}, 21: {"IQ3_S", 256, 110},
	22: {"IQ2_S", 256, 82}, 23: {"IQ4_XS", 256, 136}, 24: {"I8", 1, 1}, 25: {"I16", 1, 2},
	26: {"I32", 1, 4}, 27: {"I64", 1, 8}, 28: {"F64", 1, 8}, 29: {"IQ1_M", 256, 56},
	30: {"BF16", 1, 2}, 34: {"TQ1_0", 256, 54}, 35: {"TQ2_0", 256, 66}, 39: {"MXFP4", 32, 17},
}

// Metadata value types (enum gguf_type).
const (
	typeUint8 uint32 = iota
	typeInt8
	typeUint16
	typeInt16
	typeUint32
	typeInt32
	typeFloat32
	typeBool
	typeString
	typeArray
	typeUint64
	typeInt64
	typeFloat64
)

// fixedSizes are the byte sizes of the scalar value types.
var fixedSizes = map[uint32]int64{
	typeUint8: 1, typeInt8: 1, typeUint16: 2, typeInt16: 2, typeUint32: 4, typeInt32: 4,
	typeFloat32: 4, typeBool: 1, typeUint64: 8, typeInt64: 8, typeFloat64: 8,
}

// reader reads the header sequentially, never past limit bytes.
type reader struct {
	r       *bufio.Reader
	pos     int64
	limit   int64
	version uint32
}

func invalid(format string, args ...any) error {
	return modelfile.Invalidf(FormatName, "%s", fmt.Sprintf(format, args...))
}

// errShort is a header that runs past the end of the file (or MaxHeader).
var errShort = errors.New("short")

func (r *reader) bytes(n int64) ([]byte, error) {
	if n < 0 || n > r.limit-r.pos {
		return nil, errShort
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r.r, buf); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errShort
		}
		return nil, err
	}
	r.pos += n
	return buf, nil
}

func (r *reader) skip(n int64) error {
	if n < 0 || n > r.limit-r.pos {
		return errShort
	}
	if _, err := r.r.Discard(int(n)); err != nil {
		if errors.Is(err, io.EOF) {
			return errShort
		}
		return err
	}
	r.pos += n
	return nil
}

func (r *reader) u32() (uint32, error) {
	b, err := r.bytes(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (r *reader) u64() (uint64, error) {
	b, err := r.bytes(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// count reads a count or length (uint64 since version 2).
func (r *reader) count() (int64, error) {
	n, err := r.u64()
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt64 {
		return 0, errShort
	}
	return int64(n), nil
}

func (r *reader) str() (string, error) {
	n, err := r.count()
	if err != nil {
		return "", err
	}
	if n > maxString {
		return "", invalid("a string of %d bytes, more than the %d a header string may have", n, maxString)
	}
	b, err := r.bytes(n)
	return string(b), err
}

// Read reads the header of a GGUF file of size bytes.
func Read(ra io.ReaderAt, size int64) (*File, error) {
	r := &reader{r: bufio.NewReaderSize(io.NewSectionReader(ra, 0, size), 64<<10), limit: min(size, MaxHeader)}
	f, err := r.read(size)
	if errors.Is(err, errShort) {
		if size > MaxHeader && r.limit == MaxHeader {
			return nil, invalid("the header is longer than the %d MiB modellint reads", MaxHeader>>20)
		}
		return nil, invalid("the file ends inside its header at byte %d (a truncated download?)", r.pos)
	}
	return f, err
}

func (r *reader) read(size int64) (*File, error) {
	magic, err := r.bytes(4)
	if err != nil {
		return nil, invalid("the file is %d bytes, too short for the GGUF magic", size)
	}
	if string(magic) != "GGUF" {
		return nil, invalid("the file starts with %q, not the GGUF magic (a Git LFS pointer, or another format?)", magic)
	}
	if r.version, err = r.u32(); err != nil {
		return nil, err
	}
	if r.version < 2 || r.version > 3 {
		if r.version&0xffff == 0 && r.version != 0 {
			return nil, invalid("version %d: the file is big-endian, which llama.cpp reads only on big-endian machines", bits.ReverseBytes32(r.version))
		}
		return nil, invalid("version %d: llama.cpp reads versions 2 and 3 (GGUFv1 is no longer supported)", r.version)
	}
	f := &File{Version: r.version}
	if f.TensorCount, err = r.count(); err != nil {
		return nil, err
	}
	kvCount, err := r.count()
	if err != nil {
		return nil, err
	}
	// Each pair takes at least 12 bytes (key length and value type), each tensor 24.
	if kvCount > (r.limit-r.pos)/12 || f.TensorCount > (r.limit-r.pos)/24 {
		return nil, errShort
	}
	alignment := int64(defaultAlignment)
	numbers := map[string]int64{}
	for range kvCount {
		key, err := r.str()
		if err != nil {
			return nil, err
		}
		valueType, err := r.u32()
		if err != nil {
			return nil, err
		}
		value, err := r.value(valueType, 0)
		if err != nil {
			return nil, fmt.Errorf("%w (key %q)", err, key)
		}
		if key == "general.alignment" {
			n, ok := value.(int64)
			if !ok || n <= 0 || n&(n-1) != 0 {
				return nil, invalid("general.alignment is %v, not a power of two", value)
			}
			alignment = n
		}
		f.set(key, value, numbers)
	}
	f.setShape(numbers)
	types := map[string]bool{}
	var dataEnd int64
	for range f.TensorCount {
		name, err := r.str()
		if err != nil {
			return nil, err
		}
		dims, err := r.u32()
		if err != nil {
			return nil, err
		}
		if dims == 0 || dims > maxDims {
			return nil, invalid("tensor %q has %d dimensions; ggml allows 1 to %d", name, dims, maxDims)
		}
		elements := int64(1)
		var first int64
		for d := range dims {
			n, err := r.count()
			if err != nil {
				return nil, err
			}
			if d == 0 {
				first = n
			}
			hi, lo := bits.Mul64(uint64(elements), uint64(n))
			if hi != 0 || lo > math.MaxInt64 {
				return nil, invalid("tensor %q has more elements than fit in 64 bits", name)
			}
			elements = int64(lo)
		}
		number, err := r.u32()
		if err != nil {
			return nil, err
		}
		t, ok := ggmlTypes[number]
		if !ok {
			return nil, invalid("tensor %q has ggml type %d, which ggml does not define (a newer or removed type)", name, number)
		}
		if first%t.block != 0 {
			return nil, invalid("tensor %q: its first dimension %d is not a multiple of %s's block of %d", name, first, t.name, t.block)
		}
		offset, err := r.u64()
		if err != nil {
			return nil, err
		}
		bytes := elements / t.block * t.blockB
		if elements > 0 && bytes/t.blockB != elements/t.block || offset > math.MaxInt64 || int64(offset)%alignment != 0 {
			return nil, invalid("tensor %q: offset %d and size are out of range or not aligned to %d", name, offset, alignment)
		}
		if end := int64(offset) + bytes; end < int64(offset) {
			return nil, invalid("tensor %q ends past 2^63 bytes", name)
		} else if end > dataEnd {
			dataEnd = end
		}
		f.Parameters += elements
		f.WeightBytes += bytes
		if f.Parameters < 0 || f.WeightBytes < 0 {
			return nil, invalid("the tensors hold more than 2^63 elements or bytes")
		}
		types[t.name] = true
		if dims == 2 && name != tokenEmbedding {
			if f.MatrixBytes == nil {
				f.MatrixBytes = map[string]int64{}
			}
			f.MatrixBytes[t.name] += bytes
		}
	}
	dataStart := (r.pos + alignment - 1) / alignment * alignment
	if dataStart > size-dataEnd {
		return nil, invalid("the tensors end at byte %d, past the %d-byte file (a truncated download?)", dataStart+dataEnd, size)
	}
	f.Size = dataStart + dataEnd
	for name := range types {
		f.Types = append(f.Types, name)
	}
	sort.Strings(f.Types)
	return f, nil
}

// value reads one metadata value; integers come back as int64, strings as
// string, arrays as perLayer; floats and the elements of arrays are skipped.
func (r *reader) value(valueType uint32, depth int) (any, error) {
	if n, ok := fixedSizes[valueType]; ok {
		b, err := r.bytes(n)
		if err != nil {
			return nil, err
		}
		switch valueType {
		case typeUint8:
			return int64(b[0]), nil
		case typeInt8:
			return int64(int8(b[0])), nil
		case typeUint16:
			return int64(binary.LittleEndian.Uint16(b)), nil
		case typeInt16:
			return int64(int16(binary.LittleEndian.Uint16(b))), nil
		case typeUint32:
			return int64(binary.LittleEndian.Uint32(b)), nil
		case typeInt32:
			return int64(int32(binary.LittleEndian.Uint32(b))), nil
		case typeUint64:
			if v := binary.LittleEndian.Uint64(b); v <= math.MaxInt64 {
				return int64(v), nil
			}
			return nil, nil
		case typeInt64:
			return int64(binary.LittleEndian.Uint64(b)), nil
		}
		return nil, nil
	}
	switch valueType {
	case typeString:
		return r.str()
	case typeArray:
		if depth >= maxArrayDepth {
			return nil, invalid("arrays nested deeper than %d", maxArrayDepth)
		}
		elementType, err := r.u32()
		if err != nil {
			return nil, err
		}
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		if size, ok := fixedSizes[elementType]; ok {
			if n > (r.limit-r.pos)/size {
				return nil, errShort
			}
			return perLayer{}, r.skip(n * size)
		}
		if elementType != typeString && elementType != typeArray {
			return nil, invalid("an array of value type %d, which GGUF does not define", elementType)
		}
		if n > (r.limit-r.pos)/8 {
			return nil, errShort // each element takes at least its 8-byte length
		}
		// The values of a head_count array (per-layer KV heads) are not kept:
		// such a key reads as unset.
		for range n {
			if _, err := r.value(elementType, depth+1); err != nil {
				return nil, err
			}
		}
		return perLayer{}, nil
	}
	return nil, invalid("value type %d, which GGUF does not define", valueType)
}

// perLayer is an array value: a key such as head_count_kv that holds one
// value per layer.
type perLayer struct{}

// set keeps what a metadata pair says that the File holds.
func (f *File) set(key string, value any, numbers map[string]int64) {
	switch v := value.(type) {
	case string:
		if key == "general.architecture" {
			f.Architecture = v
		}
	case int64:
		if key == "split.count" {
			f.SplitCount = v
		}
		numbers[key] = v
	case perLayer:
		numbers[key] = -1
	}
}

// setShape reads the architecture's keys once every pair is read: they
// may come before general.architecture.
func (f *File) setShape(numbers map[string]int64) {
	if f.Architecture == "" {
		return
	}
	prefix := f.Architecture + "."
	f.BlockCount = numbers[prefix+"block_count"]
	f.ContextLength = numbers[prefix+"context_length"]
	f.EmbeddingLength = numbers[prefix+"embedding_length"]
	f.HeadCount = numbers[prefix+"attention.head_count"]
	f.HeadCountKV = numbers[prefix+"attention.head_count_kv"]
	f.KeyLength = numbers[prefix+"attention.key_length"]
	f.ValueLength = numbers[prefix+"attention.value_length"]
	f.SlidingWindow = numbers[prefix+"attention.sliding_window"]
	f.KVLoraRank = numbers[prefix+"attention.kv_lora_rank"]
	for key := range numbers {
		if rest, ok := strings.CutPrefix(key, prefix); ok && (strings.HasPrefix(rest, "ssm.") || strings.HasPrefix(rest, "wkv.") ||
			strings.HasPrefix(rest, "shortconv.") || rest == "full_attention_interval") {
			f.Recurrent = true
		}
	}
	if f.HeadCount < 0 || f.HeadCountKV < 0 {
		f.HeadCount, f.HeadCountKV = 0, 0 // heads per layer: no single figure sizes the cache
	}
}
