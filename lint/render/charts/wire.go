package charts

import (
	"fmt"
	"strings"

	"github.com/modellint/modellint/lint/manifest"
)

// Request is what the renderer reads on its standard input: one chart or
// one Kustomize overlay.
type Request struct {
	// Chart is the chart's directory or packaged .tgz, Overlay the
	// overlay's directory (one of the two is set); Display is how users
	// name it, which the files are named after.
	Chart, Overlay, Display string
	// Options say how a chart is rendered; their Timeout bounds an overlay too.
	Options Options
	// LoadRestrictor is kustomize's --load-restrictor for an overlay.
	LoadRestrictor string
	// Root is the tree an overlay may read (see kustomize.Root).
	Root string
}

// Response is what the renderer writes on its standard output.
type Response struct {
	// Files are the rendered templates (the built files of an overlay),
	// then the values files (kustomization and patch files) fields may be
	// placed in (see File).
	Files []File
	// Error is Helm's, kustomize's or the tracing's one-line message;
	// Files are empty then.
	Error string
	// Log is what Helm's loader and engine, or kustomize, logged, bounded.
	Log []string
}

// File is one rendered template or built file, as LoadRendered parses it
// and Relocate and SetCalls leave its documents, before test hooks are
// dropped; or a file without objects that fields may be placed in (a values
// file, a kustomization or patch file), with Rendered nil. Texts are bytes:
// a template need not be UTF-8, and a JSON string would not carry it
// unchanged.
type File struct {
	Path       string
	Source     []byte
	Rendered   []byte
	Placements []manifest.Placement
}

// FileOf is file (of the rendered text) as the renderer sends it.
func FileOf(file *manifest.File, rendered []byte) File {
	wire := File{Path: file.Path, Source: file.Source, Rendered: rendered}
	for _, doc := range file.Documents() {
		wire.Placements = append(wire.Placements, doc.Placement())
	}
	return wire
}

// SourceFileOf is a file without objects (a values, kustomization or patch
// file) as the renderer sends it.
func SourceFileOf(file *manifest.File) File { return File{Path: file.Path, Source: file.Source} }

// files rebuilds the manifest files of a response: each rendered text
// parsed again and its documents placed where the renderer placed them,
// then kept when keep (nil: keep all) keeps it.
func (r *Response) files(keep func(*manifest.File) bool) ([]*manifest.File, error) {
	var files []*manifest.File
	for _, wire := range r.Files {
		if wire.Rendered == nil {
			files = append(files, &manifest.File{Path: wire.Path, Source: wire.Source})
			continue
		}
		file, err := manifest.LoadRendered(wire.Path, wire.Source, wire.Rendered)
		if err != nil {
			return nil, fmt.Errorf("the renderer's output does not parse again: %w", err)
		}
		docs := file.Documents()
		if len(docs) != len(wire.Placements) {
			return nil, fmt.Errorf("%s: the renderer placed %d documents of %d", wire.Path, len(wire.Placements), len(docs))
		}
		for i, doc := range docs {
			if err := doc.Place(wire.Placements[i]); err != nil {
				return nil, fmt.Errorf("%s: document %d: %w", wire.Path, doc.Index+1, err)
			}
		}
		if keep == nil || keep(file) {
			files = append(files, file)
		}
	}
	return files, nil
}

// Kept drops Helm test hooks from a rendered template's file unless
// options include them, and reports whether the file is still linted: it
// has objects, or notes of what it skipped.
func Kept(file *manifest.File, options Options) bool {
	if !options.IncludeTests {
		dropTestHooks(file)
	}
	return len(file.Objects) > 0 || len(file.Skipped) > 0
}

// dropTestHooks removes Helm test hooks, which are not part of an install.
func dropTestHooks(file *manifest.File) {
	kept := file.Objects[:0]
	for _, object := range file.Objects {
		if isTestHook(object) {
			file.Skipped = append(file.Skipped, fmt.Sprintf("%s: Helm test hook, not installed with the release (--helm-include-tests lints it)", object.ID()))
			continue
		}
		kept = append(kept, object)
	}
	file.Objects = kept
}

func isTestHook(object *manifest.Object) bool {
	hooks, _ := object.Lookup("metadata", "annotations", "helm.sh/hook")
	text, _ := hooks.(string)
	for _, hook := range strings.Split(text, ",") {
		if hook = strings.ToLower(strings.TrimSpace(hook)); hook == "test" || hook == "test-success" {
			return true
		}
	}
	return false
}
