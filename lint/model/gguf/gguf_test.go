package gguf_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/model/gguf"
	"github.com/modellint/modellint/lint/model/gguf/gguftest"
	"github.com/modellint/modellint/lint/model/modelfile"
)

// sparse is a file of size bytes that holds header at its start and zeros
// after: the tensor data is never read.
type sparse struct {
	header []byte
	size   int64
}

func (s sparse) ReadAt(p []byte, off int64) (int, error) {
	if off >= s.size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && off+int64(n) < s.size {
		if i := off + int64(n); i < int64(len(s.header)) {
			p[n] = s.header[i]
		} else {
			p[n] = 0
		}
		n++
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// llama31 is Llama 3.1 8B's shape: 32 layers, 4096 wide, 14336 feed
// forward, 32 heads and 8 KV heads, 128256 tokens, a 131072-token context.
func llama31(weights, sensitive uint32) gguftest.Llama {
	return gguftest.Llama{Name: "Meta Llama 3.1 8B Instruct", Layers: 32, Embedding: 4096, FeedForward: 14336,
		Heads: 32, KVHeads: 8, Vocabulary: 128256, ContextLength: 131072, Weights: weights, Sensitive: sensitive}
}

func read(t *testing.T, f gguftest.File) (*gguf.File, error) {
	t.Helper()
	header, size := f.Header()
	return gguf.Read(sparse{header, size}, size)
}

func TestLlama(t *testing.T) {
	tests := map[string]struct {
		shape gguftest.Llama
		bytes int64
		types string
	}{
		// 8,030,261,248 parameters, as the model card's 8.03B.
		"F16":    {llama31(gguftest.F16, gguftest.F16), 16_060_522_496 + 266_240*2, "F16,F32"},
		"Q4_K_M": {llama31(gguftest.Q4_K, gguftest.Q6_K), 0, "F32,Q4_K,Q6_K"},
	}
	for name, test := range tests {
		t.Run(name, func(t *testing.T) {
			header, size := test.shape.File().Header()
			got, err := gguf.Read(sparse{header, size}, size)
			if err != nil {
				t.Fatal(err)
			}
			// The writer pads the last tensor's data to 32 bytes too.
			if got.Size > size || got.Size <= size-32 {
				t.Errorf("size = %d, want the %d bytes written less the last tensor's padding", got.Size, size)
			}
			if got.Parameters != 8_030_261_248 {
				t.Errorf("parameters = %d, want 8030261248", got.Parameters)
			}
			if test.bytes != 0 && got.WeightBytes != test.bytes {
				t.Errorf("weight bytes = %d, want %d", got.WeightBytes, test.bytes)
			}
			var matrices int64
			for _, bytes := range got.MatrixBytes {
				matrices += bytes
			}
			// The F16 file's matrices: all but the token embedding (F16) and
			// the 1-D norms (266,240 F32 elements).
			if want := test.bytes - 4096*128256*2 - 266_240*4; name == "F16" && (matrices != want || len(got.MatrixBytes) != 1) {
				t.Errorf("matrix bytes = %v, want %d of F16", got.MatrixBytes, want)
			}
			if types := strings.Join(got.Types, ","); types != test.types {
				t.Errorf("types = %s, want %s", types, test.types)
			}
			if got.Architecture != "llama" || got.BlockCount != 32 || got.HeadCount != 32 || got.HeadCountKV != 8 ||
				got.EmbeddingLength != 4096 || got.ContextLength != 131072 || got.HeadDim() != 128 || got.TensorCount != 291 {
				t.Errorf("shape = %+v", got)
			}
		})
	}
}

// TestBlockBytes checks the block arithmetic on one tensor of each type.
func TestBlockBytes(t *testing.T) {
	for _, test := range []struct {
		typ   uint32
		bytes int64
	}{{gguftest.F32, 4 * 4096 * 2}, {gguftest.BF16, 2 * 4096 * 2}, {gguftest.Q8_0, 34 * 128 * 2},
		{gguftest.Q4_K, 144 * 16 * 2}, {gguftest.Q6_K, 210 * 16 * 2}} {
		got, err := read(t, gguftest.File{Tensors: []gguftest.Tensor{{Name: "w", Dims: []uint64{4096, 2}, Type: test.typ}}})
		if err != nil {
			t.Fatal(err)
		}
		if got.WeightBytes != test.bytes || got.Parameters != 8192 {
			t.Errorf("type %d: %d bytes, %d parameters; want %d, 8192", test.typ, got.WeightBytes, got.Parameters, test.bytes)
		}
	}
}

func TestInvalid(t *testing.T) {
	good, goodSize := llama31(gguftest.Q4_K, gguftest.Q6_K).File().Header()
	patch := func(offset int, value uint32) []byte {
		out := bytes.Clone(good)
		binary.LittleEndian.PutUint32(out[offset:], value)
		return out
	}
	oneTensor := func(dims []uint64, typ uint32) []byte {
		header, _ := gguftest.File{Tensors: []gguftest.Tensor{{Name: "w", Dims: dims, Type: typ}}}.Header()
		return header
	}
	huge := binary.LittleEndian.AppendUint32([]byte("GGUF"), 3)
	huge = binary.LittleEndian.AppendUint64(huge, 0)
	huge = binary.LittleEndian.AppendUint64(huge, 1)
	huge = binary.LittleEndian.AppendUint64(huge, 1<<62) // a key of 2^62 bytes
	tests := map[string]struct {
		header []byte
		size   int64
		want   string
	}{
		"empty":            {nil, 0, "too short for the GGUF magic"},
		"lfs pointer":      {[]byte("version https://git-lfs.github.com/spec/v1\n"), 44, `starts with "vers", not the GGUF magic`},
		"version 1":        {patch(4, 1), goodSize, "GGUFv1 is no longer supported"},
		"big-endian":       {patch(4, 3<<24), goodSize, "big-endian"},
		"truncated":        {good, goodSize - 1, "past the"},
		"header cut":       {good[:1000], 1000, "ends inside its header"},
		"key too long":     {huge, 1 << 20, "more than the 1048576"},
		"five dims":        {oneTensor([]uint64{32, 1, 1, 1, 1}, gguftest.F32), 1 << 20, "5 dimensions"},
		"unknown type":     {oneTensor([]uint64{32}, 31), 1 << 20, "ggml type 31"},
		"partial block":    {oneTensor([]uint64{100}, gguftest.Q4_K), 1 << 20, "not a multiple of Q4_K's block of 256"},
		"element overflow": {oneTensor([]uint64{1 << 40, 1 << 40}, gguftest.F32), 1 << 20, "64 bits"},
	}
	for name, test := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := gguf.Read(sparse{test.header, test.size}, test.size)
			if !errors.Is(err, modelfile.ErrInvalid) || !strings.Contains(err.Error(), test.want) {
				t.Fatalf("got %+v, %v; want a modelfile.ErrInvalid with %q", got, err, test.want)
			}
		})
	}
}

