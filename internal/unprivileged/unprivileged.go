// Package unprivileged re-runs a test as an unprivileged user when the test
// binary runs as root. Tests of a refused read or write need it: root is
// refused nothing, and CI runs as root.
package unprivileged

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
)

// UID and GID are the user and group the test is re-run as: nobody and
// nogroup.
const (
	UID = 65534
	GID = 65534
)

// childEnv is set in the child's environment.
const childEnv = "MODELLINT_UNPRIVILEGED_CHILD"

// Rerun runs the calling test again, as UID in a child process, when this
// process runs as root, reports the child's outcome as the test's, and
// returns true: the caller returns at once. When the process does not run
// as root it returns false and the caller goes on to check what it checks.
//
//	if unprivileged.Rerun(t) {
//		return
//	}
func Rerun(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	output, err := runAs(t, testPattern(t.Name()))
	switch {
	case err != nil && !started(err):
		testenv.Unavailable(t, fmt.Sprintf("cannot run %s as uid %d: %v", t.Name(), UID, err))
	case err != nil:
		t.Fatalf("%s as uid %d: %v\n%s", t.Name(), UID, err, output)
	case !strings.Contains(output, "--- PASS: "+t.Name()+" "):
		t.Fatalf("%s as uid %d did not pass:\n%s", t.Name(), UID, output)
	}
	t.Logf("ran as uid %d:\n%s", UID, output)
	return true
}

// testPattern is the -test.run pattern that selects exactly the test (or
// subtest) name.
func testPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, part := range parts {
		parts[i] = "^" + regexp.QuoteMeta(part) + "$"
	}
	return strings.Join(parts, "/")
}
