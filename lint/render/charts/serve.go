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
	"time"

	"github.com/modellint/modellint/internal/message"
)

// Serve is the renderer's side of Renderer: it reads requests on stdin,
// one after another until stdin ends, answers each with respond and writes
// the response to stdout, and returns the exit code. The parent bounds its
// time and address space; it bounds its own resident memory, and gives it
// back to the system after a request that left it large.
func Serve(stdin io.Reader, stdout io.Writer, respond func(Request) Response) int {
	go watchHeap()
	requests := &boundedReader{reader: stdin}
	decoder, encoder := json.NewDecoder(requests), json.NewEncoder(stdout)
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
		response := struct {
			Version int
			Response
		}{Version: WireVersion}
		if request.Version != WireVersion {
			response.Error = fmt.Sprintf("%s: the renderer %s reads requests of version %d, not %d: install modellint and %s from the same release",
				request.Display, RendererName, WireVersion, request.Version, RendererName)
		} else {
			logged := &message.Lines{}
			log.SetOutput(logged)
			log.SetFlags(0)
			response.Response = respond(request.Request)
			response.Log = logged.Lines()
		}
		if err := encoder.Encode(&response); err != nil {
			return 2
		}
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

// watchHeap ends the process when its resident memory passes the limit.
// RSS from /proc is what the limit is about and is current at once, where
// the runtime's heap statistics lag a large allocation being filled.
func watchHeap() {
	for range time.Tick(2 * time.Millisecond) {
		if resident() > HeapLimit {
			os.Exit(HeapExceededCode)
		}
	}
}

// resident is the process's resident memory in bytes, 0 when it cannot
// be read (not Linux: the deadline still holds).
func resident() uint64 {
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(statm))
	if len(fields) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(fields[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}
