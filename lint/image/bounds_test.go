package image_test

import (
	"archive/tar"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/imagetest"
	"github.com/modellint/modellint/lint/image/rootfs"
	"github.com/modellint/modellint/lint/model"
)

// zeroModelSize is the size of the variables file in the user's report:
// 1.2 GiB of zeros, which gzip stores in 1.5 MB (824:1), as compressible
// as a decompression bomb.
const zeroModelSize = 6 << 30 / 5

const zeroModelFile = "/models/resnet/1/variables/variables.data-00000-of-00001"

// zeroModelLayer is built once: compressing 1.2 GiB takes a second or two.
var zeroModelLayer = sync.OnceValues(func() (*imagetest.Layer, error) {
	return imagetest.ZeroFileLayer(zeroModelFile, zeroModelSize)
})

// zeroModelImage writes an OCI layout of a TF Serving SavedModel (the
// repository's half_plus_two) whose variables file is the 1.2 GiB of
// zeros, in a layer of its own, and returns the layout's dir.
func zeroModelImage(t *testing.T) string {
	t.Helper()
	zeros, err := zeroModelLayer()
	if err != nil {
		t.Fatal(err)
	}
	return modelImage(t, zeros)
}

// modelImage writes an OCI layout whose first layer holds the small files
// of half_plus_two under /models/resnet/1, followed by the given layers.
func modelImage(t *testing.T, layers ...v1.Layer) string {
	t.Helper()
	source := "../../testdata/models/saved_model_half_plus_two_cpu/00000123"
	var files []imagetest.FileSpec
	for _, name := range []string{"saved_model.pb", "variables/variables.index", "assets/foo.txt"} {
		data, err := os.ReadFile(filepath.Join(source, name))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, imagetest.FileSpec{Path: "/models/resnet/1/" + name, Content: string(data)})
	}
	spec := &imagetest.ImageSpec{Ref: "registry.example.com/ml/resnet:1", Layers: []imagetest.LayerSpec{{Files: files}}}
	built, err := imagetest.Build(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	platform := built.Order[0]
	if built.Images[platform], err = mutate.AppendLayers(built.Images[platform], layers...); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "layout")
	if err := imagetest.WriteLayout(dir, built); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHighlyCompressibleLayer reads a layer that inflates 824:1, as a bomb
// does: a SavedModel whose 1.2 GiB variables file is zeros. It is read
// whole, both its digests are checked, and the model's size is what the
// memory estimate (MDL401) reads.
func TestHighlyCompressibleLayer(t *testing.T) {
	zeros, err := zeroModelLayer()
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := zeros.Size()
	t.Logf("%d bytes of zeros stored in %d (%.0f:1)", int64(zeroModelSize), stored, float64(zeroModelSize)/float64(stored))
	dir := zeroModelImage(t)
	start := time.Now()
	img, err := image.Open(context.Background(), "registry.example.com/ml/resnet:1", dir, image.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("read in %v", time.Since(start).Round(time.Millisecond))
	fsys, err := img.DirFS("/models/resnet", model.ErrContentUnavailable)
	if err != nil {
		t.Fatal(err)
	}
	info, err := fs.Stat(fsys, strings.TrimPrefix(zeroModelFile, "/models/resnet/"))
	if err != nil || info.Size() != zeroModelSize {
		t.Fatalf("variables file: %v, %v; want %d bytes", info, err, int64(zeroModelSize))
	}
	m, err := model.LoadFS(fsys, "registry.example.com/ml/resnet:1:/models/resnet")
	if err != nil {
		t.Fatal(err)
	}
	if m.ResidentBytes < zeroModelSize {
		t.Errorf("resident bytes %d, want the variables file's %d and more", m.ResidentBytes, int64(zeroModelSize))
	}
}

var layerNamed = regexp.MustCompile(`: layer [23]/[23] sha256:[0-9a-f]{12}: `)

// TestImageInflateBound: what an image's layers inflate to, all of them
// together, is bounded (Options.MaxImageBytes, --max-image-size), and the
// error names the bound and the flag; a layer that stays within it is read.
func TestImageInflateBound(t *testing.T) {
	layer := func(name string, size int64) v1.Layer {
		layer, err := imagetest.ZeroFileLayer(name, size)
		if err != nil {
			t.Fatal(err)
		}
		return layer
	}
	twoLayers := modelImage(t, layer("/data/a", 96<<20), layer("/data/b", 96<<20))
	cases := []struct {
		name    string
		dir     func() string
		options image.Options
		want    string // "" reads the image
	}{
		{"1.2 GiB of zeros over a bound of 256 MiB", func() string { return zeroModelImage(t) }, image.Options{MaxImageBytes: 256 << 20},
			"more than the 256 MiB --max-image-size allows"},
		{"1.2 GiB of zeros in process, over 256 MiB", func() string { return zeroModelImage(t) },
			image.Options{MaxImageBytes: 256 << 20, Inflate: image.InflateGo}, "more than the 256 MiB --max-image-size allows"},
		{"two layers of 96 MiB over a bound of 160 MiB", func() string { return twoLayers }, image.Options{MaxImageBytes: 160 << 20},
			"more than the 160 MiB --max-image-size allows"},
		{"two layers of 96 MiB within 200 MiB", func() string { return twoLayers }, image.Options{MaxImageBytes: 200 << 20}, ""},
		{"two layers of 96 MiB, one at a time, within 200 MiB", func() string { return twoLayers },
			image.Options{MaxImageBytes: 200 << 20, Parallelism: 1}, ""},
		{"a layer over --max-layer-size", func() string { return twoLayers }, image.Options{MaxLayerBytes: 64 << 20},
			"more than the 64 MiB --max-layer-size allows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := image.Open(context.Background(), "registry.example.com/ml/resnet:1", c.dir(), c.options)
			t.Logf("%v in %v", err, time.Since(start).Round(time.Millisecond))
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want == "":
			case err == nil || !strings.Contains(err.Error(), c.want) || !layerNamed.MatchString(err.Error()):
				t.Fatalf("got %v, want an error naming the layer and saying %q", err, c.want)
			case strings.Contains(err.Error(), "\n"):
				t.Errorf("error is more than one line: %q", err)
			}
		})
	}
}

