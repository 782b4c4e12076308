package rulestest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/image/imagetest"
)

// ImagesFile, in a fixture dir, is the spec of the images its manifests
// name, in the format of a scenario's images.yaml.
const ImagesFile = "images.yaml"

// Images are the images of an images.yaml, built.
type Images struct {
	Spec  *imagetest.Spec
	Built []*imagetest.Built
	// normalize replaces the digests of layers with binaries compiled on
	// this host, which differ between toolchains.
	normalize *strings.Replacer
}

// BuildImages builds the images of an images.yaml; nil when there is no
// such file.
func BuildImages(t testing.TB, file string) *Images {
	t.Helper()
	if _, err := os.Stat(file); err != nil {
		return nil
	}
	spec, err := imagetest.ReadSpec(file)
	if err != nil {
		t.Fatal(err)
	}
	images := &Images{Spec: spec}
	var hostBuilt []string
	for i := range spec.Images {
		imageSpec := &spec.Images[i]
		if imageSpec.Absent {
			images.Built = append(images.Built, &imagetest.Built{Spec: imageSpec})
			continue
		}
		var builder *imagetest.ELFBuilder
		if imageSpec.UsesELF() {
			builder = imagetest.ELF(t)
		}
		built, err := imagetest.Build(imageSpec, builder)
		if err != nil {
			t.Fatal(err)
		}
		images.Built = append(images.Built, built)
		if builder == nil {
			continue
		}
		for _, img := range built.Images {
			config, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			for _, diffID := range config.RootFS.DiffIDs {
				algorithm, hex := diffID.Algorithm, diffID.Hex
				hostBuilt = append(hostBuilt, diffID.String(), algorithm+":<built on this host>",
					algorithm+":"+hex[:12], algorithm+":<built on this host>")
			}
		}
	}
	images.normalize = strings.NewReplacer(hostBuilt...)
	return images
}

// Normalize replaces in s the digests of layers built on this host, which
// differ between toolchains, with a placeholder.
func (i *Images) Normalize(s string) string { return i.normalize.Replace(s) }

// Write writes the images under dir for a local source, "tarball" or
// "layout", and returns where each reference is read from, as --image
// REF=SOURCE maps it. Absent images are left out.
func (i *Images) Write(t testing.TB, source, dir string) map[string]string {
	t.Helper()
	mapping := map[string]string{}
	for n, built := range i.Built {
		if built.Spec.Absent {
			continue
		}
		var path string
		var err error
		switch source {
		case "tarball":
			path = filepath.Join(dir, fmt.Sprintf("image-%d.tar", n))
			err = imagetest.WriteTarball(path, built, "")
		case "layout":
			path = filepath.Join(dir, fmt.Sprintf("image-%d", n))
			err = imagetest.WriteLayout(path, built)
		default:
			t.Fatalf("%s: no local image source %q", built.Spec.Ref, source)
		}
		if err != nil {
			t.Fatalf("write %s as a %s: %v", built.Spec.Ref, source, err)
		}
		mapping[built.Spec.Ref] = path
	}
	return mapping
}

// localSource is the one way a fixture's images are read: an OCI layout,
// or a tarball when the spec's sources leave layouts out.
func (i *Images) localSource(t testing.TB) string {
	t.Helper()
	sources := i.Spec.Sources
	switch {
	case len(sources) == 0, slices.Contains(sources, "layout"):
		return "layout"
	case slices.Contains(sources, "tarball"):
		return "tarball"
	}
	t.Fatalf("%s: sources %v name no local source (layout or tarball)", ImagesFile, sources)
	return ""
}
