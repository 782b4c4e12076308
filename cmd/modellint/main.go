// Command modellint lints a model-serving deployment (Kubernetes manifests,
// model directories, container images) before it ships.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
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
	code := exitClean
	root := newRootCommand(stdin, stdout, stderr, &code)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintf(stderr, "modellint: %v (see modellint --help)\n", oneLine(err.Error()))
		return exitError
	}
	return code
}