func TestPerLayerHeads(t *testing.T) {
	f := llama31(gguftest.Q4_K, gguftest.Q6_K).File()
	delete(f.Uint32s, "llama.attention.head_count_kv")
	f.PerLayer = map[string][]uint32{"llama.attention.head_count_kv": make([]uint32, 32)}
	got, err := read(t, f)
	if err != nil || got.HeadCountKV != 0 || got.HeadCount != 0 || got.BlockCount != 32 {
		t.Fatalf("got %+v, %v", got, err)
	}
}

// TestAttentionKeys reads the keys that change what a KV cache holds:
// a sliding window, latent attention, a value head size of its own.
func TestAttentionKeys(t *testing.T) {
	f := llama31(gguftest.Q4_K, gguftest.Q6_K).File()
	f.Uint32s["llama.attention.sliding_window"] = 4096
	f.Uint32s["llama.attention.kv_lora_rank"] = 512
	f.Uint32s["llama.attention.value_length"] = 96
	got, err := read(t, f)
	if err != nil || got.SlidingWindow != 4096 || got.KVLoraRank != 512 || got.ValueDim() != 96 || got.HeadDim() != 128 {
		t.Fatalf("got %+v, %v", got, err)
	}
	plain, err := read(t, llama31(gguftest.Q4_K, gguftest.Q6_K).File())
	if err != nil || plain.SlidingWindow != 0 || plain.KVLoraRank != 0 || plain.ValueDim() != 128 || plain.Recurrent {
		t.Fatalf("got %+v, %v", plain, err)
	}
	for _, key := range []string{"llama.ssm.state_size", "llama.full_attention_interval", "llama.wkv.head_size"} {
		hybrid := llama31(gguftest.Q4_K, gguftest.Q6_K).File()
		hybrid.Uint32s[key] = 4
		if got, err := read(t, hybrid); err != nil || !got.Recurrent {
			t.Errorf("%s: got %+v, %v; want Recurrent", key, got, err)
		}
	}
}

