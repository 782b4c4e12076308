package unprivileged

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRerun: run as root, the test runs again as nobody, where a file with
// no permissions cannot be read.
func TestRerun(t *testing.T) {
	if Rerun(t) {
		return
	}
	if os.Getenv(childEnv) == "1" && (os.Geteuid() != UID || os.Getegid() != GID) {
		t.Fatalf("child runs as uid %d gid %d, want %d %d", os.Geteuid(), os.Getegid(), UID, GID)
	}
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(path); err == nil {
		t.Errorf("read a file with mode 0 as uid %d", os.Geteuid())
	}
}

func TestTestPattern(t *testing.T) {
	if got, want := testPattern("TestA/case_(1)"), `^TestA$/^case_\(1\)$`; got != want {
		t.Errorf("testPattern = %q, want %q", got, want)
	}
}
