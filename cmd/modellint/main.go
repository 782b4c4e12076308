// Command modellint lints a model-serving deployment (Kubernetes manifests,
// model directories, container images) before it ships.
package main

import (
	"io"
	"log"
	"os"

	"github.com/modellint/modellint/lint/render/helm"
)

func main() {
	if helm.IsRenderChild() {
		os.Exit(helm.ServeRender(os.Stdin, os.Stdout))
	}
	helm.Isolate()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes, as the README documents them.
const (
	exitClean    = 0 // nothing at or above --fail-on
	exitFindings = 1 // findings at or above --fail-on
	exitError    = 2 // usage or runtime error
)

// run is main without the process: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Helm's chart loader and Kustomize log through the standard logger
	// ("found symbolic link in path"); the run's stderr is for its one
	// error line.
	log.SetOutput(io.Discard)
	if len(args) > 0 {
		switch args[0] {
		case "rules":
			return runRules(args[1:], stdout, stderr)
		case "explain":
			return runExplain(args[1:], stdout, stderr)
		case "version":
			return runVersion(args[1:], stdout, stderr)
		}
	}
	return runLint(args, stdin, stdout, stderr)
}
