package rules_test

import (
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/rules"
)

// renderFixtures are the charts and overlays of testdata, linted as
// `modellint --offline PATH` lints them.
var renderFixtures = []struct {
	name   string
	path   string
	render lint.RenderOptions
}{
	{"helm-tfserving", "../testdata/charts/serving/tfserving", lint.RenderOptions{}},
	{"helm-tfserving-values", "../testdata/charts/serving/tfserving",
		lint.RenderOptions{HelmValues: []string{"../testdata/scenarios/helm-tfserving-fixed/values-fixed.yaml"}, HelmSet: []string{"replicaCount=3"}}},
	{"helm-subchart", "../testdata/charts/serving/inference-stack", lint.RenderOptions{}},
	{"kustomize-prod", "../testdata/kustomize/serving/overlays/prod", lint.RenderOptions{}},
	{"kustomize-tree", "../testdata/kustomize/serving", lint.RenderOptions{}},
}

// BenchmarkRenderAndLint measures a whole run over a chart or overlay:
// rendering (twice for a chart, to trace lines), tracing, and every rule.
// BenchmarkRender in lint/render measures rendering and tracing alone.
func BenchmarkRenderAndLint(b *testing.B) {
	for _, fixture := range renderFixtures {
		b.Run(fixture.name, func(b *testing.B) {
			options := lint.Options{Paths: []string{fixture.path}, Rules: rules.All(), Now: scenarioToday, Render: fixture.render}
			for b.Loop() {
				result, err := lint.Run(options)
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
