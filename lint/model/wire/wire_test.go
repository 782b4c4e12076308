package wire

import (
	"bytes"
	"errors"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// message builds wire bytes from (number, value) pairs: uint64 values are
// varints, []byte and string values are length-delimited.
func message(fields ...any) []byte {
	var b []byte
	for i := 0; i < len(fields); i += 2 {
		number := protowire.Number(fields[i].(int))
		switch v := fields[i+1].(type) {
		case uint64:
			b = protowire.AppendTag(b, number, protowire.VarintType)
			b = protowire.AppendVarint(b, v)
		case string:
			b = protowire.AppendTag(b, number, protowire.BytesType)
			b = protowire.AppendString(b, v)
		case []byte:
			b = protowire.AppendTag(b, number, protowire.BytesType)
			b = protowire.AppendBytes(b, v)
		}
	}
	return b
}

func reader(b []byte) *Reader { return NewReader(bytes.NewReader(b), int64(len(b))) }

func TestRangeNested(t *testing.T) {
	inner := message(1, "name", 2, uint64(300))
	outer := message(1, uint64(7), 2, inner, 3, bytes.Repeat([]byte{0xff}, 100<<10))
	var got []string
	err := reader(outer).Root().Range(func(f Field) error {
		switch f.Number {
		case 1:
			got = append(got, "varint", string(rune('0'+f.Varint)))
		case 2:
			return f.Message().Range(func(g Field) error {
				if g.Number == 1 {
					s, err := g.String(16)
					got = append(got, s)
					return err
				}
				if g.Varint != 300 {
					t.Errorf("nested varint = %d, want 300", g.Varint)
				}
				return nil
			})
		case 3:
			if f.Len() != 100<<10 {
				t.Errorf("skipped field length = %d", f.Len())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"varint", "7", "name"}; !equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestMalformed(t *testing.T) {
	hostileLength := protowire.AppendTag(nil, 1, protowire.BytesType)
	hostileLength = protowire.AppendVarint(hostileLength, 1<<62)
	tests := map[string][]byte{
		"length beyond the input": hostileLength,
		"truncated varint":        {0x08, 0xff},
		"invalid wire type":       {0x0f},
		"field number zero":       {0x00, 0x01},
		"end group without start": {0x0c},
		"unterminated group":      {0x0b, 0x08, 0x01},
		"git lfs pointer":         []byte("version https://git-lfs.github.com/spec/v1\n"),
	}
	for name, input := range tests {
		t.Run(name, func(t *testing.T) {
			err := walkAll(reader(input).Root(), 0)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
		})
	}
}

func TestNestedFieldPastItsParent(t *testing.T) {
	// The inner message claims 5 bytes where its parent has 1 left; the
	// outer message is well formed.
	input := message(2, append(message(1, "x"), 0x0a, 0x05, 'a'), 3, "after")
	err := reader(input).Root().Range(func(f Field) error {
		if f.Number == 2 {
			return f.Message().Range(func(Field) error { return nil })
		}
		return nil
	})
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v, want ErrMalformed", err)
	}
}

func TestGroupsAreSkipped(t *testing.T) {
	var b []byte
	b = protowire.AppendTag(b, 5, protowire.StartGroupType)
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, 1)
	b = protowire.AppendTag(b, 5, protowire.EndGroupType)
	b = append(b, message(2, uint64(9))...)
	var numbers []protowire.Number
	err := reader(b).Root().Range(func(f Field) error {
		numbers = append(numbers, f.Number)
		return nil
	})
	if err != nil || len(numbers) != 1 || numbers[0] != 2 {
		t.Fatalf("numbers = %v, err = %v; want [2]", numbers, err)
	}
}

func TestBytesLimit(t *testing.T) {
	input := message(1, bytes.Repeat([]byte("a"), 1000))
	err := reader(input).Root().Range(func(f Field) error {
		_, err := f.Bytes(999)
		return err
	})
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v, want a refusal to read 1000 bytes with max 999", err)
	}
}

// walkAll descends into every bytes field that parses as a message.
func walkAll(m Message, depth int) error {
	return m.Range(func(f Field) error {
		if f.Type == protowire.BytesType && depth < 8 {
			_ = walkAll(f.Message(), depth+1) // payloads need not be messages
		}
		return nil
	})
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func FuzzRange(f *testing.F) {
	f.Add(message(1, uint64(1), 2, message(1, "x")))
	f.Add([]byte{0x0b, 0x08, 0x01, 0x0c})
	f.Fuzz(func(t *testing.T, data []byte) {
		root := reader(data).Root()
		if err := walkAll(root, 0); err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("non-content error on in-memory input: %v", err)
		}
		_ = root.Range(func(f Field) error {
			if f.Type == protowire.BytesType && (f.Start < 0 || f.End > int64(len(data)) || f.Start > f.End) {
				t.Fatalf("field %d range [%d,%d) outside %d bytes", f.Number, f.Start, f.End, len(data))
			}
			return nil
		})
	})
}
