package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/lint/image/imagetest"
)

// scenarioImagesFile is the spec of the images a scenario's manifests name.
const scenarioImagesFile = "images.yaml"

// scenarioSources are the ways modellint reads the scenario's images; each
// must give the same findings.
var scenarioSources = []string{"tarball", "layout", "registry"}

// scenarioRegistry starts one registry for all scenarios, on first use.
type scenarioRegistry struct {
	parent   *testing.T
	registry *imagetest.Registry
}

func (r *scenarioRegistry) get(t *testing.T) *imagetest.Registry {
	t.Helper()
	if r.registry == nil {
		if _, err := imagetest.RegistryBinary(); err != nil && !testing.Short() {
			imagetest.Unavailable(t, err.Error())
		}
		r.registry = imagetest.StartRegistry(r.parent)
	}
	return r.registry
}

// scenarioImages are a scenario's images, built.
type scenarioImages struct {
	name     string
	spec     *imagetest.Spec
	built    []*imagetest.Built
	registry *scenarioRegistry
	// hostBuilt are the diff IDs of layers with binaries compiled here,
	// whose digests differ between toolchains.
	hostBuilt []string
}

// loadScenarioImages builds the images of images.yaml, nil when the
// scenario has none.
func loadScenarioImages(t *testing.T, dir string, registry *scenarioRegistry) *scenarioImages {
	t.Helper()
	file := filepath.Join(dir, scenarioImagesFile)
	if _, err := os.Stat(file); err != nil {
		return nil
	}
	spec, err := imagetest.ReadSpec(file)
	if err != nil {
		t.Fatal(err)
	}
	images := &scenarioImages{name: filepath.Base(dir), spec: spec, registry: registry}
	for i := range spec.Images {
		imageSpec := &spec.Images[i]
		if imageSpec.Absent {
			images.built = append(images.built, &imagetest.Built{Spec: imageSpec})
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
		images.built = append(images.built, built)
		if imageSpec.UsesELF() {
			for _, img := range built.Images {
				config, err := img.ConfigFile()
				if err != nil {
					t.Fatal(err)
				}
				for _, diffID := range config.RootFS.DiffIDs {
					images.hostBuilt = append(images.hostBuilt, diffID.String())
				}
			}
		}
	}
	return images
}

func (s *scenarioImages) sources() []string {
	if len(s.spec.Sources) > 0 {
		return s.spec.Sources
	}
	return scenarioSources
}

// options writes or pushes the images for one source kind and maps the
// manifests' references to them.
func (s *scenarioImages) options(t *testing.T, source string) (engine.ImageOptions, func(string) string) {
	t.Helper()
	dir := t.TempDir()
	mapping := map[string]string{}
	for i, built := range s.built {
		ref := built.Spec.Ref
		switch source {
		case "tarball":
			if built.Spec.Absent {
				continue
			}
			file := filepath.Join(dir, fmt.Sprintf("image-%d.tar", i))
			if err := imagetest.WriteTarball(file, built, ""); err != nil {
				t.Fatal(err)
			}
			mapping[ref] = file
		case "layout":
			if built.Spec.Absent {
				continue
			}
			layoutDir := filepath.Join(dir, fmt.Sprintf("image-%d", i))
			if err := imagetest.WriteLayout(layoutDir, built); err != nil {
				t.Fatal(err)
			}
			mapping[ref] = layoutDir
		case "registry":
			registry := s.registry.get(t)
			pushed := registry.Ref(fmt.Sprintf("scenarios/%s/image-%d:test", s.name, i))
			if !built.Spec.Absent {
				if err := imagetest.Push(pushed, built); err != nil {
					t.Fatalf("push %s to %s registry: %v", ref, registry.Kind, err)
				}
			}
			mapping[ref] = "docker://" + pushed
		default:
			t.Fatalf("unknown image source %q", source)
		}
	}
	var pairs []string
	for _, digest := range s.hostBuilt {
		algorithm, hex, _ := strings.Cut(digest, ":")
		pairs = append(pairs, digest, algorithm+":<built on this host>", algorithm+":"+hex[:12], algorithm+":<built on this host>")
	}
	normalize := strings.NewReplacer(pairs...).Replace
	return engine.ImageOptions{Sources: mapping}, normalize
}

// normalizeImage applies the digest normalisation to an image location.
func normalizeImage(location *lint.ImageLocation, normalize func(string) string) *lint.ImageLocation {
	if location == nil {
		return nil
	}
	copied := *location
	copied.Layer = normalize(copied.Layer)
	return &copied
}
