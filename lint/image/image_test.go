package image_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/imagetest"
	"github.com/modellint/modellint/lint/image/rootfs"
)

func serverSpec() *imagetest.ImageSpec {
	return &imagetest.ImageSpec{
		Ref:       "registry.example.com/serving/server:1.0",
		Platforms: []string{"linux/amd64", "linux/arm64"},
		Config:    imagetest.ConfigSpec{Entrypoint: []string{"/usr/bin/serve"}},
		Layers: []imagetest.LayerSpec{
			{Files: []imagetest.FileSpec{{Path: "/usr/bin/serve", ELF: "stub-amd64"}, {Path: "/etc/passwd", Content: "root:x:0:0::/:/bin/sh\n"}}},
			{Compression: "zstd", Files: []imagetest.FileSpec{{Path: "/usr/bin/tool", Content: "#!/bin/sh\n", Mode: "0755"}}},
		},
	}
}

// TestRegistry reads images from a real registry (Debian's docker-registry;
// go-containerregistry's in-process one under -short): an index with two
// platforms, a missing tag, and a registry that is not there.
func TestRegistry(t *testing.T) {
	registry := imagetest.StartRegistry(t)
	built, err := imagetest.Build(serverSpec(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := registry.Ref("serving/server:1.0")
	if err := imagetest.Push(ref, built); err != nil {
		t.Fatalf("push to %s: %v", registry.Kind, err)
	}
	ctx := context.Background()

	for _, arch := range []string{"amd64", "arm64"} {
		img, err := image.Open(ctx, ref, image.SourceRegistry, image.Options{Platform: v1.Platform{OS: "linux", Architecture: arch}})
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if img.Unresolvable != "" || img.Config.Architecture != arch || !strings.HasPrefix(img.Digest, "sha256:") {
			t.Errorf("%s: resolved to %q %s (%s)", arch, img.Config.Architecture, img.Digest, img.Unresolvable)
		}
		if node, err := img.FS().Stat("/usr/bin/tool"); err != nil || node.Mode != 0o755 {
			t.Errorf("%s: zstd layer not indexed: %v %v", arch, node, err)
		}
	}

	img, err := image.Open(ctx, ref, "", image.Options{Platform: v1.Platform{OS: "linux", Architecture: "s390x"}})
	if err != nil || !strings.Contains(img.Unresolvable, "no image for linux/s390x (it has linux/amd64, linux/arm64)") {
		t.Errorf("missing platform: %v %q", err, img.Unresolvable)
	}
	img, err = image.Open(ctx, registry.Ref("serving/server:2.0-never-pushed"), "", image.Options{})
	if err != nil || !strings.Contains(img.Unresolvable, "MANIFEST_UNKNOWN") {
		t.Errorf("missing tag: %v %+v", err, img)
	}
	// A missing repository: go-containerregistry's registry (-short)
	// answers NAME_UNKNOWN, Distribution's docker-registry MANIFEST_UNKNOWN,
	// as it does for any tag it has no link for. Either is "no such image".
	missingRepository := "MANIFEST_UNKNOWN"
	if registry.Kind == "in-process" {
		missingRepository = "NAME_UNKNOWN: it has no repository of this name"
	}
	img, err = image.Open(ctx, registry.Ref("nobody/nothing:1"), "", image.Options{})
	if err != nil || !strings.Contains(img.Unresolvable, "the registry has no such image ("+missingRepository) {
		t.Errorf("missing repository on %s: %v %+v", registry.Kind, err, img)
	}
	// A mapping to another registry reference (a mirror) reads that one
	// and reports the manifest's reference.
	img, err = image.Open(ctx, "registry.example.com/serving/server:1.0", "docker://"+ref, image.Options{})
	if err != nil || img.Reference != "registry.example.com/serving/server:1.0" || img.FS() == nil {
		t.Errorf("mirror mapping: %v %+v", err, img)
	}
}

func TestRegistryUnreachable(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := listener.Addr().String()
	listener.Close()
	_, err = image.Open(context.Background(), closed+"/serving/server:1.0", "", image.Options{})
	var unreachable *image.UnreachableError
	if !errors.As(err, &unreachable) {
		t.Fatalf("closed port: %v, want an UnreachableError", err)
	}
}

// TestSourcesAgree reads the same image as a tarball, an OCI layout and
// from a registry: the config, layers and merged index must be equal.
func TestSourcesAgree(t *testing.T) {
	spec := serverSpec()
	spec.Platforms = nil
	built, err := imagetest.Build(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tarball := filepath.Join(dir, "image.tar")
	if err := imagetest.WriteTarball(tarball, built, ""); err != nil {
		t.Fatal(err)
	}
	layout := filepath.Join(dir, "layout")
	if err := imagetest.WriteLayout(layout, built); err != nil {
		t.Fatal(err)
	}
	registry := imagetest.StartRegistry(t)
	pushed := registry.Ref("serving/server:agree")
	if err := imagetest.Push(pushed, built); err != nil {
		t.Fatal(err)
	}
	if !image.IsSource(tarball) || !image.IsSource(layout) || image.IsSource(dir) {
		t.Errorf("IsSource: tarball %v, layout %v, plain dir %v", image.IsSource(tarball), image.IsSource(layout), image.IsSource(dir))
	}
	var listings []string
	for _, source := range []string{tarball, layout, "docker://" + pushed} {
		img, err := image.Open(context.Background(), spec.Ref, source, image.Options{})
		if err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		var listing strings.Builder
		listing.WriteString(strings.Join(img.Config.Config.Entrypoint, " ") + "\n")
		for _, layer := range img.Layers {
			listing.WriteString(layer.DiffID + "\n")
		}
		img.FS().Walk(func(n *rootfs.Node) {
			listing.WriteString(n.Path() + " " + n.FileMode().String() + " " + img.LayerOf(n) + "\n")
		})
		listings = append(listings, listing.String())
	}
	for i := 1; i < len(listings); i++ {
		if listings[i] != listings[0] {
			t.Errorf("source %d differs:\n%s\nvs\n%s", i, listings[i], listings[0])
		}
	}
}

// writeRawImage writes an OCI layout whose single layer is the given tar
// bytes, gzip-compressed or cut short.
func writeRawImage(t *testing.T, tarData []byte, truncate bool) string {
	t.Helper()
	layer, err := imagetest.NewLayer(tarData, "gzip")
	if err != nil {
		t.Fatal(err)
	}
	var added v1.Layer = layer
	if truncate {
		compressed, _ := layer.Compressed()
		var buf bytes.Buffer
		buf.ReadFrom(compressed)
		diffID, _ := layer.DiffID()
		added = imagetest.NewLayerFromCompressed(buf.Bytes()[:buf.Len()/2], diffID, types.OCILayer)
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img, err := mutate.AppendLayers(base, added)
	if err != nil {
		t.Fatal(err)
	}
	built := &imagetest.Built{Spec: &imagetest.ImageSpec{Ref: "example.com/hostile:1"}, Images: map[string]v1.Image{"linux/amd64": img},
		Order: []string{"linux/amd64"}}
	dir := filepath.Join(t.TempDir(), "layout")
	if err := imagetest.WriteLayout(dir, built); err != nil {
		t.Fatal(err)
	}
	return dir
}

func tarOf(t *testing.T, headers ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	writer := tar.NewWriter(&buf)
	for _, header := range headers {
		if header.Typeflag == tar.TypeReg {
			header.Size = int64(len(header.Linkname))
		}
		body := header.Linkname
		if header.Typeflag == tar.TypeReg {
			header.Linkname = ""
		}
		if err := writer.WriteHeader(header); err != nil {
			t.Fatal(err)
		}
		if header.Typeflag == tar.TypeReg {
			writer.Write([]byte(body))
		}
	}
	writer.Close()
	return buf.Bytes()
}

// TestHostileLayers: layers a runtime would refuse are errors that name the
// image, the layer and the entry — never a panic, never a silent pass.
func TestHostileLayers(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	cases := []struct {
		name     string
		tar      []byte
		truncate bool
		want     string
	}{
		{"dot-dot", tarOf(t, &tar.Header{Name: "../../etc/passwd", Typeflag: tar.TypeReg, Linkname: "root"}), false, "climbs out of the image root"},
		{"hard link to nothing", tarOf(t, &tar.Header{Name: "bin/sh", Typeflag: tar.TypeLink, Linkname: "bin/busybox"}), false, "hard link to \"bin/busybox\""},
		{"hard link out", tarOf(t, &tar.Header{Name: "x", Typeflag: tar.TypeLink, Linkname: "../../../etc/shadow"}), false, "climbs"},
		{"truncated", tarOf(t, &tar.Header{Name: "usr/bin/serve", Typeflag: tar.TypeReg, Mode: 0o755, Linkname: big}), true, "truncated"},
		{"file under file", tarOf(t, &tar.Header{Name: "a", Typeflag: tar.TypeReg, Linkname: "x"},
			&tar.Header{Name: "a/b", Typeflag: tar.TypeReg, Linkname: "y"}), false, "not a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeRawImage(t, c.tar, c.truncate)
			_, err := image.Open(context.Background(), "example.com/hostile:1", dir, image.Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "layer 1/1 sha256:") {
				t.Fatalf("got %v, want an error naming the layer and %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is more than one line: %q", err)
			}
		})
	}
	// An absolute member name is normal (some tools write them).
	dir := writeRawImage(t, tarOf(t, &tar.Header{Name: "/usr/bin/serve", Typeflag: tar.TypeReg, Mode: 0o755, Linkname: "#!/bin/sh\n"}), false)
	img, err := image.Open(context.Background(), "example.com/hostile:1", dir, image.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := img.FS().Stat("/usr/bin/serve"); err != nil {
		t.Errorf("absolute member: %v", err)
	}
}

type countingProgress struct{ started, bytes atomic.Int64 }

func (c *countingProgress) Start(string, int64) { c.started.Add(1) }
func (c *countingProgress) Add(n int64)         { c.bytes.Add(n) }
func (c *countingProgress) Done()               {}

// TestCache: a second read of the same image streams no layer; a read with
// one new top layer streams only that one.
func TestCache(t *testing.T) {
	spec := serverSpec()
	spec.Platforms = nil
	built, err := imagetest.Build(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "v1.tar")
	if err := imagetest.WriteTarball(file, built, ""); err != nil {
		t.Fatal(err)
	}
	cache := &image.Cache{Dir: filepath.Join(dir, "cache")}
	read := func(file string) (*image.Image, *countingProgress) {
		progress := &countingProgress{}
		img, err := image.Open(context.Background(), spec.Ref, file, image.Options{Cache: cache, Progress: progress})
		if err != nil {
			t.Fatal(err)
		}
		return img, progress
	}
	cold, coldProgress := read(file)
	warm, warmProgress := read(file)
	if coldProgress.bytes.Load() == 0 || warmProgress.started.Load() != 0 || warmProgress.bytes.Load() != 0 {
		t.Errorf("cold read %d bytes; warm read started %d times, %d bytes", coldProgress.bytes.Load(), warmProgress.started.Load(), warmProgress.bytes.Load())
	}
	if cold.FS().Len() != warm.FS().Len() {
		t.Errorf("warm index has %d paths, cold %d", warm.FS().Len(), cold.FS().Len())
	}
	spec.Layers = append(spec.Layers, imagetest.LayerSpec{Files: []imagetest.FileSpec{{Path: "/srv/new", Content: "new"}}})
	rebuilt, err := imagetest.Build(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	file2 := filepath.Join(dir, "v2.tar")
	if err := imagetest.WriteTarball(file2, rebuilt, ""); err != nil {
		t.Fatal(err)
	}
	newTop, progress := read(file2)
	layers := newTop.Layers
	if _, err := newTop.FS().Stat("/srv/new"); err != nil || progress.bytes.Load() != layers[len(layers)-1].Size {
		t.Errorf("new top layer: %v; read %d bytes, the new layer has %d", err, progress.bytes.Load(), layers[len(layers)-1].Size)
	}
	// A torn entry is a miss, not an error.
	entries, _ := filepath.Glob(filepath.Join(cache.Dir, "layers", "*"))
	for _, entry := range entries {
		os.WriteFile(entry, []byte("modellint layer index v1\ngarbage"), 0o644)
	}
	if _, p := read(file); p.bytes.Load() == 0 {
		t.Error("torn cache entries were used")
	}
}
