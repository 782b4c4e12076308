package checkpoint

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/model/checkpoint/checkpointtest"
	"github.com/modellint/modellint/lint/model/modelfile"
	"google.golang.org/protobuf/encoding/protowire"
)

const models = "../../../testdata/models"

// tensor is one entry a test index stores.
type tensor struct {
	name         string
	dtype        uint64
	shape        []int64
	shard        int64
	offset, size int64
	sliced       bool
}

// buildIndex writes a TensorFlow table the way BundleWriter does: a
// header entry under the empty key, one entry per tensor in key order,
// entriesPerBlock entries per data block, blocks snappy-compressed when asked.
func buildIndex(t testing.TB, shards int, tensors []tensor, compress bool, entriesPerBlock int) []byte {
	t.Helper()
	header := protowire.AppendTag(nil, 1, protowire.VarintType)
	header = protowire.AppendVarint(header, uint64(shards))
	entries := []checkpointtest.Entry{{Key: nil, Value: header}}
	for _, tensor := range tensors {
		var value []byte
		value = protowire.AppendTag(value, 1, protowire.VarintType)
		value = protowire.AppendVarint(value, tensor.dtype)
		var shape []byte
		for _, dim := range tensor.shape {
			d := protowire.AppendTag(nil, 1, protowire.VarintType)
			d = protowire.AppendVarint(d, uint64(dim))
			shape = protowire.AppendTag(shape, 2, protowire.BytesType)
			shape = protowire.AppendBytes(shape, d)
		}
		value = protowire.AppendTag(value, 2, protowire.BytesType)
		value = protowire.AppendBytes(value, shape)
		for number, v := range map[protowire.Number]int64{3: tensor.shard, 4: tensor.offset, 5: tensor.size} {
			if v != 0 {
				value = protowire.AppendTag(value, number, protowire.VarintType)
				value = protowire.AppendVarint(value, uint64(v))
			}
		}
		if tensor.sliced {
			value = protowire.AppendTag(value, 7, protowire.BytesType)
			value = protowire.AppendBytes(value, nil)
		}
		entries = append(entries, checkpointtest.Entry{Key: []byte(tensor.name), Value: value})
	}
	return checkpointtest.Table(entries, compress, entriesPerBlock)
}

func read(t testing.TB, data []byte) (*Index, error) {
	t.Helper()
	return Read(bytes.NewReader(data), int64(len(data)))
}

func TestRealIndexes(t *testing.T) {
	tests := map[string]Index{
		// TF 1.14, snappy-compressed data block: 5 float scalars.
		"saved_model_half_plus_two_cpu": {NumShards: 1, Tensors: 5, Bytes: 20, Parameters: 5, ShardEnds: []int64{20}},
		// TF 2.14: 3 floats and the _CHECKPOINTABLE_OBJECT_GRAPH string.
		"saved_model_half_plus_two_tf2_cpu": {NumShards: 1, Tensors: 4, Bytes: 631, Parameters: 3, ShardEnds: []int64{631}},
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(models + "/" + name + "/00000123/variables/variables.index")
			if err != nil {
				t.Fatal(err)
			}
			got, err := read(t, data)
			if err != nil {
				t.Fatal(err)
			}
			if got.NumShards != want.NumShards || got.Tensors != want.Tensors || got.Bytes != want.Bytes ||
				got.Parameters != want.Parameters || len(got.ShardEnds) != 1 || got.ShardEnds[0] != want.ShardEnds[0] {
				t.Errorf("got %+v, want %+v", *got, want)
			}
		})
	}
}

func TestShardsAndBlocks(t *testing.T) {
	tensors := []tensor{
		{name: "dense/bias", dtype: 1, shape: []int64{128}, shard: 0, offset: 0, size: 512},
		{name: "dense/kernel", dtype: 1, shape: []int64{784, 128}, shard: 1, offset: 0, size: 401408},
		{name: "embedding", dtype: 14, shape: []int64{1000, 64}, shard: 1, offset: 401408, size: 128000},
		{name: "partitioned", dtype: 1, shape: []int64{10}, sliced: true},
		{name: "vocab", dtype: 7, shape: []int64{3}, shard: 0, offset: 512, size: 30},
	}
	for _, compress := range []bool{false, true} {
		data := buildIndex(t, 2, tensors, compress, 2)
		got, err := read(t, data)
		if err != nil {
			t.Fatalf("compress=%v: %v", compress, err)
		}
		if got.NumShards != 2 || got.Tensors != 5 || got.ShardEnds[0] != 542 || got.ShardEnds[1] != 529408 {
			t.Errorf("compress=%v: got %+v", compress, *got)
		}
		if want := int64(128 + 784*128 + 1000*64); got.Parameters != want {
			t.Errorf("parameters = %d, want %d (strings and sliced tensors excluded)", got.Parameters, want)
		}
		if got.Bytes != 512+401408+128000+30 {
			t.Errorf("bytes = %d", got.Bytes)
		}
	}
	if DataFile(1, 2) != "variables.data-00001-of-00002" {
		t.Errorf("DataFile(1, 2) = %s", DataFile(1, 2))
	}
}

func TestInvalid(t *testing.T) {
	real, err := os.ReadFile(models + "/saved_model_half_plus_two_cpu/00000123/variables/variables.index")
	if err != nil {
		t.Fatal(err)
	}
	corrupt := append([]byte(nil), real...)
	corrupt[3] ^= 0xff
	outOfShards := buildIndex(t, 1, []tensor{{name: "w", dtype: 1, shard: 3, size: 4}}, false, 8)
	hugeShards := buildIndex(t, 1<<20, nil, false, 8)
	tests := map[string]struct {
		input []byte
		want  string
	}{
		"truncated to its first half":         {real[:len(real)/2], "magic number"},
		"footer only":                         {real[len(real)-48:], "reaches past the end"},
		"shorter than a footer":               {real[:20], "shorter than the 48-byte"},
		"bit flip in a block":                 {corrupt, "checksum"},
		"git lfs pointer":                     {[]byte(strings.Repeat("version https://git-lfs.github.com/spec/v1\n", 2)), "magic number"},
		"tensor in a shard beyond the header": {outOfShards, "shard 3"},
		"absurd shard count":                  {hugeShards, "shards"},
	}
	for name, test := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := read(t, test.input)
			if !errors.Is(err, modelfile.ErrInvalid) || !strings.Contains(err.Error(), test.want) {
				t.Fatalf("err = %v, want a modelfile.ErrInvalid mentioning %q", err, test.want)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	for _, name := range []string{"saved_model_half_plus_two_cpu", "saved_model_half_plus_two_tf2_cpu"} {
		if data, err := os.ReadFile(models + "/" + name + "/00000123/variables/variables.index"); err == nil {
			f.Add(data)
		}
	}
	f.Add(buildIndex(f, 2, []tensor{{name: "a", dtype: 1, shape: []int64{2}, size: 8}, {name: "b", dtype: 1, shard: 1, size: 4}}, true, 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		index, err := read(t, data)
		if err != nil {
			if !errors.Is(err, modelfile.ErrInvalid) {
				t.Fatalf("non-content error: %v", err)
			}
			return
		}
		if len(index.ShardEnds) != index.NumShards || index.NumShards < 1 || index.NumShards > MaxShards {
			t.Fatalf("inconsistent index %+v", index)
		}
	})
}