func FuzzRead(f *testing.F) {
	header, _ := llama31(gguftest.Q4_K, gguftest.Q6_K).File().Header()
	f.Add(header[:4096])
	small, _ := gguftest.File{Strings: map[string]string{"general.architecture": "llama"},
		Uint32s: map[string]uint32{"llama.block_count": 2}, Tokens: []string{"a", "b"},
		Tensors: []gguftest.Tensor{{Name: "w", Dims: []uint64{256, 2}, Type: gguftest.Q4_K}}}.Header()
	f.Add(small)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := gguf.Read(bytes.NewReader(data), int64(len(data)))
		if err != nil && !errors.Is(err, modelfile.ErrInvalid) {
			t.Fatalf("an error that is not a modelfile.ErrInvalid: %v", err)
		}
		if err == nil && (got.Parameters < 0 || got.WeightBytes < 0 || got.WeightBytes > int64(len(data))) {
			t.Fatalf("impossible sizes: %+v for %d bytes", got, len(data))
		}
	})
}

var update = flag.Bool("update", false, "rewrite the GGUF headers of the scenarios")

// scenarioModels are the GGUF files of testdata/scenarios/gpu-gguf-llama-cpp:
// their headers, which the scenario grows sparse to the files' sizes.
var scenarioModels = map[string]gguftest.Llama{
	"llama-3.1-8b-gguf/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf": llama31(gguftest.Q4_K, gguftest.Q6_K),
	"llama-3.1-8b-gguf/Meta-Llama-3.1-8B-Instruct-Q8_0.gguf":   llama31(gguftest.Q8_0, gguftest.Q8_0),
	"llama-3.1-70b-gguf/Meta-Llama-3.1-70B-Instruct-Q4_K_M.gguf": {Name: "Meta Llama 3.1 70B Instruct", Layers: 80,
		Embedding: 8192, FeedForward: 28672, Heads: 64, KVHeads: 8, Vocabulary: 128256, ContextLength: 131072,
		Weights: gguftest.Q4_K, Sensitive: gguftest.Q6_K},
}

// TestScenarioHeaders keeps the scenario's files the headers gguftest
// writes, and their sizes in its options.yaml.
func TestScenarioHeaders(t *testing.T) {
	dir := "../../../testdata/scenarios/gpu-gguf-llama-cpp/models"
	var grow []string
	for _, name := range slices.Sorted(maps.Keys(scenarioModels)) {
		header, size := scenarioModels[name].File().Header()
		grow = append(grow, fmt.Sprintf("  models/%s: \"%d\"\n", name, size))
		file := filepath.Join(dir, name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, header, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[:min(len(got), len(header))], header) {
			t.Errorf("%s is not the header gguftest writes: go test ./lint/model/gguf -run TestScenarioHeaders -update", file)
		}
	}
	options, err := os.ReadFile(filepath.Join(dir, "../options.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(grow, ""); !strings.Contains(string(options), want) {
		t.Errorf("options.yaml does not grow the files to their sizes:\n%s", want)
	}
}
