// Command modellint-helm renders Helm charts for modellint, which starts it
// beside itself for each chart it lints: a request on standard input, the
// rendered files, each field placed on the line that wrote it, on standard
// output. Helm's libraries live in this binary alone, so modellint starts
// without setting them up.
package main

import (
	"os"

	"github.com/modellint/modellint/lint/render/helm"
)

func main() {
	os.Exit(helm.ServeRender(os.Stdin, os.Stdout))
}
