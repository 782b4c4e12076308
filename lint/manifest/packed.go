package manifest

import "encoding/binary"

// A workload's field table is read twice in a run: when its file is
// decoded, and when the engine holds the workload for its rules. In
// between, every workload of the run waits with its table, 28 bytes an
// entry, most of what a run holds at its peak. Packed, an entry is what
// differs from the one before it, a varint a field: ~8 bytes, unpacked in
// well under a microsecond per document.

// packEntries is entries as packEntries' reader, unpackEntries, reads
// them: their count, then per entry its kind and the differences of its
// spans and position from the entry before.
func packEntries(entries []fieldEntry) []byte {
	buf := make([]byte, 0, 10*len(entries)+binary.MaxVarintLen64)
	buf = binary.AppendUvarint(buf, uint64(len(entries)))
	var previous fieldEntry
	for i, e := range entries {
		sharedKey, sharedData := e.key.start&sharedSpan != 0, !e.hasChildren() && e.data.start&sharedSpan != 0
		buf = append(buf, packedKind(e.kind, sharedKey, sharedData))
		if sharedKey {
			buf = appendSharedSpan(buf, e.key)
		} else {
			buf = binary.AppendVarint(buf, int64(e.key.start)-int64(previous.key.start))
			buf = binary.AppendUvarint(buf, uint64(e.key.end-e.key.start))
			previous.key = e.key
		}
		if sharedData {
			buf = appendSharedSpan(buf, e.data)
		} else {
			buf = binary.AppendVarint(buf, int64(e.data.start)-dataBase(previous, e, i))
			buf = binary.AppendUvarint(buf, uint64(e.data.end-e.data.start))
			if !e.hasChildren() {
				previous.data = e.data
			}
		}
		buf = binary.AppendVarint(buf, int64(e.line)-int64(previous.line))
		buf = binary.AppendVarint(buf, int64(e.column)-int64(previous.column))
		previous.line, previous.column = e.line, e.column
	}
	return append([]byte(nil), buf...) // no spare capacity held
}

// A span of the shared text is written as its place there, and the
// entries around it are written against each other: the shared text's
// offsets are far from a document's own.
const (
	packedSharedKey  = 0x80
	packedSharedData = 0x40
)

func packedKind(kind valueKind, sharedKey, sharedData bool) byte {
	b := byte(kind)
	if sharedKey {
		b |= packedSharedKey
	}
	if sharedData {
		b |= packedSharedData
	}
	return b
}

func appendSharedSpan(buf []byte, s span) []byte {
	buf = binary.AppendUvarint(buf, uint64(s.start&^sharedSpan))
	return binary.AppendUvarint(buf, uint64(s.end-s.start))
}

// dataBase is what an entry's data start is written against: a mapping's
// or sequence's children follow it in the table, a scalar's value follows
// the last scalar's in the text.
func dataBase(previous, e fieldEntry, index int) int64 {
	if e.hasChildren() {
		return int64(index)
	}
	return int64(previous.data.start)
}

// unpackEntries is the entries packEntries packed.
func unpackEntries(packed []byte) []fieldEntry {
	n, read := binary.Uvarint(packed)
	packed = packed[read:]
	entries := make([]fieldEntry, n)
	uvarint := func() uint32 {
		v, read := binary.Uvarint(packed)
		packed = packed[read:]
		return uint32(v)
	}
	varint := func(base int64) uint32 {
		v, read := binary.Varint(packed)
		packed = packed[read:]
		return uint32(base + v)
	}
	shared := func() span {
		start := uvarint()
		return span{start: start | sharedSpan, end: (start + uvarint()) | sharedSpan}
	}
	var previous fieldEntry
	for i := range entries {
		e := &entries[i]
		flags := packed[0]
		e.kind = valueKind(flags &^ (packedSharedKey | packedSharedData))
		packed = packed[1:]
		if flags&packedSharedKey != 0 {
			e.key = shared()
		} else {
			e.key.start = varint(int64(previous.key.start))
			e.key.end = e.key.start + uvarint()
			previous.key = e.key
		}
		if flags&packedSharedData != 0 {
			e.data = shared()
		} else {
			e.data.start = varint(dataBase(previous, *e, i))
			e.data.end = e.data.start + uvarint()
			if !e.hasChildren() {
				previous.data = e.data
			}
		}
		e.line = int32(varint(int64(previous.line)))
		e.column = int32(varint(int64(previous.column)))
		previous.line, previous.column = e.line, e.column
	}
	return entries
}
