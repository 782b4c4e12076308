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
		buf = append(buf, byte(e.kind))
		buf = binary.AppendVarint(buf, int64(e.key.start)-int64(previous.key.start))
		buf = binary.AppendUvarint(buf, uint64(e.key.end-e.key.start))
		buf = binary.AppendVarint(buf, int64(e.data.start)-dataBase(previous, e, i))
		buf = binary.AppendUvarint(buf, uint64(e.data.end-e.data.start))
		buf = binary.AppendVarint(buf, int64(e.line)-int64(previous.line))
		buf = binary.AppendVarint(buf, int64(e.column)-int64(previous.column))
		if !e.hasChildren() {
			previous.data = e.data
		}
		previous.key, previous.line, previous.column = e.key, e.line, e.column
	}
	return append([]byte(nil), buf...) // no spare capacity held
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
	var previous fieldEntry
	for i := range entries {
		e := &entries[i]
		e.kind = valueKind(packed[0])
		packed = packed[1:]
		e.key.start = varint(int64(previous.key.start))
		e.key.end = e.key.start + uvarint()
		e.data.start = varint(dataBase(previous, *e, i))
		e.data.end = e.data.start + uvarint()
		e.line = int32(varint(int64(previous.line)))
		e.column = int32(varint(int64(previous.column)))
		if !e.hasChildren() {
			previous.data = e.data
		}
		previous.key, previous.line, previous.column = e.key, e.line, e.column
	}
	return entries
}
