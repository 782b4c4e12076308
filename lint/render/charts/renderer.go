package charts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/modellint/modellint/lint/manifest"
)

// Renderer is a renderer process that answers requests one after another,
// so a run pays its start (Helm's and kustomize's package init, ~20 ms of
// CPU) once rather than once per chart or overlay. The bounds hold for each
// request: its time from the moment it is sent, the process's memory while
// it renders. A request that passes one ends the process, and is the one
// reported, since it is the only one in flight; the next request starts
// another process. A Renderer serves one goroutine.
type Renderer struct {
	// budget is the most requests the process may still be sent: its CPU
	// time is bounded by their deadlines together.
	budget  int
	process *process // nil before the first request and after a failed one
}

// NewRenderer returns a renderer for at most requests requests; it starts
// its process on the first.
func NewRenderer(requests int) *Renderer { return &Renderer{budget: max(requests, 1)} }

// Render renders the chart at chartPath (a directory or packaged .tgz), as
// `helm template` would (see the package function Render).
func (r *Renderer) Render(chartPath, display string, options Options) ([]*manifest.File, error) {
	return r.call(Request{Chart: chartPath, Display: display, Options: options},
		"a template that loops, recurses or repeats without end?", func(file *manifest.File) bool { return Kept(file, options) })
}

// BuildOverlay builds the Kustomize overlay in dir, as `kustomize build`
// would, offline (package build, in the renderer): one manifest file per
// file the objects came from, each field placed on the resource, patch or
// kustomization line that wrote it, then the kustomization and patch files
// (without objects) that fields may be placed in. display is how users name
// dir; root is the tree it may read (see kustomize.Root); loadRestrictor is
// kustomize's --load-restrictor ("" or rootOnly, none); timeout bounds the
// build (0: DefaultRenderTimeout).
func (r *Renderer) BuildOverlay(dir, display, root, loadRestrictor string, timeout time.Duration) ([]*manifest.File, error) {
	return r.call(Request{Overlay: dir, Display: display, Root: root, LoadRestrictor: loadRestrictor, Options: Options{Timeout: timeout}},
		"an overlay that expands without bound, such as a YAML alias bomb?", nil)
}

// Close ends the renderer's process.
func (r *Renderer) Close() {
	if r.process != nil {
		r.process.end()
		r.process = nil
	}
}

// call sends the request and rebuilds the files the renderer sends back,
// kept when keep keeps them (nil: all). cause is what the bounds' messages
// suggest when the request passes one.
func (r *Renderer) call(request Request, cause string, keep func(*manifest.File) bool) ([]*manifest.File, error) {
	if request.Options.Timeout <= 0 {
		request.Options.Timeout = DefaultRenderTimeout
	}
	if r.process != nil && r.process.late.Load() {
		// Its last request's deadline passed as the answer came in.
		r.Close()
	}
	if r.process == nil {
		executable, err := rendererPath()
		if err == nil {
			r.process, err = startProcess(executable, request.Options.Timeout, r.budget)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", request.Display, err)
		}
	}
	r.budget = max(r.budget-1, 1)
	response, err := r.process.answer(request, cause)
	if err != nil {
		r.process.end()
		r.process = nil
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

// process is one running renderer.
type process struct {
	executable string
	cmd        *exec.Cmd
	requests   io.WriteCloser
	responses  *boundedReader
	decoder    *json.Decoder
	// late is set when a request's deadline passed, which kills the process.
	late atomic.Bool
}

// startProcess starts the renderer within bounds of CPU time (the deadline
// of each of the requests it may be sent) and address space.
func startProcess(executable string, timeout time.Duration, requests int) (*process, error) {
	cmd := exec.Command(executable)
	cmd.Env = append(append(os.Environ(), renderer.env...), "GOMAXPROCS=1")
	cmd.Stderr = io.Discard // a crash's trace is not a message; the bound passed is
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the renderer %s: %w", executable, err)
	}
	limitChild(cmd.Process.Pid, (uint64(timeout.Seconds())+1)*uint64(requests))
	responses := &boundedReader{reader: stdout}
	return &process{executable: executable, cmd: cmd, requests: stdin, responses: responses, decoder: json.NewDecoder(responses)}, nil
}

// answer sends the request and reads the response, within the request's
// deadline and the response bound; an error means the process is done for.
func (p *process) answer(request Request, cause string) (*Response, error) {
	timeout := request.Options.Timeout
	body, err := json.Marshal(struct {
		Version int
		Request
	}{WireVersion, request})
	if err != nil {
		return nil, err
	}
	running := p.cmd.Process
	deadline := time.AfterFunc(timeout, func() {
		p.late.Store(true)
		running.Kill() //nolint:errcheck // it may have ended already
	})
	defer deadline.Stop()
	p.responses.remaining = maxResponse
	var response struct {
		Version int
		Response
	}
	if _, err = p.requests.Write(append(body, '\n')); err == nil {
		err = p.decoder.Decode(&response)
	}
	if err == nil {
		if response.Version != WireVersion {
			return nil, fmt.Errorf("the renderer %s answers in version %d, not %d: install modellint and %s from the same release",
				p.executable, response.Version, WireVersion, RendererName)
		}
		return &response.Response, nil
	}
	if p.responses.over {
		return nil, fmt.Errorf("rendering produced more than %d MiB", maxResponse>>20)
	}
	// The renderer ended, or was ended at the deadline: say which bound.
	p.cmd.Process.Kill() //nolint:errcheck // it may have ended already
	waitErr := p.cmd.Wait()
	p.cmd = nil
	var exitErr *exec.ExitError
	switch {
	case p.late.Load():
		return nil, fmt.Errorf("rendering did not finish within %s (%s)", timeout, cause)
	case errors.As(waitErr, &exitErr) && exitErr.ExitCode() == HeapExceededCode:
		return nil, fmt.Errorf("rendering needed more than %d MiB of memory (%s)", HeapLimit>>20, cause)
	case waitErr != nil:
		return nil, fmt.Errorf("rendering failed within its bounds of %s and %d MiB (%s)", timeout, HeapLimit>>20, cause)
	}
	return nil, fmt.Errorf("the renderer %s ended without an answer", p.executable)
}

// end ends the process, idle or not, and waits for it.
func (p *process) end() {
	if p.cmd == nil {
		return
	}
	p.requests.Close()
	p.cmd.Process.Kill() //nolint:errcheck // it may have ended already
	p.cmd.Wait()         //nolint:errcheck // killed
	p.cmd = nil
}

// boundedReader reads at most remaining bytes, then fails and says so.
type boundedReader struct {
	reader    io.Reader
	remaining int64
	over      bool
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.remaining <= 0 {
		b.over = true
		return 0, errors.New("over its bound")
	}
	if int64(len(p)) > b.remaining {
		p = p[:b.remaining]
	}
	n, err := b.reader.Read(p)
	b.remaining -= int64(n)
	return n, err
}
