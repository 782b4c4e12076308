package helm

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
	"github.com/modellint/modellint/lint/render/charts"
)

// ServeRender is the renderer's main (see charts.Render): it renders the
// chart a request on stdin names and writes the response to stdout, and
// returns the exit code. The parent bounds its time and address space; it
// bounds its own resident memory.
func ServeRender(stdin io.Reader, stdout io.Writer) int {
	go watchHeap()
	var request struct {
		Version int
		charts.Request
	}
	if err := json.NewDecoder(io.LimitReader(stdin, 1<<20)).Decode(&request); err != nil {
		fmt.Fprintf(os.Stderr, "%s renders Helm charts for modellint, which starts it: %v\n", charts.RendererName, err)
		return 2
	}
	response := struct {
		Version int
		charts.Response
	}{Version: charts.WireVersion}
	if request.Version != charts.WireVersion {
		response.Error = fmt.Sprintf("%s: the renderer %s reads requests of version %d, not %d: install modellint and %s from the same release",
			request.Display, charts.RendererName, charts.WireVersion, request.Version, charts.RendererName)
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

// respond renders and traces the chart and puts the result in wire form.
func respond(request charts.Request) charts.Response {
	templates, values, err := renderTemplates(request.Chart, request.Display, request.Options)
	if err != nil {
		return charts.Response{Error: err.Error()}
	}
	var response charts.Response
	for _, template := range templates {
		response.Files = append(response.Files, charts.FileOf(template.file, template.text))
	}
	for _, file := range values {
		response.Files = append(response.Files, charts.ValuesFileOf(file))
	}
	return response
}

// IsRenderChild reports whether this test binary was started as the
// renderer (see charts.UseRenderer).
func IsRenderChild() bool { return os.Getenv(charts.ChildEnv) == "1" }

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
		if resident, err := strconv.ParseUint(fields[1], 10, 64); err == nil && resident*pageSize > charts.HeapLimit {
			os.Exit(charts.HeapExceededCode)
		}
	}
}
