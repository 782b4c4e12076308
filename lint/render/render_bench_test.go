package render

import (
	"path/filepath"
	"testing"
)

// BenchmarkRender renders and traces the fixture charts and overlays, without
// linting: what rendered input adds to a run.
func BenchmarkRender(b *testing.B) {
	for _, fixture := range []struct{ name, path string }{
		{"helm-tfserving", "charts/serving/tfserving"},
		{"helm-subchart", "charts/serving/inference-stack"},
		{"kustomize-prod", "kustomize/serving/overlays/prod"},
	} {
		b.Run(fixture.name, func(b *testing.B) {
			paths := []string{filepath.Join(testdata, fixture.path)}
			for b.Loop() {
				if _, _, errs := Render(paths, Options{}); errs != nil {
					b.Fatal(errs)
				}
			}
		})
	}
}
