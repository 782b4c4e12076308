package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/modellint/modellint/lint/image/imagetest"
)

// TestHostileLayerContent lints images whose layers are not what their
// manifests and configs say: each is an error naming the image, the layer
// and both digests, whatever the source.
func TestHostileLayerContent(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	serve := v1.Config{Entrypoint: []string{"/bin/serve"}}
	goodTar := layerTar(t, startFiles(t)...)
	otherTar := layerTar(t, tarEntry{tar.Header{Name: "bin/", Typeflag: tar.TypeDir, Mode: 0o755}, ""})

	flipped := gzipBytes(append(goodTar, bytes.Repeat([]byte("padding that compresses "), 4096)...))
	flipped[len(flipped)/2] ^= 0x40

	cases := []struct {
		name  string
		input func() string
		want  string
	}{
		{"docker-save layer that is not its diff ID", func() string {
			return writeImage(t, path("claims.tar"), serve,
				imagetest.NewLayerFromCompressed(gzipBytes(goodTar), sha256Hash(otherTar), types.OCILayer))
		}, "not the diff ID " + sha256Hash(otherTar).String()},
		{"one flipped byte in a gzip layer", func() string {
			return writeImage(t, path("flipped.tar"), serve,
				imagetest.NewLayerFromCompressed(flipped, sha256Hash(goodTar), types.OCILayer))
		}, "layer 1/1"},
		{"OCI layout blob that is not its digest", func() string {
			layer := plainLayer(t, goodTar)
			dir := writeLayout(t, path("layout"), serve, layer)
			digest, _ := layer.Digest()
			// The same tar compressed otherwise: the diff ID still holds,
			// the blob's digest does not.
			var recompressed bytes.Buffer
			writer, _ := gzip.NewWriterLevel(&recompressed, gzip.BestCompression)
			writer.Write(goodTar)
			writer.Close()
			if err := os.WriteFile(filepath.Join(dir, "blobs", "sha256", digest.Hex), recompressed.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "not the digest sha256:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			input := c.input()
			output := runHostile(t, []string{"--no-color", "--no-cache", input}, exitError)
			t.Log(output)
			if !strings.Contains(output, input) || !strings.Contains(output, c.want) || !strings.Contains(output, "layer 1/1") {
				t.Errorf("error %q does not name %s, the layer and %q", output, input, c.want)
			}
		})
	}
}

// TestCachePoison lints an image whose good layer claims a bad layer's
// diff ID, then the bad image with the same cache: the first run fails on
// the mismatch and caches nothing, so the second still finds the problem.
func TestCachePoison(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	serve := v1.Config{Entrypoint: []string{"/bin/serve"}}
	goodTar := layerTar(t, startFiles(t)...)
	badTar := layerTar(t, tarEntry{tar.Header{Name: "bin/", Typeflag: tar.TypeDir, Mode: 0o755}, ""})
	poison := writeImage(t, filepath.Join(dir, "poison.tar"), serve,
		imagetest.NewLayerFromCompressed(gzipBytes(goodTar), sha256Hash(badTar), types.OCILayer))
	bad := writeImage(t, filepath.Join(dir, "bad.tar"), serve, plainLayer(t, badTar))

	before := runHostile(t, []string{"--no-color", "--cache-dir", filepath.Join(dir, "fresh"), bad}, exitFindings)
	runHostile(t, []string{"--no-color", "--cache-dir", cache, poison}, exitError)
	after := runHostile(t, []string{"--no-color", "--cache-dir", cache, bad}, exitFindings)
	if !strings.Contains(after, "/bin/serve") || after != before {
		t.Errorf("after the poison attempt the bad image reports\n%s\nwant\n%s", after, before)
	}

	// An entry torn or altered on disk is discarded, not trusted.
	entries, _ := filepath.Glob(filepath.Join(cache, "layers", "*"))
	if len(entries) == 0 {
		t.Fatal("the bad image's layer was not cached")
	}
	for _, entry := range entries {
		data, _ := os.ReadFile(entry)
		data[len(data)-1] ^= 0xff
		os.WriteFile(entry, data, 0o644)
	}
	if again := runHostile(t, []string{"--no-color", "--cache-dir", cache, bad}, exitFindings); again != before {
		t.Errorf("with an altered cache entry the bad image reports\n%s\nwant\n%s", again, before)
	}
}

// writeLayout writes an OCI image layout of one image.
func writeLayout(t *testing.T, dir string, config v1.Config, layers ...v1.Layer) string {
	t.Helper()
	img, err := mutate.AppendLayers(empty.Image, layers...)
	if err != nil {
		t.Fatal(err)
	}
	configFile, _ := img.ConfigFile()
	configFile = configFile.DeepCopy()
	configFile.OS, configFile.Architecture, configFile.Config = "linux", "amd64", config
	if img, err = mutate.ConfigFile(img, configFile); err != nil {
		t.Fatal(err)
	}
	written, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := written.AppendImage(img); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHostileSaveMembers lints docker-save archives whose manifest.json
// names members outside the archive, which docker load refuses.
func TestHostileSaveMembers(t *testing.T) {
	dir := t.TempDir()
	layer := layerTar(t, startFiles(t)...)
	for _, c := range []struct{ name, config, layer string }{
		{"config climbing out", "../cfg.json", "layer.tar"},
		{"absolute layer", "config.json", "/abs/layer.tar"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".tar")
			writeArchiveNaming(t, file, layer, c.config, c.layer)
			output := runHostile(t, []string{"--no-color", "--no-cache", file}, exitError)
			if !strings.Contains(output, file) || !strings.Contains(output, "outside the archive") {
				t.Errorf("error %q does not name %s and the member outside it", output, file)
			}
		})
	}
}

// TestHostileLayoutFiles lints an OCI layout whose index.json is a FIFO:
// refused before it is opened, naming it.
func TestHostileLayoutFiles(t *testing.T) {
	layer := plainLayer(t, layerTar(t, startFiles(t)...))
	dir := writeLayout(t, filepath.Join(t.TempDir(), "layout"), v1.Config{Entrypoint: []string{"/bin/serve"}}, layer)
	index := filepath.Join(dir, "index.json")
	os.Remove(index)
	if err := syscall.Mkfifo(index, 0o644); err != nil {
		t.Fatal(err)
	}
	output := runHostile(t, []string{"--no-color", "--no-cache", "--image", "example.com/serve:1=" + dir, dir}, exitError)
	if !strings.Contains(output, index) || !strings.Contains(output, "named pipe") {
		t.Errorf("error %q does not name the FIFO index.json", output)
	}
}
