// Package safetensors reads the header of a .safetensors file — an 8-byte
// little-endian length and a JSON table of tensors — and checks it the way
// the safetensors library does on load, so a file that would fail there
// fails here with the same error name. It reads 8 + length bytes and never
// the tensor data; the JSON index of sharded checkpoints
// (model.safetensors.index.json) is read too.
package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"unicode/utf8"
)

// MaxHeader is the safetensors library's MAX_HEADER_SIZE: a longer header
// is refused with HeaderTooLarge (it is also what a Git LFS pointer or a
// truncated download decodes to).
const MaxHeader = 100_000_000

// MaxIndex bounds the JSON index read into memory.
const MaxIndex = 64 << 20

// ErrInvalid is wrapped by errors about the content; the message starts
// with the safetensors library's error name (HeaderTooLarge,
// MetadataIncompleteBuffer, ...) so users can search for it.
var ErrInvalid = errors.New("invalid safetensors file")

// dtypeBits are the element sizes of the dtypes the format defines.
var dtypeBits = map[string]uint64{
	"BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8,
	"I16": 16, "U16": 16, "F16": 16, "BF16": 16,
	"I32": 32, "U32": 32, "F32": 32,
	"I64": 64, "U64": 64, "F64": 64, "C64": 64,
	"F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
}

// File is what a safetensors header says.
type File struct {
	HeaderLength uint64
	// Tensors are the tensor names, sorted.
	Tensors []string
	// Parameters is the number of elements of all tensors.
	Parameters int64
	// ParameterBytes is the size of the data buffer the tensors span.
	ParameterBytes int64
	// DTypes are the dtypes used, sorted.
	DTypes   []string
	Metadata map[string]string
}

// tensorInfo is one header entry.
type tensorInfo struct {
	DType       string             `json:"dtype"`
	Shape       []json.Number      `json:"shape"`
	DataOffsets [2]json.RawMessage `json:"data_offsets"`
}

// Read checks the header of a file of size bytes. When the header itself
// is sound but the file's size does not match it (MetadataIncompleteBuffer),
// the header's facts are returned with the error.
func Read(r io.ReaderAt, size int64) (*File, error) {
	if size < 8 {
		return nil, invalid("HeaderTooSmall", "the file is %d bytes, fewer than the 8-byte header length", size)
	}
	var prefix [8]byte
	if _, err := io.ReadFull(io.NewSectionReader(r, 0, int64(len(prefix[:]))), prefix[:]); err != nil {
		return nil, err
	}
	length := binary.LittleEndian.Uint64(prefix[:])
	if length > MaxHeader {
		return nil, invalid("HeaderTooLarge", "the header length is %d bytes, more than the %d the library accepts (a Git LFS pointer or a truncated download?)", length, MaxHeader)
	}
	if length > uint64(size-8) {
		return nil, invalid("InvalidHeaderLength", "the header length is %d bytes but the file has only %d after it (truncated file?)", length, size-8)
	}
	header := make([]byte, length)
	if _, err := io.ReadFull(io.NewSectionReader(r, 8, int64(len(header))), header); err != nil {
		return nil, err
	}
	file, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	file.HeaderLength = length
	if end := 8 + int64(length) + file.ParameterBytes; end != size {
		return file, invalid("MetadataIncompleteBuffer", "the header describes %d bytes of tensor data, so the file should be %d bytes, but it is %d (truncated or padded file?)", file.ParameterBytes, end, size)
	}
	return file, nil
}

type span struct {
	name       string
	begin, end uint64
}

