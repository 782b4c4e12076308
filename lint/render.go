package lint

import (
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/render"
)

// RenderOptions say how Helm charts and Kustomize overlays are rendered:
// values files, --set values, release name and namespace, test hooks.
type RenderOptions = render.Options

// isRenderDir reports whether dir is a Helm chart or Kustomize overlay,
// rendered as a unit instead of read as plain YAML.
func isRenderDir(dir string) bool { return render.IsChart(dir) || render.IsOverlay(dir) }

// isRenderArchive reports whether a file PATH is a packaged Helm chart.
func isRenderArchive(path string) bool { return render.IsChartArchive(path) }

// renderInputs renders the charts and overlays into manifest files whose
// fields are placed on the template, values-file or patch lines that wrote them.
func renderInputs(dirs []string, options Options) ([]*manifest.File, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	renderOptions := options.Render
	// Values files are named in findings as every other input is.
	renderOptions.HelmValues = make([]string, len(options.Render.HelmValues))
	for i, path := range options.Render.HelmValues {
		renderOptions.HelmValues[i] = displayPath(path)
	}
	return render.Render(dirs, renderOptions)
}
