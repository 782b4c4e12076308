package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/model/modelfile"
)

const models = "../../../testdata/models"

// file builds a safetensors file from a JSON header and dataBytes of data.
func file(header string, dataBytes int) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	out = append(out, header...)
	return append(out, make([]byte, dataBytes)...)
}

func read(data []byte) (*File, error) { return Read(bytes.NewReader(data), int64(len(data))) }

func TestRealFile(t *testing.T) {
	data, err := os.ReadFile(models + "/candle/jfk-codes.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	got, err := read(data)
	if err != nil {
		t.Fatal(err)
	}
	want := &File{HeaderLength: 72, Tensors: []string{"codes"}, Parameters: 1656, ParameterBytes: 13248, DTypes: []string{"I64"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestValid(t *testing.T) {
	header := `{"__metadata__":{"format":"pt"},"b":{"dtype":"F16","shape":[2,3],"data_offsets":[8,20]},` +
		`"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"s":{"dtype":"F4","shape":[3,2],"data_offsets":[20,23]}}   `
	got, err := read(file(header, 23))
	if err != nil {
		t.Fatal(err)
	}
	if got.Parameters != 14 || got.ParameterBytes != 23 || !reflect.DeepEqual(got.Tensors, []string{"a", "b", "s"}) ||
		!reflect.DeepEqual(got.DTypes, []string{"F16", "F32", "F4"}) {
		t.Errorf("got %+v", got)
	}
}

func TestInvalid(t *testing.T) {
	huge := binary.LittleEndian.AppendUint64(nil, 1<<63)
	huge = append(huge, "{}"...)
	tests := map[string]struct {
		input []byte
		want  string
	}{
		"2^63 header length":  {huge, "HeaderTooLarge"},
		"git lfs pointer":     {[]byte("version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 4965799096\n"), "HeaderTooLarge"},
		"7 bytes":             {[]byte("1234567"), "HeaderTooSmall"},
		"header past the end": {binary.LittleEndian.AppendUint64(nil, 100), "InvalidHeaderLength"},
		"not json":            {file(`{"a":`, 0), "InvalidHeaderDeserialization"},
		"not an object":       {file(`[1,2]`, 0), "InvalidHeaderStart"},
		"unknown dtype":       {file(`{"a":{"dtype":"F128","shape":[1],"data_offsets":[0,16]}}`, 16), "unknown dtype"},
		"span does not match": {file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, 4), "TensorInvalidInfo"},
		"gap between tensors": {file(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"U8","shape":[1],"data_offsets":[2,3]}}`, 3), "InvalidOffset"},
		"sub-byte remainder":  {file(`{"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}}`, 2), "MisalignedSlice"},
		"overflowing shape":   {file(`{"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`, 8), "ValidationOverflow"},
		"negative dimension":  {file(`{"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}}`, 1), "shape entry"},
		"metadata number":     {file(`{"__metadata__":{"format":1},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, 1), "__metadata__ must map strings to strings"},
		"metadata list":       {file(`{"__metadata__":["pt"],"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, 1), "__metadata__ must map strings to strings"},
		"tensor as a list":    {file(`{"a":[1,2,3]}`, 0), "want an object"},
		"extra field":         {file(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":1}}`, 1), "unknown field"},
	}
	for name, test := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := read(test.input)
			if !errors.Is(err, modelfile.ErrInvalid) || !strings.Contains(err.Error(), test.want) {
				t.Fatalf("err = %v, want a modelfile.ErrInvalid mentioning %q", err, test.want)
			}
		})
	}
}

func TestSizeMismatchKeepsTheHeader(t *testing.T) {
	got, err := read(file(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, 10))
	if !errors.Is(err, modelfile.ErrInvalid) || !strings.Contains(err.Error(), "MetadataIncompleteBuffer") {
		t.Fatalf("err = %v, want MetadataIncompleteBuffer", err)
	}
	if got == nil || got.Parameters != 4 || got.ParameterBytes != 16 {
		t.Fatalf("header facts = %+v, want 4 parameters in 16 bytes", got)
	}
}

func TestReadIndex(t *testing.T) {
	index, err := ReadIndex([]byte(`{"metadata":{"total_size":2337280},"weight_map":{"a":"model-00001-of-00002.safetensors","b":"model-00002-of-00002.safetensors","c":"model-00001-of-00002.safetensors"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if index.TotalSize != 2337280 || !reflect.DeepEqual(index.Shards(), []string{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}) {
		t.Errorf("got %+v, shards %v", index, index.Shards())
	}
	if _, err := ReadIndex([]byte(`{"metadata":{}}`)); !errors.Is(err, modelfile.ErrInvalid) {
		t.Errorf("index without weight_map: err = %v", err)
	}
	if index, err := ReadIndex([]byte(`{"weight_map":{}}`)); err != nil || index.TotalSize != -1 {
		t.Errorf("index without total_size: %+v, %v", index, err)
	}
}

func FuzzRead(f *testing.F) {
	if data, err := os.ReadFile(models + "/candle/jfk-codes.safetensors"); err == nil {
		f.Add(data)
	}
	f.Add(file(`{"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}`, 4))
	f.Add(append(binary.LittleEndian.AppendUint64(nil, 1<<63), "{}"...))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := read(data)
		if err != nil && !errors.Is(err, modelfile.ErrInvalid) {
			t.Fatalf("non-content error: %v", err)
		}
		if err == nil && 8+int64(got.HeaderLength)+got.ParameterBytes != int64(len(data)) {
			t.Fatalf("accepted a header that does not tile the file: %+v for %d bytes", got, len(data))
		}
	})
}

// TestLongHeader reads a header longer than the read buffer, with runes
// cut by the buffer's edges: valid when they are whole, InvalidHeader when
// one is not; a name listed twice is the later entry, as in the library's map.
func TestLongHeader(t *testing.T) {
	var header strings.Builder
	header.WriteString(`{"a":{"dtype":"U8","shape":[5],"data_offsets":[0,5]},`)
	for i := 0; header.Len() < 3*headerBuffer; i++ {
		fmt.Fprintf(&header, `"é%06d":{"dtype":"U8","shape":[1],"data_offsets":[%d,%d]},`, i, 2+i, 3+i)
	}
	tensors := strings.Count(header.String(), "dtype")
	header.WriteString(`"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}`)
	data := file(header.String(), tensors+1)
	got, err := read(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tensors) != tensors || got.Parameters != int64(tensors+1) {
		t.Errorf("%d tensors, %d parameters; want %d and %d", len(got.Tensors), got.Parameters, tensors, tensors+1)
	}
	broken := bytes.Clone(data)
	broken[8+2*headerBuffer+10] = 0xff
	if _, err := read(broken); err == nil || !strings.Contains(err.Error(), "InvalidHeader: the header is not UTF-8") {
		t.Errorf("err = %v, want InvalidHeader", err)
	}
}

// BenchmarkReadMillionTensors reads a header of 10^6 tensors (~80 MB).
func BenchmarkReadMillionTensors(b *testing.B) {
	var header strings.Builder
	header.WriteString("{")
	const tensors = 1_000_000
	for i := 0; i < tensors; i++ {
		if i > 0 {
			header.WriteString(",")
		}
		fmt.Fprintf(&header, `"model.layers.%d.mlp.weight":{"dtype":"F16","shape":[1],"data_offsets":[%d,%d]}`, i, 2*i, 2*i+2)
	}
	header.WriteString("}")
	data := file(header.String(), 2*tensors)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := read(data); err != nil {
			b.Fatal(err)
		}
	}
}
