package lint

import "github.com/modellint/modellint/lint/manifest"

// RenderOptions say how Helm charts and Kustomize overlays are rendered.
type RenderOptions struct{}

// isRenderDir reports whether dir is a Helm chart or Kustomize overlay,
// rendered as a unit instead of read as plain YAML.
func isRenderDir(dir string) bool { return false }

// renderInputs renders the charts and overlays into manifest files.
func renderInputs(dirs []string, options Options) ([]*manifest.File, error) {
	return nil, nil
}
