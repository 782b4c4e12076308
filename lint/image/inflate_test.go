package image_test

import (
	"archive/tar"
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/modellint/modellint/internal/testenv"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/imagetest"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// inflaters are the --inflate choices this machine can run; CI installs
// igzip and unpigz and sets MODELLINT_REQUIRE_VALIDATORS=1, so a missing
// one fails there instead of going untested.
func inflaters(t *testing.T) []string {
	t.Helper()
	choices := []string{image.InflateGo}
	for _, name := range []string{image.InflateIgzip, image.InflateUnpigz} {
		if _, err := exec.LookPath(name); err != nil {
			if testenv.Required() {
				t.Errorf("%s not on PATH (apt-get install isal pigz); %s=1 requires it", name, testenv.RequireTools)
			} else {
				t.Logf("%s not on PATH (apt-get install isal pigz): not tested here", name)
			}
			continue
		}
		choices = append(choices, name)
	}
	return choices
}

// TestInflatersAgree reads one image with each inflater: the same files,
// modes and layers, and the same verdict on a corrupt or truncated layer.
func TestInflatersAgree(t *testing.T) {
	spec := serverSpec()
	spec.Platforms = nil
	spec.Layers = append(spec.Layers, imagetest.LayerSpec{Files: []imagetest.FileSpec{
		{Path: "/models/m/1/saved_model.pb", Size: 4 << 20}, {Path: "/app/main.py", Content: strings.Repeat("import os\n", 5000)}}})
	built, err := imagetest.Build(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(t.TempDir(), "image.tar")
	if err := imagetest.WriteTarball(tarball, built, ""); err != nil {
		t.Fatal(err)
	}
	goodTar := tarOf(t, &tar.Header{Name: "app/serve.py", Typeflag: tar.TypeReg, Mode: 0o644,
		Linkname: strings.Repeat("print('padding that compresses')\n", 20000)})
	corrupt := gzipped(t, goodTar)
	corrupt[len(corrupt)/2] ^= 0x40
	truncated := gzipped(t, goodTar)
	truncated = truncated[:len(truncated)/2]
	diffID, _, err := v1.SHA256(bytes.NewReader(goodTar))
	if err != nil {
		t.Fatal(err)
	}
	corruptLayout := layoutOf(t, imagetest.NewLayerFromCompressed(corrupt, diffID, types.OCILayer))
	truncatedLayout := layoutOf(t, imagetest.NewLayerFromCompressed(truncated, diffID, types.OCILayer))

	var want string
	for _, choice := range inflaters(t) {
		t.Run(choice, func(t *testing.T) {
			options := image.Options{Inflate: choice}
			img, err := image.Open(context.Background(), spec.Ref, tarball, options)
			if err != nil {
				t.Fatal(err)
			}
			var listing strings.Builder
			for _, layer := range img.Layers {
				listing.WriteString(layer.DiffID + "\n")
			}
			img.FS().Walk(func(n *rootfs.Node) {
				listing.WriteString(n.Path() + " " + n.FileMode().String() + " " + img.LayerOf(n) + "\n")
			})
			if want == "" {
				want = listing.String()
			} else if listing.String() != want {
				t.Errorf("inflated by %s:\n%s\nin process:\n%s", choice, listing.String(), want)
			}
			for layout, verdict := range map[string]string{corruptLayout: "corrupt", truncatedLayout: "truncated"} {
				_, err := image.Open(context.Background(), "example.com/hostile:1", layout, options)
				t.Logf("%s: %v", verdict, err)
				if err == nil || !strings.Contains(err.Error(), verdict) {
					t.Errorf("%s layer: got %v, want an error saying %q", verdict, err, verdict)
				}
			}
		})
	}
}

func TestInflaterChoice(t *testing.T) {
	if _, err := image.InflaterPath("pigz-ng"); err == nil || !strings.Contains(err.Error(), "auto, go, igzip, unpigz") {
		t.Errorf("an unknown inflater: %v", err)
	}
	if path, err := image.InflaterPath(image.InflateGo); path != "" || err != nil {
		t.Errorf("go: %q, %v; want in process", path, err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := image.InflaterPath(image.InflateIgzip); err == nil || !strings.Contains(err.Error(), "igzip is not on PATH") {
		t.Errorf("igzip asked for and absent: %v", err)
	}
}

func layoutOf(t *testing.T, layer v1.Layer) string {
	t.Helper()
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
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

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	layer, err := imagetest.NewLayer(data, "gzip")
	if err != nil {
		t.Fatal(err)
	}
	reader, _ := layer.Compressed()
	var buf bytes.Buffer
	buf.ReadFrom(reader)
	return buf.Bytes()
}
