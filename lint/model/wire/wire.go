// Package wire reads protocol-buffer messages straight from a file, field by
// field, without loading the file: a length-delimited field that the caller
// does not descend into is skipped by its offset. A saved_model.pb or .onnx
// file that holds gigabytes of constants therefore costs as much to read as
// its structure, and a hostile length never allocates more than the bytes
// that are really there.
package wire

import (
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
)

// windowSize is how much is read from the file at once.
const windowSize = 64 << 10

// maxGroupDepth bounds nested proto2 groups, which are skipped field by field.
const maxGroupDepth = 32

// ErrMalformed is wrapped by every error about the bytes themselves (as
// opposed to an I/O error).
var ErrMalformed = errors.New("malformed protobuf")

// Reader reads messages from r, which holds size bytes.
type Reader struct {
	src         io.ReaderAt
	size        int64
	window      []byte
	windowStart int64
}

// NewReader reads messages from the first size bytes of src.
func NewReader(src io.ReaderAt, size int64) *Reader {
	return &Reader{src: src, size: size}
}

// Root is the message that spans the whole input.
func (r *Reader) Root() Message { return Message{r: r, Start: 0, End: r.size} }

// Message is the byte range of one encoded message.
type Message struct {
	r          *Reader
	Start, End int64
}

// Field is one field of a message. Varint holds the value of varint, fixed32
// and fixed64 fields; Start and End delimit the payload of a bytes field.
type Field struct {
	Number     protowire.Number
	Type       protowire.Type
	Varint     uint64
	Start, End int64
	r          *Reader
}

// Len is the payload length of a bytes field.
func (f Field) Len() int64 { return f.End - f.Start }

// Message is the bytes field read as a nested message.
func (f Field) Message() Message { return Message{r: f.r, Start: f.Start, End: f.End} }

// Bytes reads the payload of a bytes field, refusing payloads longer than
// max so that a caller states what it is prepared to hold in memory.
func (f Field) Bytes(max int) ([]byte, error) {
	if f.Type != protowire.BytesType {
		return nil, malformed(f.Start, "field %d is not length-delimited", f.Number)
	}
	if f.Len() > int64(max) {
		return nil, fmt.Errorf("%w: field %d at offset %d is %d bytes, more than the %d expected", ErrMalformed, f.Number, f.Start, f.Len(), max)
	}
	return f.r.read(f.Start, int(f.Len()))
}

// String is Bytes as a string.
func (f Field) String(max int) (string, error) {
	b, err := f.Bytes(max)
	return string(b), err
}

// Range calls fn for every field of the message, in order, and stops at the
// first error fn returns.
func (m Message) Range(fn func(Field) error) error {
	off := m.Start
	for off < m.End {
		field, next, err := m.r.field(off, m.End, 0)
		if err != nil {
			return err
		}
		if field.Type != protowire.StartGroupType {
			if err := fn(field); err != nil {
				return err
			}
		}
		off = next
	}
	return nil
}

// Bytes reads the whole message, refusing messages longer than max; for
// small messages that are easier to decode in memory.
func (m Message) Bytes(max int) ([]byte, error) {
	if m.End-m.Start > int64(max) {
		return nil, fmt.Errorf("%w: message at offset %d is %d bytes, more than the %d expected", ErrMalformed, m.Start, m.End-m.Start, max)
	}
	return m.r.read(m.Start, int(m.End-m.Start))
}