// TestTargetedReadCountsOnce: a layer read again for a file a rule needs
// (here one behind 40 MiB of zeros, which the first pass did not keep)
// counts against the image's bound once: the bound is on what the image
// holds, not on how often it is read.
func TestTargetedReadCountsOnce(t *testing.T) {
	layer, err := imagetest.NewLayer(tarOf(t,
		&tar.Header{Name: "data/zeros", Typeflag: tar.TypeReg, Mode: 0o644, Linkname: string(make([]byte, 40<<20))},
		&tar.Header{Name: "data/blob", Typeflag: tar.TypeReg, Mode: 0o644, Linkname: "needed"}), "gzip")
	if err != nil {
		t.Fatal(err)
	}
	dir := modelImage(t, layer)
	asked := 0
	needs := func(img *image.Image) []*rootfs.Node {
		node, err := img.FS().Stat("/data/blob")
		if err != nil {
			t.Fatal(err)
		}
		asked++
		return []*rootfs.Node{node}
	}
	_, err = image.Open(context.Background(), "registry.example.com/ml/resnet:1", dir, image.Options{MaxImageBytes: 60 << 20, Needs: needs})
	if err != nil || asked == 0 {
		t.Fatalf("%v (asked %d times)", err, asked)
	}
}

// TestLayerReadTimeout: a layer still being read when the run's time is
// up (--timeout, the context's deadline) is stopped there, with an error
// that says so, however well it compresses.
func TestLayerReadTimeout(t *testing.T) {
	dir := zeroModelImage(t)
	for _, inflate := range inflaters(t) {
		t.Run(inflate, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := image.Open(ctx, "registry.example.com/ml/resnet:1", dir, image.Options{Inflate: inflate})
			elapsed := time.Since(start)
			t.Logf("%v in %v", err, elapsed.Round(time.Millisecond))
			if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "not read in time") {
				t.Fatalf("got %v, want the deadline, said in words", err)
			}
			if elapsed > 5*time.Second {
				t.Errorf("stopped %v after the deadline", elapsed-100*time.Millisecond)
			}
		})
	}
}

// TestZeroLayerDigests: a layer of zeros is verified like any other; one
// whose diff ID is not its tar's is refused.
func TestZeroLayerDigests(t *testing.T) {
	good, err := imagetest.ZeroFileLayer("/data/zeros", 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	reader, _ := good.Compressed()
	stored, err := io.ReadAll(reader)
	if err != nil {
		t.Fatal(err)
	}
	wrong := v1.Hash{Algorithm: "sha256", Hex: strings.Repeat("0", 64)}
	dir := modelImage(t, imagetest.NewLayerFromCompressed(stored, wrong, types.OCILayer))
	_, err = image.Open(context.Background(), "registry.example.com/ml/resnet:1", dir, image.Options{})
	var digestErr *image.DigestError
	if !errors.As(err, &digestErr) || digestErr.What != "diff ID" {
		t.Fatalf("got %v, want the diff ID refused", err)
	}
}
