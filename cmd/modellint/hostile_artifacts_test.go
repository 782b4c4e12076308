package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/modellint/modellint/lint/image/imagetest"
)

// tarEntry is one entry of a hand-written layer.
type tarEntry struct {
	header  tar.Header
	content string
}

func layerTar(t *testing.T, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	writer := tar.NewWriter(&buf)
	for _, entry := range entries {
		header := entry.header
		if header.Typeflag == tar.TypeReg && header.Mode == 0 {
			header.Mode = 0o755
		}
		header.Size = int64(len(entry.content))
		if err := writer.WriteHeader(&header); err != nil {
			t.Fatal(err)
		}
		writer.Write([]byte(entry.content))
	}
	if err := writer.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeImage writes a docker-save tarball of an image with these layers
// and config, as `docker save` would.
func writeImage(t *testing.T, file string, config v1.Config, layers ...v1.Layer) string {
	t.Helper()
	img, err := mutate.AppendLayers(empty.Image, layers...)
	if err != nil {
		t.Fatal(err)
	}
	configFile, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	configFile = configFile.DeepCopy()
	configFile.OS, configFile.Architecture, configFile.Config = "linux", "amd64", config
	if img, err = mutate.ConfigFile(img, configFile); err != nil {
		t.Fatal(err)
	}
	if err := tarball.WriteToFile(file, nil, img); err != nil {
		t.Fatal(err)
	}
	return file
}

func plainLayer(t *testing.T, data []byte) v1.Layer {
	t.Helper()
	layer, err := imagetest.NewLayer(data, "gzip")
	if err != nil {
		t.Fatal(err)
	}
	return layer
}

func sha256Hash(data []byte) v1.Hash {
	sum := sha256.Sum256(data)
	return v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(sum[:])}
}

// manyEntriesLayer streams a gzip layer of count empty files without
// holding the tar (half a GiB of headers) in memory.
func manyEntriesLayer(t *testing.T, count int) v1.Layer {
	t.Helper()
	var compressed bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&compressed, gzip.BestSpeed)
	diff := sha256.New()
	writer := tar.NewWriter(io.MultiWriter(gz, diff))
	for i := 0; i < count; i++ {
		name := fmt.Sprintf("data/%03d/%d", i%1000, i)
		if err := writer.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644}); err != nil {
			t.Fatal(err)
		}
	}
	writer.Close()
	gz.Close()
	diffID := v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(diff.Sum(nil))}
	return imagetest.NewLayerFromCompressed(compressed.Bytes(), diffID, types.OCILayer)
}

// startFiles are the entries of an image that starts: /bin/serve, a
// static x86-64 ELF.
func startFiles(t *testing.T) []tarEntry {
	t.Helper()
	serve, err := imagetest.StubELF("stub-amd64")
	if err != nil {
		t.Fatal(err)
	}
	return []tarEntry{
		{tar.Header{Name: "bin/", Typeflag: tar.TypeDir, Mode: 0o755}, ""},
		{tar.Header{Name: "bin/serve", Typeflag: tar.TypeReg}, string(serve)},
	}
}

