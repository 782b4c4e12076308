// Package checkpoint reads a TensorFlow checkpoint index — the
// variables/variables.index file of a SavedModel — without touching the
// data shards: the table (LevelDB's format, blocks optionally snappy
// compressed), its header entry and one entry per saved tensor, reduced to
// what is needed to check the shards: how many there are and how many bytes
// each must hold.
package checkpoint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"

	"github.com/klauspost/compress/snappy"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/modellint/modellint/lint/model/modelfile"
	"github.com/modellint/modellint/lint/model/tfdtype"
	"github.com/modellint/modellint/lint/model/wire"
)

// Table format constants (tensorflow/core/lib/io/format.h, table_format.txt).
const (
	footerSize     = 48
	tableMagic     = 0xdb4775248b80fb57
	blockTrailer   = 5 // compression type byte + masked crc32c
	noCompression  = 0
	snappyCompress = 1
)

// Limits on what a hostile index can make the reader hold. Real indexes
// carry a few hundred bytes per tensor.
const (
	// MaxBlock bounds one block, compressed or not.
	MaxBlock = 64 << 20
	// MaxShards bounds num_shards in the header.
	MaxShards = 1 << 16
	// maxKey bounds a tensor name.
	maxKey = 1 << 20
)

// FormatName starts the text of the modelfile.Error values this package
// returns.
const FormatName = "not a valid checkpoint index"

// Index is what a variables.index says.
type Index struct {
	NumShards int
	BigEndian bool
	// Tensors counts the saved tensors (entries other than the header).
	Tensors int
	// Bytes is the sum of the tensors' sizes in the data shards.
	Bytes int64
	// Parameters is the number of elements of the numeric tensors.
	Parameters int64
	// ShardEnds holds, for each shard, the offset just past the last
	// tensor stored in it: the least size the data file must have.
	ShardEnds []int64
}

// DataFile names shard k of n as TensorFlow writes it next to the index.
func DataFile(k, n int) string { return fmt.Sprintf("variables.data-%05d-of-%05d", k, n) }

// Read decodes an index of size bytes.
func Read(r io.ReaderAt, size int64) (*Index, error) {
	if size < footerSize {
		return nil, invalid("%d bytes is shorter than the %d-byte table footer (truncated file?)", size, footerSize)
	}
	footer := make([]byte, footerSize)
	if _, err := r.ReadAt(footer, size-footerSize); err != nil && !(errors.Is(err, io.EOF)) {
		return nil, err
	}
	if magic := binary.LittleEndian.Uint64(footer[40:]); magic != tableMagic {
		return nil, invalid("table magic number is %#x, not %#x (truncated or not an index)", magic, uint64(tableMagic))
	}
	_, n := protowire.ConsumeVarint(footer) // metaindex offset
	if n < 0 {
		return nil, invalid("bad footer")
	}
	rest := footer[n:]
	_, n = protowire.ConsumeVarint(rest) // metaindex size
	if n < 0 {
		return nil, invalid("bad footer")
	}
	indexHandle, _, err := decodeHandle(rest[n:])
	if err != nil {
		return nil, err
	}
	tableEnd := size - footerSize
	indexBlock, err := readBlock(r, indexHandle, tableEnd)
	if err != nil {
		return nil, fmt.Errorf("index block: %w", err)
	}
	index := &Index{}
	sawHeader := false
	var ends map[int64]int64
	err = forEachEntry(indexBlock, func(_, value []byte) error {
		handle, _, err := decodeHandle(value)
		if err != nil {
			return err
		}
		block, err := readBlock(r, handle, tableEnd)
		if err != nil {
			return fmt.Errorf("data block at %d: %w", handle.offset, err)
		}
		return forEachEntry(block, func(key, value []byte) error {
			if len(key) == 0 {
				sawHeader = true
				return index.readHeader(value)
			}
			entry, err := readEntry(value)
			if err != nil {
				return fmt.Errorf("entry %q: %w", truncate(key), err)
			}
			if ends == nil {
				ends = map[int64]int64{}
			}
			return index.add(entry, ends, key)
		})
	})
	if err != nil {
		return nil, err
	}
	if !sawHeader {
		return nil, invalid("no header entry (not a tensor bundle index)")
	}
	index.ShardEnds = make([]int64, index.NumShards)
	for shard, end := range ends {
		index.ShardEnds[shard] = end
	}
	return index, nil
}

