package rules_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/rules"
)

// BenchmarkLintModelDir lints model dirs of 1 GiB and 100 GiB made of
// sparse files, side by side: modellint reads headers and stats sizes, so
// the two must take the same time. A difference means weights are read.
func BenchmarkLintModelDir(b *testing.B) {
	layouts := map[string]func(b *testing.B, dir string, size int64){
		"tfserving":   sparseSavedModel,
		"safetensors": sparseSafetensors,
	}
	for _, layout := range []string{"tfserving", "safetensors"} {
		for _, size := range []struct {
			name  string
			bytes int64
		}{{"1GiB", 1 << 30}, {"100GiB", 100 << 30}} {
			dir := filepath.Join(b.TempDir(), "model")
			layouts[layout](b, dir, size.bytes)
			options := engine.Options{Paths: []string{dir}, Rules: rules.All(), Config: &lint.Config{}}
			b.Run(layout+"/"+size.name, func(b *testing.B) {
				for b.Loop() {
					result, err := engine.Run(options)
					if err != nil {
						b.Fatal(err)
					}
					if n := result.Count(lint.Error); n != 0 {
						b.Fatalf("%d error findings on a valid model: %+v", n, result.Findings)
					}
				}
			})
		}
	}
}

// sparseSavedModel is a TF Serving base path whose variables shard is
// size bytes, almost all of it a hole.
func sparseSavedModel(b *testing.B, dir string, size int64) {
	copyTestModel(b, "saved_model_half_plus_two_cpu/00000123", filepath.Join(dir, "1"))
	truncate(b, filepath.Join(dir, "1", "variables", "variables.data-00000-of-00001"), size)
}

// sparseSafetensors is a checkpoint of one tensor of size bytes.
func sparseSafetensors(b *testing.B, dir string, size int64) {
	header := fmt.Sprintf(`{"weight":{"dtype":"U8","shape":[%d],"data_offsets":[0,%d]}}`, size, size)
	data := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	data = append(data, header...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(dir, "model.safetensors")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		b.Fatal(err)
	}
	truncate(b, file, int64(len(data))+size)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"architectures": ["LlamaForCausalLM"]}`), 0o644); err != nil {
		b.Fatal(err)
	}
}

func truncate(b *testing.B, file string, size int64) {
	if err := os.Truncate(file, size); err != nil {
		testenv.Unavailable(b, "cannot make a sparse file here: "+err.Error())
	}
}
