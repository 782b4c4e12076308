package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/klauspost/compress/zstd"

	"github.com/modellint/modellint/lint/image/imagetest"
)

// TestHostileLayerBounds lints images whose layers would make a reader
// work without end: bombs that inflate to tens of GiB, one layer listed
// 20,000 times, ld.so.conf includes that include themselves, thousands
// of large conf files. A bomb inflates as fast as a real layer of zeros
// and is stopped by what the image may inflate to or by the time, which
// the cases lower so that a bomb is not read for a minute.
func TestHostileLayerBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds layers of hundreds of MiB")
	}
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	serve := v1.Config{Entrypoint: []string{"/bin/serve"}}
	bomb := func(file string, size int64, compression string) func() string {
		mediaType := types.OCILayer
		if compression == "zstd" {
			mediaType = types.OCILayerZStd
		}
		return func() string {
			return writeImage(t, path(file), serve, plainLayer(t, layerTar(t, startFiles(t)...)),
				imagetest.NewLayerFromCompressed(zeroBomb(t, size, compression), sha256Hash(nil), mediaType))
		}
	}
	cases := []struct {
		name  string
		input func() string
		args  []string
		exit  int
		want  string
	}{
		{"gzip bomb of 50 GiB", bomb("gzip-bomb.tar", 50<<30, "gzip"), []string{"--max-image-size", "1Gi"},
			exitError, "more than the 1 GiB --max-image-size allows"},
		{"zstd bomb of 20 GiB", bomb("zstd-bomb.tar", 20<<30, "zstd"), []string{"--max-image-size", "1Gi"},
			exitError, "more than the 1 GiB --max-image-size allows"},
		{"gzip bomb of 50 GiB under the deprecated --max-layer-size", bomb("gzip-bomb-layer.tar", 50<<30, "gzip"),
			[]string{"--max-layer-size", "100Mi"}, exitError, "more than the 100 MiB --max-layer-size allows"},
		{"gzip bomb of 50 GiB under --timeout", bomb("gzip-bomb-timeout.tar", 50<<30, "gzip"), []string{"--timeout", "1s"},
			exitError, "--timeout 1s"},
		{"one layer listed 20,000 times", func() string {
			layer := layerTar(t, startFiles(t)...)
			return writeRepeatedLayerArchive(t, path("repeated.tar"), serve, layer, 20_000)
		}, nil, exitError, "20000 layers, more than the 500"},
		{"one layer listed 400 times", func() string {
			layer := layerTar(t, startFiles(t)...)
			return writeRepeatedLayerArchive(t, path("repeated400.tar"), serve, layer, 400)
		}, nil, exitClean, ""},
		{"300 ld.so.conf.d files of 1 MiB", func() string {
			return writeImage(t, path("confs.tar"), serve, plainLayer(t, layerTar(t, startFiles(t)...)), confFilesLayer(t, 300, 1<<20))
		}, nil, exitClean, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			input := c.input()
			args := append([]string{"--no-color", "--no-cache", input}, c.args...)
			output := runHostile(t, args, c.exit)
			t.Log(truncate(output, 400))
			if c.exit == exitError && !strings.Contains(output, input) {
				t.Errorf("error %q does not name %s", output, input)
			}
			if !strings.Contains(output, c.want) {
				t.Errorf("output %q does not contain %q", truncate(output, 4000), c.want)
			}
		})
	}
}