// entry is the part of a BundleEntryProto the index needs.
type entry struct {
	dtype          uint64
	shape          []int64
	shard          int64
	offset, size   int64
	sliced         bool
	unknownElement bool
}

func (index *Index) readHeader(value []byte) error {
	err := message(value).Range(func(f wire.Field) error {
		if f.Type != protowire.VarintType {
			return nil
		}
		switch f.Number {
		case 1:
			if f.Varint == 0 || f.Varint > MaxShards {
				return invalid("header names %d shards", int64(f.Varint))
			}
			index.NumShards = int(f.Varint)
		case 2:
			index.BigEndian = f.Varint == 1
		}
		return nil
	})
	if err != nil {
		return badProto(err, "header")
	}
	if index.NumShards == 0 {
		return invalid("header names no shards")
	}
	return nil
}

func readEntry(value []byte) (*entry, error) {
	e := &entry{}
	err := message(value).Range(func(f wire.Field) error {
		switch {
		case f.Type == protowire.VarintType:
			switch f.Number {
			case 1:
				e.dtype = f.Varint
			case 3:
				e.shard = int64(f.Varint)
			case 4:
				e.offset = int64(f.Varint)
			case 5:
				e.size = int64(f.Varint)
			}
		case f.Type == protowire.BytesType && f.Number == 2:
			return e.readShape(f.Message())
		case f.Type == protowire.BytesType && f.Number == 7:
			e.sliced = true
		}
		return nil
	})
	if err != nil {
		return nil, badProto(err, "entry")
	}
	if e.offset < 0 || e.size < 0 || e.shard < 0 || e.offset > math.MaxInt64-e.size {
		return nil, invalid("offset %d and size %d are out of range", e.offset, e.size)
	}
	return e, nil
}

