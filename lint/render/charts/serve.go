package charts

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/modellint/modellint/internal/message"
)

// Serve is the renderer's side of Renderer: it reads requests on stdin,
// one after another until stdin ends, answers each with respond and writes
// the response to stdout, and returns the exit code. The parent bounds its
// time, address space and resident memory and gives it an empty
// environment; it refuses network connections of its own (see
// refuseNetwork), keeps its heap under the memory bound, and gives memory
// back to the system after a request that left it large.
func Serve(stdin io.Reader, stdout io.Writer, respond func(Request) Response) int {
	refuseNetwork()
	debug.SetMemoryLimit(softLimit)
	requests := &boundedReader{reader: stdin}
	decoder := json.NewDecoder(requests)
	for {
		requests.remaining = maxRequest
		var request struct {
			Version int
			Request
		}
		if err := decoder.Decode(&request); err != nil {
			if err == io.EOF {
				return 0
			}
			fmt.Fprintf(os.Stderr, "%s renders Helm charts and Kustomize overlays for modellint, which starts it: %v\n", RendererName, err)
			return 2
		}
		var response Response
		if request.Version != WireVersion {
			response.Error = fmt.Sprintf("%s: the renderer %s reads requests of version %d, not %d: install modellint and %s from the same release",
				request.Display, RendererName, WireVersion, request.Version, RendererName)
		} else {
			logged := &message.Lines{}
			log.SetOutput(logged)
			log.SetFlags(0)
			response = respond(request.Request)
			response.Log = logged.Lines()
		}
		out, err := encode(response)
		if err == nil && out.size > MaxResponse {
			// Said here, where the size is known before anything is sent.
			out, err = encode(Response{Log: response.Log, Error: fmt.Sprintf("%s: rendering produced %d MiB of manifests, more than the %d MiB modellint reads of one chart or overlay",
				request.Display, out.size>>20, MaxResponse>>20)})
		}
		response = Response{}
		if err != nil || out.write(stdout) != nil {
			return 2
		}
		out = nil
		// What this render held would count against the next one's bound;
		// a small one is left to the collector (a forced collection costs
		// more than a small render).
		if resident() > HeapLimit/4 {
			debug.FreeOSMemory()
		}
	}
}

// IsRenderChild reports whether this test binary was started as the
// renderer (see UseRenderer).
func IsRenderChild() bool { return os.Getenv(ChildEnv) == "1" }

// resident is the process's resident memory in bytes, 0 when it cannot
// be read (not Linux).
func resident() uint64 {
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	return residentPages(statm) * uint64(os.Getpagesize())
}

// residentPages reads the resident pages of /proc/PID/statm, 0 when it
// does not parse.
func residentPages(statm []byte) uint64 {
	fields := strings.Fields(string(statm))
	if len(fields) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(fields[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages
}
