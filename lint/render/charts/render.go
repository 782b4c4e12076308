package charts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/modellint/modellint/lint/manifest"
)

// Go templates cannot be bounded from inside: Helm's engine offers no hook
// into its function map, and tpl, until and repeat (Sprig) run and
// allocate without limit ("{{ repeat 1000000000 "x" }}" asks for a GiB at
// once, a tpl that calls itself grows until the stack overflows). So the
// renderer runs with a deadline, a CPU limit, an address-space limit, and a
// watchdog in modellint that reads its resident memory; when any is passed
// it is ended and the chart is reported.
const (
	// HeapLimit bounds the renderer's resident memory: a chart's output is
	// MiB, its values and templates less, the binary itself ~60 MiB.
	HeapLimit = 512 << 20
	// softLimit is the renderer's Go memory limit: it collects hard as its
	// heap nears it, so garbage never takes it to HeapLimit. The rest of
	// HeapLimit is the binary's pages, which the runtime does not count.
	softLimit = HeapLimit - 128<<20
	// addressSpace backs the watchdog: an allocation too large to wait for
	// fails at once.
	addressSpace = 3 << 30
	// MaxResponse bounds what modellint reads of one chart or overlay, its
	// rendered files, their sources and where every field is placed
	// together: the bound of one manifest file, which parsing costs
	// modellint about six times over.
	MaxResponse = manifest.MaxFileSize
	// maxRequest bounds what the renderer reads of one request.
	maxRequest = 1 << 20
)

// WireVersion is the version of Request and Response: a renderer from
// another release refuses a request rather than misread it.
const WireVersion = 4

// RendererName is the renderer's executable, installed beside modellint.
const RendererName = "modellint-helm"

// ChildEnv marks a test binary started as the renderer (see UseRenderer).
const ChildEnv = "MODELLINT_HELM_RENDER_CHILD"

// renderer is the executable UseRenderer set, and what its environment adds.
var renderer struct {
	path string
	env  []string
}

// UseRenderer makes Render start path, with env added to the environment,
// instead of the modellint-helm beside this executable: a test binary that
// links Helm serves as its own renderer.
func UseRenderer(path string, env ...string) { renderer.path, renderer.env = path, env }

// Render renders the chart at chartPath (a directory or packaged .tgz), as
// `helm template` would, in the renderer: one manifest file per template
// that produced objects, each field placed on the template or values-file
// line that wrote it, then the values files (without objects) that fields
// may be placed in. display is how users name chartPath; files are named
// after it ("charts/tfs/templates/deployment.yaml"). Errors are one line,
// name the file, and carry Helm's own message.
//
// Render starts a renderer for this chart alone; a run that renders several
// charts and overlays uses one Renderer for all.
func Render(chartPath, display string, options Options) ([]*manifest.File, error) {
	renderer := NewRenderer(1)
	defer renderer.Close()
	return renderer.Render(chartPath, display, options)
}

// rendererPath finds the renderer: the one UseRenderer set, else
// modellint-helm beside this executable (as a release archive, go install
// and the container image put it), else on PATH.
func rendererPath() (string, error) {
	if renderer.path != "" {
		return renderer.path, nil
	}
	name := RendererName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), name)
		if info, err := os.Stat(beside); err == nil && info.Mode().IsRegular() {
			return beside, nil
		}
	}
	if path, err := exec.LookPath(name); err == nil {
		return path, nil
	}
	return "", fmt.Errorf("rendering a Helm chart or Kustomize overlay needs %s, found neither beside modellint nor on PATH "+
		"(it comes with modellint: install both, e.g. go install github.com/modellint/modellint/cmd/...@VERSION)", name)
}