// readShape reads a TensorShapeProto's dims (dim=2 {size=1}).
func (e *entry) readShape(shape wire.Message) error {
	err := shape.Range(func(f wire.Field) error {
		if f.Number != 2 || f.Type != protowire.BytesType {
			return nil
		}
		size := int64(0)
		err := f.Message().Range(func(dim wire.Field) error {
			if dim.Number == 1 && dim.Type == protowire.VarintType {
				size = int64(dim.Varint)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if size < 0 {
			e.unknownElement = true
		}
		e.shape = append(e.shape, size)
		return nil
	})
	return badProto(err, "shape")
}

// message reads a protobuf value held in a block.
func message(value []byte) wire.Message {
	return wire.NewReader(bytes.NewReader(value), int64(len(value))).Root()
}

// badProto names the part of the index whose encoding is broken rather
// than passing on the wire error, whose offset counts from the start of one
// value and so would point nowhere useful in the file.
func badProto(err error, what string) error {
	if errors.Is(err, wire.ErrMalformed) {
		return invalid("bad %s", what)
	}
	return err
}

func (index *Index) add(e *entry, ends map[int64]int64, key []byte) error {
	if index.NumShards == 0 {
		// The header sorts first (its key is empty), so a tensor before it
		// means the table is not a bundle.
		return invalid("entry %q comes before the header", truncate(key))
	}
	index.Tensors++
	if e.sliced {
		return nil // a partitioned tensor: its slices are entries of their own
	}
	if e.shard >= int64(index.NumShards) {
		return invalid("tensor %q is stored in shard %d but the header says there are %d shards", truncate(key), e.shard, index.NumShards)
	}
	index.Bytes += e.size
	if end, ok := ends[e.shard]; !ok || e.offset+e.size > end {
		ends[e.shard] = e.offset + e.size
	}
	if tfdtype.Bits(e.dtype) > 0 && !e.unknownElement {
		elements := int64(1)
		for _, dim := range e.shape {
			hi, lo := bits.Mul64(uint64(elements), uint64(dim))
			if hi != 0 || lo > math.MaxInt64 {
				return invalid("tensor %q has more than 2^63 elements", truncate(key))
			}
			elements = int64(lo)
		}
		index.Parameters += elements
	}
	return nil
}

type handle struct{ offset, size int64 }

func decodeHandle(b []byte) (handle, int, error) {
	offset, n := protowire.ConsumeVarint(b)
	if n < 0 {
		return handle{}, 0, invalid("bad block handle")
	}
	size, m := protowire.ConsumeVarint(b[n:])
	if m < 0 {
		return handle{}, 0, invalid("bad block handle")
	}
	if offset > math.MaxInt64 || size > math.MaxInt64 {
		return handle{}, 0, invalid("block handle out of range")
	}
	return handle{offset: int64(offset), size: int64(size)}, n + m, nil
}

// readBlock reads, verifies and decompresses one block that must lie before
// tableEnd.
func readBlock(r io.ReaderAt, h handle, tableEnd int64) ([]byte, error) {
	if h.size > MaxBlock {
		return nil, invalid("block of %d bytes is larger than %d", h.size, MaxBlock)
	}
	if h.offset > tableEnd || h.size+blockTrailer > tableEnd-h.offset {
		return nil, invalid("block at %d (%d bytes) reaches past the end of the table at %d (truncated file?)", h.offset, h.size, tableEnd)
	}
	raw := make([]byte, h.size+blockTrailer)
	if _, err := r.ReadAt(raw, h.offset); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	contents, trailer := raw[:h.size], raw[h.size:]
	stored := binary.LittleEndian.Uint32(trailer[1:])
	if got := crc32.Checksum(raw[:h.size+1], castagnoli); unmask(stored) != got {
		return nil, invalid("block at %d fails its checksum (corrupt or truncated file)", h.offset)
	}
	switch trailer[0] {
	case noCompression:
		return contents, nil
	case snappyCompress:
		length, err := snappy.DecodedLen(contents)
		if err != nil {
			return nil, invalid("block at %d: %v", h.offset, err)
		}
		if length > MaxBlock {
			return nil, invalid("block at %d decompresses to %d bytes, more than %d", h.offset, length, MaxBlock)
		}
		decoded, err := snappy.Decode(make([]byte, length), contents)
		if err != nil {
			return nil, invalid("block at %d: %v", h.offset, err)
		}
		return decoded, nil
	}
	return nil, invalid("block at %d has unknown compression type %d", h.offset, trailer[0])
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// unmask undoes the rotation LevelDB applies to stored checksums.
func unmask(masked uint32) uint32 {
	rot := masked - 0xa282ead8
	return rot>>17 | rot<<15
}

// forEachEntry walks a block's prefix-compressed entries.
func forEachEntry(block []byte, fn func(key, value []byte) error) error {
	if len(block) < 4 {
		return invalid("block of %d bytes has no restart array", len(block))
	}
	restarts := int64(binary.LittleEndian.Uint32(block[len(block)-4:]))
	if restarts > int64(len(block)-4)/4 {
		return invalid("block claims %d restart points in %d bytes", restarts, len(block))
	}
	data := block[:int64(len(block))-4-4*restarts]
	var key []byte
	for len(data) > 0 {
		shared, n1 := protowire.ConsumeVarint(data)
		if n1 < 0 {
			return invalid("bad block entry")
		}
		unshared, n2 := protowire.ConsumeVarint(data[n1:])
		if n2 < 0 {
			return invalid("bad block entry")
		}
		valueLen, n3 := protowire.ConsumeVarint(data[n1+n2:])
		if n3 < 0 {
			return invalid("bad block entry")
		}
		data = data[n1+n2+n3:]
		if shared > uint64(len(key)) || unshared > uint64(len(data)) || valueLen > uint64(len(data))-unshared {
			return invalid("block entry reaches past its block")
		}
		if shared+unshared > maxKey {
			return invalid("key of %d bytes", shared+unshared)
		}
		key = append(key[:shared], data[:unshared]...)
		value := data[unshared : unshared+valueLen]
		data = data[unshared+valueLen:]
		if err := fn(key, value); err != nil {
			return err
		}
	}
	return nil
}

func invalid(format string, args ...any) error {
	return modelfile.Invalidf(FormatName, "%s", fmt.Sprintf(format, args...))
}

// truncate shortens a key for messages.
func truncate(key []byte) string {
	if len(key) > 80 {
		return string(key[:80]) + "…"
	}
	return string(key)
}
