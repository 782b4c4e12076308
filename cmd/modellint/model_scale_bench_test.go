package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Model dirs at the scale of the largest real ones and beyond: a million
// tensors in one safetensors header, a sharded checkpoint of 100,000
// shards, a TF Serving base path of 100,000 versions. Each is linted in a
// subprocess, reporting its peak RSS (peak-MiB) and CPU time (cpu-s).

const (
	scaleTensors  = 1_000_000
	scaleShards   = 100_000
	scaleVersions = 100_000
)

// writeSafetensors writes a .safetensors file of F16 tensors of elements
// each, named by name(i); the data is left to grow sparse.
func writeSafetensors(tb testing.TB, file string, tensors, elements int, name func(int) string) {
	tb.Helper()
	var header strings.Builder
	header.WriteString("{")
	for i := 0; i < tensors; i++ {
		if i > 0 {
			header.WriteString(",")
		}
		fmt.Fprintf(&header, `%q:{"dtype":"F16","shape":[%d],"data_offsets":[%d,%d]}`, name(i), elements, 2*elements*i, 2*elements*(i+1))
	}
	header.WriteString("}")
	out, err := os.Create(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer out.Close()
	prefix := binary.LittleEndian.AppendUint64(nil, uint64(header.Len()))
	if _, err := out.Write(append(prefix, header.String()...)); err != nil {
		tb.Fatal(err)
	}
	if err := out.Truncate(int64(8 + header.Len() + 2*elements*tensors)); err != nil {
		tb.Fatal(err)
	}
}

// writeMillionTensors is a Hugging Face model dir whose one safetensors
// file holds scaleTensors tensors (a header of about 80 MB).
func writeMillionTensors(tb testing.TB) string {
	dir := filepath.Join(tb.TempDir(), "llm")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"model_type": "llama", "torch_dtype": "float16"}`), 0o644)
	writeSafetensors(tb, filepath.Join(dir, "model.safetensors"), scaleTensors, 1, func(i int) string {
		return fmt.Sprintf("model.layers.%d.mlp.weight", i)
	})
	return dir
}

// writeShardedCheckpoint is a model dir with a model.safetensors.index.json
// of scaleShards shards, each present with the one tensor the index maps
// to it (of 2 MiB, left sparse).
func writeShardedCheckpoint(tb testing.TB) string {
	dir := filepath.Join(tb.TempDir(), "llm")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"model_type": "llama", "torch_dtype": "float16"}`), 0o644)
	var index strings.Builder
	fmt.Fprintf(&index, "{\"metadata\": {\"total_size\": %d},\n\"weight_map\": {\n", 2*scaleShards)
	for i := 0; i < scaleShards; i++ {
		shard := fmt.Sprintf("model-%06d-of-%06d.safetensors", i+1, scaleShards)
		tensor := fmt.Sprintf("model.layers.%d.weight", i)
		if i > 0 {
			index.WriteString(",\n")
		}
		fmt.Fprintf(&index, "  %q: %q", tensor, shard)
		writeSafetensors(tb, filepath.Join(dir, shard), 1, 1<<20, func(int) string { return tensor })
	}
	index.WriteString("\n}}\n")
	os.WriteFile(filepath.Join(dir, "model.safetensors.index.json"), []byte(index.String()), 0o644)
	return dir
}

// writeManyVersions is a TF Serving base path of scaleVersions version
// dirs, each holding the half_plus_two saved_model.pb (hard links to a few
// copies, within a file system's link limit: the content is read per
// version all the same), the latest with its variables and assets too.
func writeManyVersions(tb testing.TB) string {
	source := "../../testdata/models/saved_model_half_plus_two_cpu/00000123"
	graphData, err := os.ReadFile(filepath.Join(source, "saved_model.pb"))
	if err != nil {
		tb.Fatal(err)
	}
	copies := tb.TempDir()
	dir := filepath.Join(tb.TempDir(), "half_plus_two")
	const linksPerCopy = 50_000
	for version := 1; version <= scaleVersions; version++ {
		graph := filepath.Join(copies, fmt.Sprintf("saved_model-%d.pb", version/linksPerCopy))
		if version%linksPerCopy == 0 || version == 1 {
			if err := os.WriteFile(graph, graphData, 0o644); err != nil {
				tb.Fatal(err)
			}
		}
		versionDir := filepath.Join(dir, fmt.Sprint(version))
		if err := os.MkdirAll(versionDir, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.Link(graph, filepath.Join(versionDir, "saved_model.pb")); err != nil {
			tb.Fatal(err)
		}
	}
	latest := filepath.Join(dir, fmt.Sprint(scaleVersions))
	for _, name := range []string{"variables/variables.index", "variables/variables.data-00000-of-00001", "assets/foo.txt"} {
		data, err := os.ReadFile(filepath.Join(source, name))
		if err != nil {
			tb.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(latest, name)), 0o755)
		os.WriteFile(filepath.Join(latest, name), data, 0o644)
	}
	return dir
}

func modelScaleArgs(dir string) []string {
	return []string{"--offline", "--no-color", "-f", "json", dir}
}

// BenchmarkModelMillionTensors lints one safetensors file of 10^6 tensors.
func BenchmarkModelMillionTensors(b *testing.B) {
	benchmarkProcess(b, modelScaleArgs(writeMillionTensors(b)), exitClean, exitFindings)
}

// BenchmarkModelShards100k lints a checkpoint of 100,000 safetensors shards.
func BenchmarkModelShards100k(b *testing.B) {
	benchmarkProcess(b, modelScaleArgs(writeShardedCheckpoint(b)), exitClean, exitFindings)
}

// BenchmarkModelVersions100k lints a TF Serving base path of 100,000 versions.
func BenchmarkModelVersions100k(b *testing.B) {
	benchmarkProcess(b, modelScaleArgs(writeManyVersions(b)), exitClean, exitFindings)
}
