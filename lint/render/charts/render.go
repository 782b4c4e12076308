package charts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/modellint/modellint/lint/manifest"
)

// Go templates cannot be bounded from inside: Helm's engine offers no hook
// into its function map, and tpl, until and repeat (Sprig) run and
// allocate without limit ("{{ repeat 1000000000 "x" }}" asks for a GiB at
// once, a tpl that calls itself grows until the stack overflows). So the
// renderer runs with a deadline, a CPU limit, an address-space limit and a
// memory watchdog of its own; when any is passed it dies and the chart is
// reported.
const (
	// HeapLimit bounds the renderer's resident memory: a chart's output is
	// MiB, its values and templates less, the binary itself ~60 MiB.
	HeapLimit = 512 << 20
	// HeapExceededCode is the renderer's exit code when it outgrew HeapLimit.
	HeapExceededCode = 3
	// addressSpace backs the watchdog: an allocation too large to wait for
	// fails at once.
	addressSpace = 3 << 30
	// maxResponse bounds what the renderer may send back.
	maxResponse = 256 << 20
)

// WireVersion is the version of Request and Response: a renderer from
// another release refuses a request rather than misread it.
const WireVersion = 2

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
func Render(chartPath, display string, options Options) ([]*manifest.File, error) {
	return call(Request{Chart: chartPath, Display: display, Options: options},
		"a template that loops, recurses or repeats without end?", func(file *manifest.File) bool { return Kept(file, options) })
}

// BuildOverlay builds the Kustomize overlay in dir, as `kustomize build`
// would, offline, in the renderer (package build): one manifest file per
// file the objects came from, each field placed on the resource, patch or
// kustomization line that wrote it, then the kustomization and patch files
// (without objects) that fields may be placed in. display is how users name
// dir; loadRestrictor is kustomize's --load-restrictor ("" or rootOnly,
// none); timeout bounds the build (0: DefaultRenderTimeout).
func BuildOverlay(dir, display, loadRestrictor string, timeout time.Duration) ([]*manifest.File, error) {
	return call(Request{Overlay: dir, Display: display, LoadRestrictor: loadRestrictor, Options: Options{Timeout: timeout}},
		"an overlay that expands without bound, such as a YAML alias bomb?", nil)
}

// call sends the request to the renderer and rebuilds the files it sends
// back, kept when keep keeps them (nil: all). cause is what the bounds'
// messages suggest when the renderer passes one.
func call(request Request, cause string, keep func(*manifest.File) bool) ([]*manifest.File, error) {
	executable, err := rendererPath()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", request.Display, err)
	}
	response, err := runRenderer(executable, request, cause)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", request.Display, err)
	}
	for _, line := range response.Log {
		log.Print(line)
	}
	if response.Error != "" {
		return nil, errors.New(response.Error)
	}
	files, err := response.files(keep)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", request.Display, err)
	}
	return files, nil
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

// runRenderer sends the request to a renderer started within the bounds;
// cause is what passing one suggests.
func runRenderer(executable string, request Request, cause string) (*Response, error) {
	timeout := request.Options.Timeout
	if timeout <= 0 {
		timeout = DefaultRenderTimeout
	}
	request.Options.Timeout = timeout
	body, err := json.Marshal(struct {
		Version int
		Request
	}{WireVersion, request})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, executable)
	cmd.Env = append(append(os.Environ(), renderer.env...), "GOMAXPROCS=1")
	cmd.Stdin = bytes.NewReader(body)
	var stdout bytes.Buffer
	cmd.Stdout = &limitedBuffer{buffer: &stdout, limit: maxResponse}
	cmd.Stderr = io.Discard // a crash's trace is not a message; the bound passed is
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the renderer %s: %w", executable, err)
	}
	limitChild(cmd.Process.Pid, uint64(timeout.Seconds())+1)
	err = cmd.Wait()
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("rendering did not finish within %s (%s)", timeout, cause)
	case errors.As(err, &exitErr) && exitErr.ExitCode() == HeapExceededCode:
		return nil, fmt.Errorf("rendering needed more than %d MiB of memory (%s)", HeapLimit>>20, cause)
	case err != nil:
		return nil, fmt.Errorf("rendering failed within its bounds of %s and %d MiB (%s)", timeout, HeapLimit>>20, cause)
	}
	var response struct {
		Version int
		Response
	}
	if err := json.Unmarshal(stdout.Bytes(), &response); err != nil {
		return nil, fmt.Errorf("rendering produced more than %d MiB or no answer", maxResponse>>20)
	}
	if response.Version != WireVersion {
		return nil, fmt.Errorf("the renderer %s answers in version %d, not %d: install modellint and %s from the same release",
			executable, response.Version, WireVersion, RendererName)
	}
	return &response.Response, nil
}

// limitedBuffer keeps at most limit bytes and fails the write past it,
// which ends the child on a broken pipe.
type limitedBuffer struct {
	buffer *bytes.Buffer
	limit  int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if l.buffer.Len()+len(p) > l.limit {
		return 0, errors.New("render output over its bound")
	}
	return l.buffer.Write(p)
}
