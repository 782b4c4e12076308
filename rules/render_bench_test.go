package rules_test

import (
	"testing"

	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/rules"
)

// renderFixtures are the charts and overlays of testdata, linted as
// `modellint --offline PATH` lints them.
var renderFixtures = []struct {
	name   string
	path   string
	render engine.RenderOptions
}{
	{"helm-tfserving", "../testdata/charts/serving/tfserving", engine.RenderOptions{}},
	{"helm-tfserving-values", "../testdata/charts/serving/tfserving",
		engine.RenderOptions{HelmValues: []string{"../testdata/scenarios/helm-tfserving-fixed/values-fixed.yaml"}, HelmSet: []string{"replicaCount=3"}}},
	{"helm-subchart", "../testdata/charts/serving/inference-stack", engine.RenderOptions{}},
	{"kustomize-prod", "../testdata/kustomize/serving/overlays/prod", engine.RenderOptions{}},
	{"kustomize-tree", "../testdata/kustomize/serving", engine.RenderOptions{}},
}

// BenchmarkRenderAndLint measures a whole run over a chart or overlay:
// rendering (twice for a chart, to trace lines), tracing, and every rule.
// BenchmarkRender in lint/render measures rendering and tracing alone.
func BenchmarkRenderAndLint(b *testing.B) {
	for _, fixture := range renderFixtures {
		b.Run(fixture.name, func(b *testing.B) {
			options := engine.Options{Paths: []string{fixture.path}, Rules: rules.All(), Now: scenarioToday, Render: fixture.render}
			for b.Loop() {
				result, err := engine.Run(options)
				if err != nil {
					b.Fatal(err)
				}
				if len(result.Evaluations) == 0 {
					b.Fatal("nothing linted")
				}
			}
		})
	}
}
