package tfrecord

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/model/modelfile"
)

// record frames one payload as TFRecordWriter does.
func record(payload []byte) []byte { return AppendRecord(nil, payload) }

func stream(payloads ...string) []byte {
	var out []byte
	for _, payload := range payloads {
		out = append(out, record([]byte(payload))...)
	}
	return out
}

func read(data []byte, limit int) (int, bool, [][]byte, error) {
	var payloads [][]byte
	n, more, err := Read(bytes.NewReader(data), int64(len(data)), limit, func(_ int, payload []byte) error {
		payloads = append(payloads, payload)
		return nil
	})
	return n, more, payloads, err
}

func TestRead(t *testing.T) {
	n, more, payloads, err := read(stream("a", "", "ccc"), 10)
	if err != nil || n != 3 || more || string(payloads[2]) != "ccc" || len(payloads[1]) != 0 {
		t.Fatalf("got %d records (more %v) %q, %v; want 3 records", n, more, payloads, err)
	}
}

func TestLimit(t *testing.T) {
	n, more, _, err := read(stream("a", "b", "c"), 2)
	if err != nil || n != 2 || !more {
		t.Fatalf("got %d records, more %v, %v; want 2 and more", n, more, err)
	}
	if n, more, _, _ := read(stream("a", "b"), 2); n != 2 || more {
		t.Fatalf("exactly at the limit: %d records, more %v; want 2 and no more", n, more)
	}
}

func TestLargePayloadIsSkipped(t *testing.T) {
	data := stream(strings.Repeat("x", MaxPayload+1), "after")
	n, _, payloads, err := read(data, 10)
	if err != nil || n != 2 || payloads[0] != nil || string(payloads[1]) != "after" {
		t.Fatalf("got %d records, first nil: %v, %v", n, payloads[0] == nil, err)
	}
}

func TestInvalid(t *testing.T) {
	good := stream("hello", "world")
	badData := append([]byte(nil), good...)
	badData[14] ^= 1
	hostile := binary.LittleEndian.AppendUint64(nil, 1<<62)
	hostile = binary.LittleEndian.AppendUint32(hostile, Mask(hostile))
	tests := map[string]struct {
		input []byte
		want  string
	}{
		"text file":        {[]byte("this is not a tfrecord file at all\n"), "length checksum"},
		"truncated":        {good[:len(good)-3], "remain"},
		"header cut":       {good[:len(record([]byte("hello")))+5], "too few"},
		"payload bit flip": {badData, "data checksum"},
		"length of 2^62":   {hostile, "claims"},
	}
	for name, test := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, _, err := read(test.input, 1000)
			if !errors.Is(err, modelfile.ErrInvalid) || !strings.Contains(err.Error(), test.want) {
				t.Fatalf("err = %v, want a modelfile.ErrInvalid mentioning %q", err, test.want)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	f.Add(stream("a", "bb"))
	f.Add([]byte("not a record"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, _, payloads, err := read(data, 50)
		if err != nil && !errors.Is(err, modelfile.ErrInvalid) {
			t.Fatalf("non-content error: %v", err)
		}
		if n != len(payloads) || n > 50 {
			t.Fatalf("%d records, %d payloads", n, len(payloads))
		}
	})
}