// TestCompressibleModelLayer lints the scenario of a TF Serving model baked
// into its image, with the model's variables grown to 1.2 GiB of zeros,
// which gzip stores in 1.5 MB (824:1, as compressible as a bomb): the
// layer is read with the default bounds, within the hostile inputs' time
// and memory, and the memory limit is reported below the model (MDL401).
func TestCompressibleModelLayer(t *testing.T) {
	if testing.Short() {
		t.Skip("inflates a layer of 1.2 GiB")
	}
	scenario := "../../testdata/scenarios/bundle-tfserving-baked-large"
	spec, err := imagetest.ReadSpec(filepath.Join(scenario, "images.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	imageSpec := &spec.Images[0]
	const variables = "/models/my_model/1/variables/variables.data-00000-of-00001"
	modelLayer := &imageSpec.Layers[len(imageSpec.Layers)-1]
	modelLayer.Files = slices.DeleteFunc(modelLayer.Files, func(file imagetest.FileSpec) bool { return file.Path == variables })
	built, err := imagetest.Build(imageSpec, nil)
	if err != nil {
		t.Fatal(err)
	}
	zeros, err := imagetest.ZeroFileLayer(variables, 6<<30/5)
	if err != nil {
		t.Fatal(err)
	}
	platform := built.Order[0]
	if built.Images[platform], err = mutate.AppendLayers(built.Images[platform], zeros); err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(t.TempDir(), "image.tar")
	if err := imagetest.WriteTarball(tarball, built, ""); err != nil {
		t.Fatal(err)
	}
	output := runHostile(t, []string{"--no-color", "--no-cache", "-f", "json", "--image", imageSpec.Ref + "=" + tarball,
		filepath.Join(scenario, "deployment.yaml")}, exitFindings)
	if !strings.Contains(output, `"rule": "MDL401"`) || !strings.Contains(output, "memory limit 256Mi is below the 1.2 GiB model itself") {
		t.Errorf("no MDL401 for the 1.2 GiB model:\n%s", truncate(output, 4000))
	}
}

// TestHostileLibraryConf lints an image whose ld.so.conf.d files each
// include their own directory: each file is read once, and the missing
// library is still reported.
func TestHostileLibraryConf(t *testing.T) {
	builder := imagetest.ELF(t)
	program, err := builder.Build("needs-libfoo")
	if err != nil {
		t.Fatal(err)
	}
	loader, err := builder.Build("loader")
	if err != nil {
		t.Fatal(err)
	}
	libc, err := builder.Build("libc")
	if err != nil {
		t.Fatal(err)
	}
	entries := []tarEntry{
		{tar.Header{Name: "bin/", Typeflag: tar.TypeDir, Mode: 0o755}, ""},
		{tar.Header{Name: "bin/serve", Typeflag: tar.TypeReg}, string(program)},
		{tar.Header{Name: "lib64/", Typeflag: tar.TypeDir, Mode: 0o755}, ""},
		{tar.Header{Name: "lib64/ld-linux-x86-64.so.2", Typeflag: tar.TypeReg}, string(loader)},
		{tar.Header{Name: "lib/x86_64-linux-gnu/", Typeflag: tar.TypeDir, Mode: 0o755}, ""},
		{tar.Header{Name: "lib/x86_64-linux-gnu/libc.so.6", Typeflag: tar.TypeReg}, string(libc)},
		{tar.Header{Name: "etc/ld.so.conf", Typeflag: tar.TypeReg, Mode: 0o644}, "include /etc/ld.so.conf.d/*.conf\n"},
		{tar.Header{Name: "etc/ld.so.conf.d/", Typeflag: tar.TypeDir, Mode: 0o755}, ""},
	}
	for i := 0; i < 40; i++ {
		entries = append(entries, tarEntry{tar.Header{Name: fmt.Sprintf("etc/ld.so.conf.d/%02d.conf", i), Typeflag: tar.TypeReg, Mode: 0o644},
			fmt.Sprintf("include /etc/ld.so.conf.d/*.conf\n/opt/lib%d\n", i)})
	}
	file := writeImage(t, filepath.Join(t.TempDir(), "ldconf.tar"), v1.Config{Entrypoint: []string{"/bin/serve"}}, plainLayer(t, layerTar(t, entries...)))
	output := runHostile(t, []string{"--no-color", "--no-cache", "-f", "github", file}, exitClean)
	if !strings.Contains(output, "libfoo.so.1") {
		t.Errorf("output %q does not report the missing libfoo.so.1", truncate(output, 4000))
	}
}

// zeroBomb is a layer that inflates to a tar of one file of size zero
// bytes: the compressed form of a MiB of zeros, repeated (gzip members
// and zstd frames may follow one another).
func zeroBomb(t *testing.T, size int64, compression string) []byte {
	t.Helper()
	var header bytes.Buffer
	writer := tar.NewWriter(&header)
	writer.WriteHeader(&tar.Header{Name: "data/zeros", Typeflag: tar.TypeReg, Mode: 0o644, Size: size})
	writer.Flush()
	zeros := make([]byte, 1<<20)
	var compress func([]byte) []byte
	switch compression {
	case "gzip":
		compress = func(data []byte) []byte {
			var buf bytes.Buffer
			gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			gz.Write(data)
			gz.Close()
			return buf.Bytes()
		}
	case "zstd":
		encoder, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		defer encoder.Close()
		compress = func(data []byte) []byte { return encoder.EncodeAll(data, nil) }
	}
	block := compress(zeros)
	out := compress(header.Bytes())
	for written := int64(0); written < size; written += int64(len(zeros)) {
		out = append(out, block...)
	}
	return out
}

// confFilesLayer is a layer of count ld.so.conf.d files of size bytes each.
func confFilesLayer(t *testing.T, count, size int) v1.Layer {
	t.Helper()
	var entries []tarEntry
	content := strings.Repeat("/opt/lib\n", size/9)
	for i := 0; i < count; i++ {
		entries = append(entries, tarEntry{tar.Header{Name: fmt.Sprintf("etc/ld.so.conf.d/%04d.conf", i), Typeflag: tar.TypeReg, Mode: 0o644}, content})
	}
	return plainLayer(t, layerTar(t, entries...))
}

// writeArchiveNaming writes a docker-save archive of one layer whose
// manifest.json names the config and the layer as given (the members are
// stored under those names, cleaned).
func writeArchiveNaming(t *testing.T, file string, layer []byte, configName, layerName string) {
	t.Helper()
	configFile := v1.ConfigFile{OS: "linux", Architecture: "amd64", Config: v1.Config{Entrypoint: []string{"/bin/serve"}},
		RootFS: v1.RootFS{Type: "layers", DiffIDs: []v1.Hash{sha256Hash(layer)}}}
	configJSON, _ := json.Marshal(configFile)
	manifestJSON, _ := json.Marshal([]map[string]any{{"Config": configName, "Layers": []string{layerName}}})
	writeArchiveMembers(t, file, map[string][]byte{"manifest.json": manifestJSON, configName: configJSON, layerName: layer})
}

func writeArchiveMembers(t *testing.T, file string, members map[string][]byte) {
	t.Helper()
	out, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	writer := tar.NewWriter(out)
	for _, name := range []string{"manifest.json"} {
		writer.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(members[name]))})
		writer.Write(members[name])
	}
	for name, data := range members {
		if name == "manifest.json" {
			continue
		}
		writer.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data))})
		writer.Write(data)
	}
	if err := writer.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeRepeatedLayerArchive writes a docker-save archive whose manifest
// lists one layer count times.
func writeRepeatedLayerArchive(t *testing.T, file string, config v1.Config, layer []byte, count int) string {
	t.Helper()
	diffID := sha256Hash(layer)
	configFile := v1.ConfigFile{OS: "linux", Architecture: "amd64", Config: config, RootFS: v1.RootFS{Type: "layers"}}
	layers := make([]string, count)
	for i := range layers {
		configFile.RootFS.DiffIDs = append(configFile.RootFS.DiffIDs, diffID)
		layers[i] = "layer.tar"
	}
	configJSON, _ := json.Marshal(configFile)
	manifestJSON, _ := json.Marshal([]map[string]any{{"Config": "config.json", "RepoTags": []string{"example.com/repeated:1"}, "Layers": layers}})
	out, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	writer := tar.NewWriter(out)
	for _, member := range []struct {
		name string
		data []byte
	}{{"manifest.json", manifestJSON}, {"config.json", configJSON}, {"layer.tar", layer}} {
		writer.WriteHeader(&tar.Header{Name: member.name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(member.data))})
		io.Copy(writer, bytes.NewReader(member.data))
	}
	if err := writer.Close(); err != nil {
		t.Fatal(err)
	}
	return file
}
