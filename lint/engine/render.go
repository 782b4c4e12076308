package engine

import (
	"path/filepath"

	"github.com/modellint/modellint/lint"
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
// fields are placed on the template, values-file or patch lines that wrote
// them. Each chart or overlay is its own unit, numbered after the PATHs'.
// A chart or overlay that fails to render is an input error; the others
// are still rendered. What Helm and Kustomize logged comes back as notes.
func renderInputs(dirs []string, options Options) ([]*manifest.File, []string, []lint.InputError) {
	if len(dirs) == 0 {
		return nil, nil, nil
	}
	// The load restrictor comes from the job's flags alone: the repository's
	// config may not widen what an overlay reads.
	renderOptions := options.Render
	renderOptions.Paths = options.Paths
	// Values files are named in findings as every other input is.
	renderOptions.HelmValues = make([]string, len(options.Render.HelmValues))
	for i, path := range options.Render.HelmValues {
		renderOptions.HelmValues[i] = displayPath(path)
	}
	files, notes, errs := render.Render(dirs, renderOptions)
	for _, file := range files {
		file.Unit += len(options.Paths)
	}
	var problems []lint.InputError
	for _, err := range errs {
		problems = append(problems, inputErrorOf(err))
	}
	return files, notes, problems
}

// withoutRendered drops the plain copies of files a render read (an
// overlay's resources and patches, a values file next to the chart): they
// are linted as part of what they render into.
func withoutRendered(plain, rendered []*manifest.File) []*manifest.File {
	used := map[string]bool{}
	for _, file := range rendered {
		used[file.Path] = true
	}
	kept := plain[:0:0]
	for _, file := range plain {
		if !used[file.Path] {
			kept = append(kept, file)
		}
	}
	return kept
}

// withoutPatches drops the plain copies of the files that the overlays
// among dirs name as patches, built or not: a patch is part of the object
// it patches, and linted alone it looks like a Deployment without its
// image, limits or volumes. A note at -v says which overlay it belongs to.
func withoutPatches(plain []*manifest.File, dirs []string) []*manifest.File {
	patches := render.PatchFiles(dirs)
	if len(patches) == 0 {
		return plain
	}
	kept := plain[:0:0]
	for _, file := range plain {
		absolute, err := filepath.Abs(file.Path)
		overlay, isPatch := patches[absolute]
		if err != nil || !isPatch {
			kept = append(kept, file)
			continue
		}
		kept = append(kept, &manifest.File{Path: file.Path, Unit: file.Unit,
			Skipped: []string{"a patch of the Kustomize overlay " + overlay + ", linted as part of it"}})
	}
	return kept
}
