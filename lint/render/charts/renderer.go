package charts

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
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
	if r.process != nil && (r.process.late.Load() || r.process.heavy.Load()) {
		// A bound of its last request passed as the answer came in.
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
	// The renderer runs in an empty directory: the paths it reads are sent
	// absolute, and what it says of them is said of the paths as given.
	paths, err := absolutePaths(&request)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", request.Display, err)
	}
	files, response, err := r.process.answer(request, cause, keep, paths)
	if err != nil {
		var reply *replyError
		r.process.end()
		r.process = nil
		if errors.As(err, &reply) {
			return nil, fmt.Errorf("%s: %s", request.Display, paths.say(reply.Error()))
		}
		return nil, fmt.Errorf("%s: %w", request.Display, err)
	}
	for _, line := range response.Log {
		log.Print(paths.say(line))
	}
	if response.Error != "" {
		return nil, errors.New(paths.say(response.Error))
	}
	return files, nil
}

// process is one running renderer.
type process struct {
	executable string
	cmd        *exec.Cmd
	dir        string // its working directory, HOME and TMPDIR, empty
	requests   io.WriteCloser
	limit      *boundedReader
	responses  *bufio.Reader
	stderr     *crashLog
	// late is set when a request's deadline passed, and heavy when the
	// watchdog saw the process pass HeapLimit; either kills it.
	late, heavy atomic.Bool
}

// startProcess starts the renderer within bounds of CPU time (the deadline
// of each of the requests it may be sent) and address space, in an empty
// directory and an environment that holds nothing of modellint's: no
// credentials, no proxy, no PATH to find a program on, no HOME with a
// configuration or a cache.
func startProcess(executable string, timeout time.Duration, requests int) (*process, error) {
	dir, err := os.MkdirTemp("", RendererName+"-")
	if err != nil {
		return nil, fmt.Errorf("start the renderer %s: %w", executable, err)
	}
	os.Chmod(dir, 0o500) //nolint:errcheck // it is empty either way
	cmd := exec.Command(executable)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=", "HOME=" + dir, "TMPDIR=" + dir, "GOMAXPROCS=1"}, renderer.env...)
	stderr := &crashLog{}
	cmd.Stderr = stderr
	cmd.WaitDelay = time.Second
	p := &process{executable: executable, cmd: cmd, dir: dir, stderr: stderr}
	stdin, err := cmd.StdinPipe()
	if err == nil {
		var stdout io.Reader
		if stdout, err = cmd.StdoutPipe(); err == nil {
			p.requests, p.limit = stdin, &boundedReader{reader: stdout}
			p.responses = bufio.NewReaderSize(p.limit, 1<<16)
			err = cmd.Start()
		}
	}
	if err != nil {
		os.RemoveAll(dir) //nolint:errcheck // a temporary directory
		return nil, fmt.Errorf("start the renderer %s: %w", executable, err)
	}
	limitChild(cmd.Process.Pid, (uint64(timeout.Seconds())+1)*uint64(requests))
	return p, nil
}

// answer sends the request and reads the response, within the request's
// deadline, the memory bound and the response bound; an error means the
// process is done for, and says which bound it passed or how it crashed.
func (p *process) answer(request Request, cause string, keep func(*manifest.File) bool, names *givenPaths) ([]*manifest.File, *header, error) {
	timeout := request.Options.Timeout
	body, err := json.Marshal(struct {
		Version int
		Request
	}{WireVersion, request})
	if err != nil {
		return nil, nil, err
	}
	running := p.cmd.Process
	deadline := time.AfterFunc(timeout, func() {
		p.late.Store(true)
		running.Kill() //nolint:errcheck // it may have ended already
	})
	defer deadline.Stop()
	stopWatching := watchMemory(running.Pid, func() {
		p.heavy.Store(true)
		running.Kill() //nolint:errcheck // it may have ended already
	})
	defer stopWatching()
	p.limit.remaining, p.limit.over = MaxResponse, false
	p.stderr.reset()
	var files []*manifest.File
	var response *header
	if _, err = p.requests.Write(append(body, '\n')); err == nil {
		files, response, err = readResponse(p.responses, keep, names)
	}
	if err == nil {
		if response.Version != WireVersion {
			return nil, nil, fmt.Errorf("the renderer %s answers in version %d, not %d: install modellint and %s from the same release",
				p.executable, response.Version, WireVersion, RendererName)
		}
		return files, response, nil
	}
	var reply *replyError
	if errors.As(err, &reply) {
		return nil, nil, err
	}
	return nil, nil, p.failure(err, timeout, cause)
}

// failure ends the process after an answer that did not come, and says
// why: the bound that was passed, only when it was (the deadline fired, the
// watchdog did, the CPU or address-space limit did), else the crash.
func (p *process) failure(readErr error, timeout time.Duration, cause string) error {
	ended := errors.Is(readErr, io.EOF) || errors.Is(readErr, io.ErrUnexpectedEOF) || errors.Is(readErr, syscall.EPIPE)
	if !ended {
		p.cmd.Process.Kill() //nolint:errcheck // it may have ended already
	}
	waitErr := p.cmd.Wait()
	p.cmd = nil
	var exitErr *exec.ExitError
	errors.As(waitErr, &exitErr)
	crash := p.stderr.crash()
	switch {
	case p.late.Load() || cpuLimitPassed(exitErr):
		return fmt.Errorf("rendering did not finish within %s (%s)", timeout, cause)
	case p.heavy.Load() || outOfMemory(crash):
		return fmt.Errorf("rendering needed more than %d MiB of memory (%s)", HeapLimit>>20, cause)
	case p.limit.over || errors.Is(readErr, errTooLarge):
		crash = errTooLarge.Error()
	case crash != "":
	case !ended:
		crash = readErr.Error()
	case exitErr != nil:
		crash = "it ended with " + exitErr.String()
	default:
		crash = "it ended without an answer"
	}
	return fmt.Errorf("the renderer crashed: %s — this is a bug in modellint, please report it", crash)
}

// end ends the process, idle or not, waits for it and removes its directory.
func (p *process) end() {
	if p.cmd != nil {
		p.requests.Close()
		p.cmd.Process.Kill() //nolint:errcheck // it may have ended already
		p.cmd.Wait()         //nolint:errcheck // killed
		p.cmd = nil
	}
	os.RemoveAll(p.dir) //nolint:errcheck // a temporary directory
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