func parseHeader(header []byte) (*File, error) {
	if !utf8.Valid(header) {
		return nil, invalid("InvalidHeader", "the header is not UTF-8")
	}
	if len(header) == 0 || header[0] != '{' {
		return nil, invalid("InvalidHeaderStart", "the header does not start with '{'")
	}
	var entries map[string]json.RawMessage
	decoder := json.NewDecoder(bytes.NewReader(header))
	decoder.UseNumber()
	if err := decoder.Decode(&entries); err != nil {
		return nil, invalid("InvalidHeaderDeserialization", "%v", err)
	}
	if rest := bytes.TrimRight(header[decoder.InputOffset():], " "); len(rest) > 0 {
		return nil, invalid("InvalidHeaderDeserialization", "%d bytes of non-space after the JSON header", len(rest))
	}
	file := &File{}
	dtypes := map[string]bool{}
	var spans []span
	for name, raw := range entries {
		if name == "__metadata__" {
			if err := json.Unmarshal(raw, &file.Metadata); err != nil {
				return nil, invalid("InvalidHeaderDeserialization", "__metadata__ must map strings to strings: %v", err)
			}
			continue
		}
		var info tensorInfo
		tensorDecoder := json.NewDecoder(bytes.NewReader(raw))
		tensorDecoder.UseNumber()
		tensorDecoder.DisallowUnknownFields()
		if err := tensorDecoder.Decode(&info); err != nil {
			return nil, invalid("InvalidHeaderDeserialization", "tensor %q: %v", name, err)
		}
		bitsPerElement, ok := dtypeBits[info.DType]
		if !ok {
			return nil, invalid("InvalidHeaderDeserialization", "tensor %q has unknown dtype %q", name, info.DType)
		}
		elements := uint64(1)
		for _, dim := range info.Shape {
			size, err := strconv.ParseUint(dim.String(), 10, 64)
			if err != nil {
				return nil, invalid("InvalidHeaderDeserialization", "tensor %q has shape entry %s", name, dim)
			}
			hi, lo := bits.Mul64(elements, size)
			if hi != 0 {
				return nil, invalid("ValidationOverflow", "tensor %q has more elements than fit in 64 bits", name)
			}
			elements = lo
		}
		hi, totalBits := bits.Mul64(elements, bitsPerElement)
		if hi != 0 || elements > math.MaxInt64 {
			return nil, invalid("ValidationOverflow", "tensor %q is larger than 2^64 bits", name)
		}
		if totalBits%8 != 0 {
			return nil, invalid("MisalignedSlice", "tensor %q (%s %v) is %d bits, not a whole number of bytes", name, info.DType, info.Shape, totalBits)
		}
		begin, err1 := offset(info.DataOffsets[0])
		end, err2 := offset(info.DataOffsets[1])
		if err1 != nil || err2 != nil || begin > end {
			return nil, invalid("InvalidOffset", "tensor %q has data_offsets [%s, %s]", name, info.DataOffsets[0], info.DataOffsets[1])
		}
		if end-begin != totalBits/8 {
			return nil, invalid("TensorInvalidInfo", "tensor %q is %s %v, %d bytes, but its data_offsets span %d bytes", name, info.DType, info.Shape, totalBits/8, end-begin)
		}
		spans = append(spans, span{name: name, begin: begin, end: end})
		file.Tensors = append(file.Tensors, name)
		file.Parameters += int64(elements)
		if file.Parameters < 0 {
			return nil, invalid("ValidationOverflow", "more than 2^63 parameters")
		}
		dtypes[info.DType] = true
	}
	// The library requires the tensors, sorted by offset, to tile the data
	// buffer from 0 without gaps or overlaps.
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].begin != spans[j].begin {
			return spans[i].begin < spans[j].begin
		}
		return spans[i].name < spans[j].name
	})
	next := uint64(0)
	for _, s := range spans {
		if s.begin != next {
			return nil, invalid("InvalidOffset", "tensor %q starts at byte %d of the data buffer, expected %d (a gap or an overlap)", s.name, s.begin, next)
		}
		next = s.end
	}
	if next > math.MaxInt64 {
		return nil, invalid("ValidationOverflow", "the data buffer is larger than 2^63 bytes")
	}
	file.ParameterBytes = int64(next)
	sort.Strings(file.Tensors)
	for dtype := range dtypes {
		file.DTypes = append(file.DTypes, dtype)
	}
	sort.Strings(file.DTypes)
	return file, nil
}

func offset(raw json.RawMessage) (uint64, error) {
	return strconv.ParseUint(string(bytes.TrimSpace(raw)), 10, 64)
}

// Index is a sharded checkpoint's model.safetensors.index.json.
type Index struct {
	// TotalSize is metadata.total_size, -1 when absent.
	TotalSize int64
	// WeightMap maps each tensor to the shard file holding it.
	WeightMap map[string]string
}

// Shards are the distinct shard files the index names, sorted.
func (index *Index) Shards() []string {
	set := map[string]bool{}
	for _, shard := range index.WeightMap {
		set[shard] = true
	}
	shards := make([]string, 0, len(set))
	for shard := range set {
		shards = append(shards, shard)
	}
	sort.Strings(shards)
	return shards
}

// ReadIndex parses an index file's contents.
func ReadIndex(data []byte) (*Index, error) {
	var raw struct {
		Metadata  map[string]json.RawMessage `json:"metadata"`
		WeightMap map[string]string          `json:"weight_map"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: index: %v", ErrInvalid, err)
	}
	if raw.WeightMap == nil {
		return nil, fmt.Errorf("%w: index has no weight_map", ErrInvalid)
	}
	index := &Index{TotalSize: -1, WeightMap: raw.WeightMap}
	if total, ok := raw.Metadata["total_size"]; ok {
		// Writers differ (an integer, sometimes a float); any number will do.
		value, err := strconv.ParseFloat(string(bytes.TrimSpace(total)), 64)
		if err == nil && value >= 0 && value < math.MaxInt64 {
			index.TotalSize = int64(value)
		}
	}
	return index, nil
}

func invalid(name, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalid, name, fmt.Sprintf(format, args...))
}
