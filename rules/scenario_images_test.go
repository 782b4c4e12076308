package rules_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/lint/image/imagetest"
	"github.com/modellint/modellint/rules/rulestest"
)

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
			testenv.Unavailable(t, err.Error())
		}
		r.registry = imagetest.StartRegistry(r.parent)
	}
	return r.registry
}

// scenarioImages are a scenario's images (its images.yaml), built.
type scenarioImages struct {
	*rulestest.Images
	name     string
	registry *scenarioRegistry
}

// loadScenarioImages builds the images of images.yaml, nil when the
// scenario has none.
func loadScenarioImages(t *testing.T, dir string, registry *scenarioRegistry) *scenarioImages {
	t.Helper()
	images := rulestest.BuildImages(t, filepath.Join(dir, rulestest.ImagesFile))
	if images == nil {
		return nil
	}
	return &scenarioImages{Images: images, name: filepath.Base(dir), registry: registry}
}

func (s *scenarioImages) sources() []string {
	if len(s.Spec.Sources) > 0 {
		return s.Spec.Sources
	}
	return scenarioSources
}

// options writes or pushes the images for one source kind and maps the
// manifests' references to them.
func (s *scenarioImages) options(t *testing.T, source string) (engine.ImageOptions, func(string) string) {
	t.Helper()
	if source != "registry" {
		return engine.ImageOptions{Sources: s.Write(t, source, t.TempDir())}, s.Normalize
	}
	registry := s.registry.get(t)
	mapping := map[string]string{}
	// Images of one repository in the manifests are tags of one repository
	// in the registry, so an absent image of a repository that has others
	// is a missing tag (MANIFEST_UNKNOWN from every registry), as it is in
	// the manifests; a missing repository is answered NAME_UNKNOWN by the
	// in-process registry and MANIFEST_UNKNOWN by docker-registry.
	repositories := map[string]int{}
	for i, built := range s.Built {
		n, ok := repositories[repositoryOf(built.Spec.Ref)]
		if !ok {
			n = len(repositories)
			repositories[repositoryOf(built.Spec.Ref)] = n
		}
		pushed := registry.Ref(fmt.Sprintf("scenarios/%s/repository-%d:image-%d", s.name, n, i))
		if !built.Spec.Absent {
			if err := imagetest.Push(pushed, built); err != nil {
				t.Fatalf("push %s to %s registry: %v", built.Spec.Ref, registry.Kind, err)
			}
		}
		mapping[built.Spec.Ref] = "docker://" + pushed
	}
	return engine.ImageOptions{Sources: mapping}, s.Normalize
}

// repositoryOf is a reference without its tag and digest.
func repositoryOf(reference string) string {
	reference, _, _ = strings.Cut(reference, "@")
	if colon := strings.LastIndex(reference, ":"); colon > strings.LastIndex(reference, "/") {
		reference = reference[:colon]
	}
	return reference
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
