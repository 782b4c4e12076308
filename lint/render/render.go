package render

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/render/charts"
	"github.com/modellint/modellint/lint/render/kustomize"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/internal/message"
)

// Options say how charts and overlays are rendered. Kustomize overlays take
// none: everything they need is in the kustomization.
type Options struct {
	// HelmValues are values files (helm -f), later ones winning.
	HelmValues []string
	// HelmSet are key=value assignments (helm --set), applied last.
	HelmSet []string
	// ReleaseName and Namespace are .Release.Name and .Release.Namespace.
	ReleaseName string
	Namespace   string
	// HelmIncludeTests lints test hooks too, which an install does not create.
	HelmIncludeTests bool
	// KubeVersion is .Capabilities.KubeVersion (helm --kube-version); ""
	// is the version the bundled Kubernetes libraries speak.
	KubeVersion string
	// APIVersions are extra .Capabilities.APIVersions (helm --api-versions).
	APIVersions []string
	// KustomizeLoadRestrictor "none" lets a kustomization read files
	// outside its own dir (kustomize --load-restrictor
	// LoadRestrictionsNone), though never outside its root.
	KustomizeLoadRestrictor string
	// Paths are the PATH arguments the charts and overlays were found
	// under. An overlay reads only inside the root (see kustomize.Root) of
	// the one holding it; one under none is its own PATH.
	Paths []string
	// RenderTimeout bounds rendering one Helm chart or building one Kustomize
	// overlay (0: charts.DefaultRenderTimeout).
	RenderTimeout time.Duration
}

// IsChart reports whether dir is a Helm chart.
func IsChart(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, "Chart.yaml"))
	return err == nil && info.Mode().IsRegular()
}

// OverlayFile is the name of dir's kustomization file, "" when none.
func OverlayFile(dir string) string { return kustomize.FileName(dir) }

// IsOverlay reports whether dir holds a kustomization.
func IsOverlay(dir string) bool { return kustomize.FileName(dir) != "" }

// IsChartArchive reports whether path is a packaged chart (helm package):
// a gzipped tar whose first entries hold CHART/Chart.yaml. It reads at most
// a few headers, so an image tarball given by mistake costs nothing.
func IsChartArchive(path string) bool {
	if !strings.HasSuffix(path, ".tgz") && !strings.HasSuffix(path, ".tar.gz") {
		return false
	}
	file, err := fileread.Open(path)
	if err != nil {
		return false
	}
	defer file.Close()
	unzipped, err := gzip.NewReader(file)
	if err != nil {
		return false
	}
	archive := tar.NewReader(io.LimitReader(unzipped, 1<<20))
	for range 8 {
		header, err := archive.Next()
		if err != nil {
			return false
		}
		name := strings.TrimPrefix(header.Name, "./")
		if dir, file, ok := strings.Cut(name, "/"); ok && dir != "" && file == "Chart.yaml" {
			return true
		}
	}
	return false
}

// Render renders the charts and overlays at paths, named as users name them.
// An overlay another one in paths builds on (a base, a component) is linted
// as part of that one, not again on its own: its findings would be counted
// twice, and a base is often incomplete by design. When every overlay that
// builds on it fails, a base is rendered on its own, so that a broken
// overlay does not hide its bases. A Component never is: it patches the
// objects of the overlay that includes it and fails alone. Each rendered
// file's Unit is the index of its path; a path that fails to render is one
// error, and the others are still rendered. What Helm and Kustomize log
// while a path renders comes back as notes, a line each, named by the path.
func Render(paths []string, options Options) ([]*manifest.File, []string, []error) {
	components := map[string]bool{}
	for _, path := range paths {
		components[path] = !IsChart(path) && IsOverlay(path) && kustomize.IsComponent(path)
	}
	includedBy := bases(paths, options.Paths, components)
	renderer := charts.NewRenderer(len(paths))
	defer renderer.Close()
	type outcome struct {
		files []*manifest.File
		notes []string
		err   error
	}
	outcomes := make([]outcome, len(paths))
	failed := map[string]bool{}
	render := func(unit int, path string) {
		var rendered []*manifest.File
		var err error
		logged := captureLog(func() { rendered, err = renderOne(renderer, path, options) })
		out := &outcomes[unit]
		// The renderer coalesces a chart's values for each of its renders
		// (the plain one and the traced ones), logging each warning again.
		for _, line := range slices.Compact(logged) {
			out.notes = append(out.notes, path+": "+line)
		}
		out.files, out.err = rendered, err
		failed[path] = err != nil
	}
	for unit, path := range paths {
		if includedBy[path] == "" && !components[path] {
			render(unit, path)
		}
	}
	skip := func(unit int, path, reason string) {
		outcomes[unit].files = []*manifest.File{{Path: path, Skipped: []string{reason}}}
	}
	for unit, path := range paths {
		switch includer := includedBy[path]; {
		case components[path] && includer == "":
			skip(unit, path, "a Kustomize Component, built only as part of the overlays that include it")
		case components[path] && includedFailed(path, includedBy, failed):
			skip(unit, path, "Kustomize component of "+includer+", which did not build; a component is built only as part of the overlays that include it")
		case components[path]:
			skip(unit, path, "Kustomize component of "+includer+", linted as part of it")
		case includer == "":
		case includedFailed(path, includedBy, failed):
			render(unit, path)
		default:
			skip(unit, path, "Kustomize base of "+includer+", linted as part of it")
		}
	}
	var files []*manifest.File
	var notes []string
	var errs []error
	for unit, out := range outcomes {
		notes = append(notes, out.notes...)
		if out.err != nil {
			errs = append(errs, out.err)
			continue
		}
		for _, file := range out.files {
			file.Unit = unit
		}
		files = append(files, out.files...)
	}
	return withoutRepeatedSources(files), notes, errs
}