// TestHostileArtifacts lints hostile images and model dirs: each ends in a
// one-line error naming the input, or in the finding that is the right
// answer, within the time and memory limits.
func TestHostileArtifacts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a layer of a million entries")
	}
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	mkdir := func(name string) string {
		if err := os.MkdirAll(path(name), 0o755); err != nil {
			t.Fatal(err)
		}
		return path(name)
	}
	write := func(name string, data []byte) string {
		os.MkdirAll(filepath.Dir(path(name)), 0o755)
		if err := os.WriteFile(path(name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path(name)
	}
	symlink := func(target, name string) {
		if err := os.Symlink(target, path(name)); err != nil {
			t.Fatal(err)
		}
	}
	serve := v1.Config{Entrypoint: []string{"/bin/serve"}}

	// A safetensors header whose length is 2^63.
	header := make([]byte, 8)
	binary.LittleEndian.PutUint64(header, 1<<63)
	write("safetensors/model.safetensors", append(header, "{}"...))

	// A saved_model.pb whose meta_graphs field claims 4 GiB and ends.
	write("savedmodel/1/saved_model.pb", []byte{0x08, 0x01, 0x12, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0a, 0x02})

	// A model dir with a symlink leaving it and a directory cycle.
	write("outside/secret.bin", []byte("not part of the model"))
	write("escape/model.safetensors", safetensorsFile())
	symlink("../outside/secret.bin", "escape/extra.safetensors")
	// A model dir whose subdirectory links back to it, and a symlink loop.
	write("cycle/model.safetensors", safetensorsFile())
	mkdir("cycle/sub")
	symlink("..", "cycle/sub/up")
	symlink(path("cycle"), "cycle/sub/root")
	symlink("loop-b", "cycle/loop-a")
	symlink("loop-a", "cycle/loop-b")

	truncated := gzipBytes(layerTar(t, startFiles(t)...))
	truncated = truncated[:len(truncated)/2]
	// A zstd frame whose window descriptor asks for 2^41 bytes.
	oversizedWindow := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xf8, 0x01, 0x00, 0x00}
	bigConfig := serve
	for i := 0; bigConfigSize(bigConfig) < 50<<20; i++ {
		bigConfig.Env = append(bigConfig.Env, fmt.Sprintf("VAR_%d=%s", i, strings.Repeat("x", 1<<10)))
	}

	cases := []struct {
		name  string
		input func() string
		exit  int
		want  string // in the error after the input, or in the report
	}{
		{"nested50.yaml", func() string {
			return write("nested50.yaml", []byte("apiVersion: example.com/v1\nkind: Deep\nmetadata: {name: deep}\nspec: "+
				strings.Repeat("{a: ", 50)+"1"+strings.Repeat("}", 50)+"\n"))
		}, exitClean, ""},
		{"safetensors header 2^63", func() string { return path("safetensors") }, exitFindings, "header"},
		{"protobuf length past EOF", func() string { return path("savedmodel") }, exitFindings, "saved_model.pb"},
		{"symlink out of the model dir", func() string { return path("escape") }, exitFindings, "outside the model directory"},
		{"directory cycle and a symlink loop in the model dir", func() string { return path("cycle") }, exitClean, "loop-a is a symlink to loop-b"},
		{"../ in a layer", func() string {
			return writeImage(t, path("climb.tar"), serve, plainLayer(t, layerTar(t, append(startFiles(t),
				tarEntry{tar.Header{Name: "../../etc/cron.d/x", Typeflag: tar.TypeReg}, "x"})...)))
		}, exitError, "climbs"},
		{"absolute path in a layer", func() string {
			return writeImage(t, path("absolute.tar"), v1.Config{Entrypoint: []string{"/opt/serve"}}, plainLayer(t, layerTar(t,
				tarEntry{tar.Header{Name: "/opt/serve", Typeflag: tar.TypeReg, Mode: 0o644}, "#!/bin/sh\n"})))
		}, exitFindings, "/opt/serve"},
		{"hard link to a missing target", func() string {
			return writeImage(t, path("hardlink.tar"), serve, plainLayer(t, layerTar(t, append(startFiles(t),
				tarEntry{tar.Header{Name: "bin/other", Typeflag: tar.TypeLink, Linkname: "bin/missing"}, ""})...)))
		}, exitError, "missing"},
		{"symlink loop on the start path", func() string {
			return writeImage(t, path("loop.tar"), v1.Config{Entrypoint: []string{"/start"}}, plainLayer(t, layerTar(t,
				tarEntry{tar.Header{Name: "start", Typeflag: tar.TypeSymlink, Linkname: "loop"}, ""},
				tarEntry{tar.Header{Name: "loop", Typeflag: tar.TypeSymlink, Linkname: "/start"}, ""})))
		}, exitFindings, "/start"},
		{"a million entries in one layer", func() string {
			return writeImage(t, path("million.tar"), serve, plainLayer(t, layerTar(t, startFiles(t)...)), manyEntriesLayer(t, 1_000_000))
		}, exitError, "entries in one layer"},
		{"truncated gzip layer", func() string {
			return writeImage(t, path("truncated.tar"), serve,
				imagetest.NewLayerFromCompressed(truncated, sha256Hash(nil), types.OCILayer))
		}, exitError, "layer"},
		{"zstd window of 2 TiB", func() string {
			return writeImage(t, path("window.tar"), serve,
				imagetest.NewLayerFromCompressed(oversizedWindow, sha256Hash(nil), types.OCILayerZStd))
		}, exitError, "window"},
		{"image config of 50 MB", func() string {
			return writeImage(t, path("bigconfig.tar"), bigConfig, plainLayer(t, layerTar(t, startFiles(t)...)))
		}, exitError, "more than 4194304"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			input := c.input()
			output := runHostile(t, []string{"--no-color", "--no-cache", input}, c.exit)
			if c.exit == exitError && !strings.Contains(output, input) {
				t.Errorf("error %q does not name %s", output, input)
			}
			if !strings.Contains(output, c.want) {
				t.Errorf("output %q does not contain %q", truncate(output, 4000), c.want)
			}
		})
	}
}

func bigConfigSize(config v1.Config) int {
	size := 0
	for _, env := range config.Env {
		size += len(env) + 3
	}
	return size
}

func gzipBytes(data []byte) []byte {
	var buf bytes.Buffer
	writer := gzip.NewWriter(&buf)
	writer.Write(data)
	writer.Close()
	return buf.Bytes()
}

// safetensorsFile is a valid safetensors file of one 2x2 float32 tensor.
func safetensorsFile() []byte {
	header := []byte(`{"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}`)
	data := make([]byte, 8, 8+len(header)+16)
	binary.LittleEndian.PutUint64(data, uint64(len(header)))
	data = append(data, header...)
	return append(data, make([]byte, 16)...)
}