// field decodes the field at off, which must end by end, and returns the
// offset after it.
func (r *Reader) field(off, end int64, depth int) (Field, int64, error) {
	tag, n, err := r.varint(off, end)
	if err != nil {
		return Field{}, 0, err
	}
	number, typ := protowire.DecodeTag(tag)
	if number < protowire.MinValidNumber || number > protowire.MaxValidNumber {
		return Field{}, 0, malformed(off, "invalid field number %d", number)
	}
	field := Field{Number: number, Type: typ, r: r}
	off += int64(n)
	switch typ {
	case protowire.VarintType:
		v, n, err := r.varint(off, end)
		if err != nil {
			return Field{}, 0, err
		}
		field.Varint = v
		return field, off + int64(n), nil
	case protowire.Fixed32Type:
		b, err := r.bounded(off, 4, end)
		if err != nil {
			return Field{}, 0, err
		}
		v, _ := protowire.ConsumeFixed32(b)
		field.Varint = uint64(v)
		return field, off + 4, nil
	case protowire.Fixed64Type:
		b, err := r.bounded(off, 8, end)
		if err != nil {
			return Field{}, 0, err
		}
		field.Varint, _ = protowire.ConsumeFixed64(b)
		return field, off + 8, nil
	case protowire.BytesType:
		length, n, err := r.varint(off, end)
		if err != nil {
			return Field{}, 0, err
		}
		off += int64(n)
		if length > uint64(end-off) {
			return Field{}, 0, malformed(off, "field %d claims %d bytes but only %d remain", number, length, end-off)
		}
		field.Start, field.End = off, off+int64(length)
		return field, field.End, nil
	case protowire.StartGroupType:
		if depth >= maxGroupDepth {
			return Field{}, 0, malformed(off, "groups nested deeper than %d", maxGroupDepth)
		}
		for {
			inner, next, err := r.field(off, end, depth+1)
			if err != nil {
				return Field{}, 0, err
			}
			off = next
			if inner.Type == protowire.EndGroupType {
				if inner.Number != number {
					return Field{}, 0, malformed(off, "group %d ended by %d", number, inner.Number)
				}
				return field, off, nil
			}
		}
	case protowire.EndGroupType:
		if depth == 0 {
			return Field{}, 0, malformed(off, "end of group %d without a start", number)
		}
		return field, off, nil
	}
	return Field{}, 0, malformed(off, "invalid wire type %d", typ)
}

// varint decodes a varint at off that must end by end.
func (r *Reader) varint(off, end int64) (uint64, int, error) {
	n := int64(protowire.SizeVarint(1 << 63))
	if end-off < n {
		n = end - off
	}
	if n <= 0 {
		return 0, 0, malformed(off, "truncated")
	}
	b, err := r.peek(off, int(n))
	if err != nil {
		return 0, 0, err
	}
	v, used := protowire.ConsumeVarint(b)
	if used < 0 {
		return 0, 0, malformed(off, "bad varint")
	}
	return v, used, nil
}

// bounded returns n bytes at off, which must end by end.
func (r *Reader) bounded(off int64, n int, end int64) ([]byte, error) {
	if end-off < int64(n) {
		return nil, malformed(off, "truncated")
	}
	return r.peek(off, n)
}

// peek returns n bytes at off from the window, refilling it when needed.
// The slice is valid until the next read.
func (r *Reader) peek(off int64, n int) ([]byte, error) {
	if off < r.windowStart || off+int64(n) > r.windowStart+int64(len(r.window)) {
		size := int64(windowSize)
		if size < int64(n) {
			size = int64(n)
		}
		if r.size-off < size {
			size = r.size - off
		}
		if size < int64(n) {
			return nil, malformed(off, "truncated")
		}
		if cap(r.window) < int(size) {
			r.window = make([]byte, size)
		}
		r.window = r.window[:size]
		if _, err := io.ReadFull(io.NewSectionReader(r.src, off, int64(len(r.window))), r.window); err != nil {
			r.window = r.window[:0]
			return nil, err
		}
		r.windowStart = off
	}
	start := off - r.windowStart
	return r.window[start : start+int64(n)], nil
}

// read returns a copy of n bytes at off.
func (r *Reader) read(off int64, n int) ([]byte, error) {
	if n <= windowSize {
		b, err := r.peek(off, n)
		if err != nil {
			return nil, err
		}
		return append([]byte(nil), b...), nil
	}
	if r.size-off < int64(n) {
		return nil, malformed(off, "truncated")
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(io.NewSectionReader(r.src, off, int64(len(b))), b); err != nil {
		return nil, err
	}
	return b, nil
}

func malformed(off int64, format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", ErrMalformed, off, fmt.Sprintf(format, args...))
}
