package charts

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modellint/modellint/internal/message"
)

// Serve is the renderer's side of Render and BuildOverlay: it reads the
// request on stdin, answers it with respond and writes the response to
// stdout, and returns the exit code. The parent bounds its time and address
// space; it bounds its own resident memory.
func Serve(stdin io.Reader, stdout io.Writer, respond func(Request) Response) int {
	go watchHeap()
	var request struct {
		Version int
		Request
	}
	if err := json.NewDecoder(io.LimitReader(stdin, 1<<20)).Decode(&request); err != nil {
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
	if err := json.NewEncoder(stdout).Encode(&response); err != nil {
		return 2
	}
	return 0
}

// IsRenderChild reports whether this test binary was started as the
// renderer (see UseRenderer).
func IsRenderChild() bool { return os.Getenv(ChildEnv) == "1" }

// watchHeap ends the process when its resident memory passes the limit.
// RSS from /proc is what the limit is about and is current at once, where
// the runtime's heap statistics lag a large allocation being filled.
func watchHeap() {
	pageSize := uint64(os.Getpagesize())
	for range time.Tick(2 * time.Millisecond) {
		statm, err := os.ReadFile("/proc/self/statm")
		if err != nil {
			return // not Linux: the deadline still holds
		}
		fields := strings.Fields(string(statm))
		if len(fields) < 2 {
			return
		}
		if resident, err := strconv.ParseUint(fields[1], 10, 64); err == nil && resident*pageSize > HeapLimit {
			os.Exit(HeapExceededCode)
		}
	}
}