// includedFailed reports whether the overlay that builds on path failed,
// or was itself a base rendered alone because its own includer failed.
func includedFailed(path string, includedBy map[string]string, failed map[string]bool) bool {
	for seen := 0; seen < len(includedBy); seen++ {
		includer := includedBy[path]
		if includedBy[includer] == "" {
			return failed[includer]
		}
		path = includer
	}
	return false
}

// PatchFiles are the files the overlays among dirs name as patches, as
// clean absolute paths: a patch is part of the object it patches, and is
// never linted as a whole object, whether or not its overlay builds.
func PatchFiles(dirs []string) map[string]string {
	patches := map[string]string{}
	for _, dir := range dirs {
		if IsChart(dir) || !IsOverlay(dir) {
			continue
		}
		for _, file := range kustomize.PatchFiles(dir) {
			if _, seen := patches[file]; !seen {
				patches[file] = dir
			}
		}
	}
	return patches
}

// renderOne renders one chart or overlay in the run's renderer.
func renderOne(renderer *charts.Renderer, path string, options Options) (rendered []*manifest.File, err error) {
	switch {
	case IsChart(path) || IsChartArchive(path):
		rendered, err = renderer.Render(path, path, charts.Options{
			ValuesFiles: options.HelmValues, Set: options.HelmSet,
			ReleaseName: options.ReleaseName, Namespace: options.Namespace, IncludeTests: options.HelmIncludeTests,
			KubeVersion: options.KubeVersion, APIVersions: options.APIVersions,
			Timeout: options.RenderTimeout,
		})
		release := options.ReleaseName
		if release == "" {
			release = charts.DefaultReleaseName
		}
		for _, file := range rendered {
			file.HelmRelease = release
		}
	case IsOverlay(path):
		var root string
		if root, err = overlayRoot(path, options.Paths); err == nil {
			rendered, err = renderer.BuildOverlay(path, path, root, options.KustomizeLoadRestrictor, options.RenderTimeout)
		}
	default:
		err = fmt.Errorf("%s: neither a Helm chart nor a Kustomize overlay", path)
	}
	return rendered, err
}

// captureLog runs render with the standard logger, which Helm's engine
// and Kustomize write warnings to ("[INFO] Missing required value"),
// writing into a bounded collector instead of stderr, which is for a
// failed run's one error line, and returns what was logged. Paths render one at a time, so each line
// belongs to the path it is returned with.
func captureLog(render func()) []string {
	writer, flags, prefix := log.Writer(), log.Flags(), log.Prefix()
	defer func() {
		log.SetOutput(writer)
		log.SetFlags(flags)
		log.SetPrefix(prefix)
	}()
	lines := &message.Lines{}
	log.SetOutput(lines)
	log.SetFlags(0)
	log.SetPrefix("")
	render()
	return lines.Lines()
}

// withoutRepeatedSources drops the second copy of a file without objects (a
// values file or patch read for two charts or overlays).
func withoutRepeatedSources(files []*manifest.File) []*manifest.File {
	seen := map[string]bool{}
	kept := files[:0]
	for _, file := range files {
		if len(file.Objects) == 0 && len(file.Skipped) == 0 {
			if seen[file.Path] {
				continue
			}
			seen[file.Path] = true
		}
		kept = append(kept, file)
	}
	return kept
}

// overlayRoot is the root of the PATH argument holding the overlay at path,
// the deepest one when several do; the overlay's own when none does.
func overlayRoot(path string, arguments []string) (string, error) {
	absolute, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	holder := absolute
	deepest := -1
	for _, argument := range arguments {
		argumentPath, err := filepath.Abs(argument)
		if err != nil {
			continue
		}
		relative, err := filepath.Rel(argumentPath, absolute)
		if err != nil || relative == ".." || strings.HasPrefix(relative, ".."+string(filepath.Separator)) {
			continue
		}
		if len(argumentPath) > deepest {
			holder, deepest = argumentPath, len(argumentPath)
		}
	}
	root, err := kustomize.Root(holder)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return root, nil
}

// bases maps each overlay in paths that another one builds on to that one;
// arguments are the PATH arguments (see Options.Paths). A component is
// never the one: it is not built alone, and the overlay that includes it
// includes what it does.
func bases(paths, arguments []string, components map[string]bool) map[string]string {
	absolute := map[string]string{}
	for _, path := range paths {
		if !IsChart(path) && IsOverlay(path) {
			if abs, err := filepath.Abs(path); err == nil {
				absolute[abs] = path
			}
		}
	}
	includedBy := map[string]string{}
	if len(absolute) < 2 {
		return includedBy
	}
	for _, path := range paths {
		if IsChart(path) || !IsOverlay(path) || components[path] {
			continue
		}
		root, err := overlayRoot(path, arguments)
		if err != nil {
			continue // reported when the overlay itself is built
		}
		included, err := kustomize.Includes(path, root)
		if err != nil {
			continue // reported when the overlay itself is built
		}
		for _, dir := range included {
			if base, ok := absolute[dir]; ok && includedBy[base] == "" {
				includedBy[base] = path
			}
		}
	}
	return includedBy
}
