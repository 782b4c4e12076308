// Package checkpointtest writes TensorFlow checkpoint indexes for tests: the
// LevelDB table that variables.index is, from its entries' keys and
// values. For tests only.
package checkpointtest

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/klauspost/compress/snappy"
	"google.golang.org/protobuf/encoding/protowire"
)

// Entry is one key and value of the table: the header (a BundleHeaderProto)
// under the empty key, a BundleEntryProto under each tensor's name.
type Entry struct{ Key, Value []byte }

// Table format constants (tensorflow/core/lib/io/format.h, table_format.txt),
// kept apart from the reader's so that a test checks one against the other.
const (
	tableMagic     = 0xdb4775248b80fb57
	footerSize     = 48
	noCompression  = 0
	snappyCompress = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Table writes the entries, which must be in key order, as TensorFlow's
// table builder does: entriesPerBlock entries per data block, blocks
// snappy-compressed when compress is set, then the empty meta-index block,
// the index block and the footer.
func Table(entries []Entry, compress bool, entriesPerBlock int) []byte {
	var file []byte
	writeBlock := func(contents []byte) (offset, size uint64) {
		kind := byte(noCompression)
		if compress {
			contents = snappy.Encode(nil, contents)
			kind = snappyCompress
		}
		offset, size = uint64(len(file)), uint64(len(contents))
		file = append(file, contents...)
		crc := crc32.Checksum(append(append([]byte(nil), contents...), kind), castagnoli)
		masked := (crc>>15 | crc<<17) + 0xa282ead8
		file = append(file, kind)
		file = binary.LittleEndian.AppendUint32(file, masked)
		return offset, size
	}
	var index []Entry
	for start := 0; start < len(entries); start += entriesPerBlock {
		end := min(start+entriesPerBlock, len(entries))
		offset, size := writeBlock(encodeBlock(entries[start:end]))
		handle := protowire.AppendVarint(protowire.AppendVarint(nil, offset), size)
		index = append(index, Entry{append([]byte(nil), entries[end-1].Key...), handle})
	}
	metaOffset, metaSize := writeBlock(encodeBlock(nil))
	indexOffset, indexSize := writeBlock(encodeBlock(index))
	footer := protowire.AppendVarint(protowire.AppendVarint(nil, metaOffset), metaSize)
	footer = protowire.AppendVarint(protowire.AppendVarint(footer, indexOffset), indexSize)
	footer = append(footer, make([]byte, footerSize-8-len(footer))...)
	footer = binary.LittleEndian.AppendUint64(footer, tableMagic)
	return append(file, footer...)
}

// encodeBlock writes a block's entries with their keys' shared prefixes
// and one restart point, at 0.
func encodeBlock(block []Entry) []byte {
	var out, previous []byte
	for _, entry := range block {
		shared := 0
		for shared < len(previous) && shared < len(entry.Key) && previous[shared] == entry.Key[shared] {
			shared++
		}
		out = protowire.AppendVarint(out, uint64(shared))
		out = protowire.AppendVarint(out, uint64(len(entry.Key)-shared))
		out = protowire.AppendVarint(out, uint64(len(entry.Value)))
		out = append(out, entry.Key[shared:]...)
		out = append(out, entry.Value...)
		previous = entry.Key
	}
	out = binary.LittleEndian.AppendUint32(out, 0)
	return binary.LittleEndian.AppendUint32(out, 1)
}
