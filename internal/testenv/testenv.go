// Package testenv decides what a test does when the machine lacks a tool
// or a privilege it needs: it skips, naming what is missing, or fails on
// machines set up to have everything (CI sets RequireTools).
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// RequireTools turns every skip for a missing tool, a failing command or
// the wrong user into a failure: .ci/run sets it to 1.
const RequireTools = "MODELLINT_REQUIRE_VALIDATORS"

// Required reports whether RequireTools is set.
func Required() bool { return os.Getenv(RequireTools) == "1" }

// Unavailable skips a test whose tool is missing, with message saying
// what is missing, or fails it when the machine is meant to have it.
func Unavailable(t testing.TB, message string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s; %s=1 requires it", message, RequireTools)
	}
	t.Skip(message + "; skipping")
}

// Tool returns the path of command, or reports it unavailable with how
// to install it.
func Tool(t testing.TB, command, install string) string {
	t.Helper()
	path, err := exec.LookPath(command)
	if err != nil {
		Unavailable(t, command+" is not installed ("+install+")")
	}
	return path
}

// Root reports a test unavailable unless it runs as root; what says what
// needs root. CI runs the tests as root.
func Root(t testing.TB, what string) {
	t.Helper()
	if uid := os.Geteuid(); uid != 0 {
		Unavailable(t, fmt.Sprintf("%s needs root, and the test runs as uid %d", what, uid))
	}
}
