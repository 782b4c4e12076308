package helm

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
	"strconv"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/modellint/modellint/internal/message"
)

// Go templates cannot be bounded from inside: Helm's engine offers no hook
// into its function map, and tpl, until and repeat (Sprig) run and
// allocate without limit ("{{ repeat 1000000000 "x" }}" asks for a GiB at
// once, a tpl that calls itself grows until the stack overflows). So a
// chart is rendered in a child process of the same binary, with a
// deadline, a CPU limit, an address-space limit and a memory watchdog; when
// any is passed the child dies and the chart is reported.
const (
	// DefaultRenderTimeout bounds one chart's rendering, in wall and CPU
	// time: the largest public charts render in well under a second.
	DefaultRenderTimeout = 10 * time.Second
	// renderHeapLimit bounds the child's resident memory: a chart's output
	// is MiB, its values and templates less, the binary itself ~60 MiB.
	renderHeapLimit = 512 << 20
	// renderAddressSpace backs the watchdog: an allocation too large to
	// wait for fails at once.
	renderAddressSpace = 3 << 30
	// maxRenderOutput bounds what the child may send back.
	maxRenderOutput = 256 << 20
)

// renderChildEnv marks a process started to render one chart.
const renderChildEnv = "MODELLINT_HELM_RENDER_CHILD"

// isolated says this executable serves render requests (ServeRender is
// wired into its main): only then are charts rendered in a child.
var isolated bool

// Isolate makes Render run Helm's engine in a child process of this
// executable, whose main must call ServeRender when IsRenderChild.
func Isolate() { isolated = true }

// IsRenderChild reports whether this process was started to render.
func IsRenderChild() bool { return os.Getenv(renderChildEnv) == "1" }

// renderRequest is what the child needs to render as the parent would.
type renderRequest struct {
	Chart   string
	Options Options
}

type renderResponse struct {
	Rendered map[string]string
	Error    string
	// Log is what the engine logged in the child, bounded; the parent
	// logs it again, where its caller collects it.
	Log []string
}

// ServeRender renders the chart a request on stdin names and writes the
// rendered templates to stdout; it returns the exit code.
func ServeRender(stdin io.Reader, stdout io.Writer) int {
	go watchHeap()
	var request renderRequest
	if err := json.NewDecoder(io.LimitReader(stdin, 1<<20)).Decode(&request); err != nil {
		fmt.Fprintln(os.Stderr, "render request:", err)
		return 2
	}
	var response renderResponse
	logged := &message.Lines{}
	log.SetOutput(logged)
	log.SetFlags(0)
	rendered, err := renderInProcess(request.Chart, request.Options)
	if err != nil {
		response.Error = err.Error()
	}
	response.Rendered, response.Log = rendered, logged.Lines()
	if err := json.NewEncoder(stdout).Encode(&response); err != nil {
		return 2
	}
	return 0
}

// heapExceededCode is the child's exit code when its heap outgrew the limit.
const heapExceededCode = 3

// watchHeap ends the process when its resident memory passes the limit.
// RSS from /proc is what the limit is about and is current at once, where
// the runtime's heap statistics lag a large allocation being filled.
func watchHeap() {
	pageSize := uint64(os.Getpagesize())
	for range time.Tick(2 * time.Millisecond) {
		statm, err := os.ReadFile("/proc/self/statm")
		if err != nil {
			return // not Linux: the address-space limit and the deadline still hold
		}
		fields := strings.Fields(string(statm))
		if len(fields) < 2 {
			return
		}
		if resident, err := strconv.ParseUint(fields[1], 10, 64); err == nil && resident*pageSize > renderHeapLimit {
			os.Exit(heapExceededCode)
		}
	}
}

// renderInProcess loads the chart and runs Helm's engine as Render does.
func renderInProcess(chartPath string, options Options) (map[string]string, error) {
	top, err := loader.Load(chartPath)
	if err != nil {
		return nil, err
	}
	values, _, err := userValues(options.ValuesFiles, options.Set)
	if err != nil {
		return nil, err
	}
	if err := chartutil.ProcessDependenciesWithMerge(top, values); err != nil {
		return nil, err
	}
	r := &renderer{options: options, top: top, values: values}
	return r.engineRender()
}

// renderInChild runs renderInProcess in a child process within the bounds.
func (r *renderer) renderInChild(chartPath string) (map[string]string, error) {
	timeout := r.options.Timeout
	if timeout <= 0 {
		timeout = DefaultRenderTimeout
	}
	executable, err := os.Executable()
	if err != nil {
		return nil, err
	}
	request, err := json.Marshal(renderRequest{Chart: chartPath, Options: r.options})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, executable)
	cmd.Env = append(os.Environ(), renderChildEnv+"=1", "GOMAXPROCS=1")
	cmd.Stdin = bytes.NewReader(request)
	var stdout bytes.Buffer
	cmd.Stdout = &limitedBuffer{buffer: &stdout, limit: maxRenderOutput}
	cmd.Stderr = io.Discard // a crash's trace is not a message; the bound passed is
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the renderer: %w", err)
	}
	limitChild(cmd.Process.Pid, uint64(timeout.Seconds())+1)
	err = cmd.Wait()
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("rendering did not finish within %s (a template that loops or recurses without end?)", timeout)
	case errors.As(err, &exitErr) && exitErr.ExitCode() == heapExceededCode:
		return nil, fmt.Errorf("rendering needed more than %d MiB of memory (a template that recurses or repeats without end?)", renderHeapLimit>>20)
	case err != nil:
		return nil, fmt.Errorf("rendering failed within its bounds of %s and %d MiB (a template that recurses or repeats without end?)", timeout, renderHeapLimit>>20)
	}
	var response renderResponse
	if err := json.Unmarshal(stdout.Bytes(), &response); err != nil {
		return nil, fmt.Errorf("rendering produced more than %d MiB or no answer", maxRenderOutput>>20)
	}
	for _, line := range response.Log {
		log.Print(line)
	}
	if response.Error != "" {
		return nil, errors.New(response.Error)
	}
	return response.Rendered, nil
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
