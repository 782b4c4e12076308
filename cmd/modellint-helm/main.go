// Command modellint-helm renders Helm charts and builds Kustomize overlays
// for modellint, which starts it beside itself when a run has charts or
// overlays to lint: requests on standard input, one after another, and for
// each the rendered files, every field placed on the line that wrote it, on
// standard output. Helm's and kustomize's libraries live in this binary
// alone, so modellint starts without setting them up.
package main

import (
	"os"

	"github.com/modellint/modellint/lint/render/charts"
	"github.com/modellint/modellint/lint/render/renderer"
)

func main() {
	os.Exit(charts.Serve(os.Stdin, os.Stdout, renderer.Respond))
}
