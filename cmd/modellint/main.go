// Command modellint lints a model-serving deployment (Kubernetes manifests,
// model directories, container images) before it ships.
package main

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/modellint/modellint/internal/message"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// manifestGCPercent is the collector's pace while a run holds manifests
// (engine.Options.GCPercent), 0 when GOGC or GOMEMLIMIT is set, which then
// wins. A run holds the objects of its PATHs until their rules are done,
// and by default the heap grows to twice what is live; collecting sooner
// lowers the peak for the same CPU time (docs/performance.md has the
// measurements).
func manifestGCPercent() int {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	return 50
}

// Exit codes, as the README documents them.
const (
	exitClean    = 0 // nothing at or above --fail-on
	exitFindings = 1 // findings at or above --fail-on
	exitError    = 2 // usage or runtime error
)

// run is main without the process: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Helm's engine and Kustomize log through the standard logger
	// ("[INFO] Missing required value"); the run's stderr is for its one
	// error line.
	log.SetOutput(io.Discard)
	code := exitClean
	root := newRootCommand(stdin, stdout, stderr, &code)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintf(stderr, "modellint: %s (see modellint --help)\n", message.Line(err.Error()))
		return exitError
	}
	return code
}
