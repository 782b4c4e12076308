//go:build unix

package unprivileged

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// runAs runs a copy of the test binary as UID with -test.run=pattern, in a
// directory and with a TMPDIR and HOME that UID can use, and returns its
// output. The copy is needed because go test keeps the binary in a
// directory only root may enter.
func runAs(t *testing.T, pattern string) (string, error) {
	t.Helper()
	binary, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	for _, made := range []error{os.Chmod(dir, 0o755), os.Mkdir(home, 0o700), os.Chown(home, UID, GID)} {
		if made != nil {
			t.Fatal(made)
		}
	}
	copied := filepath.Join(dir, filepath.Base(binary))
	if err := copyFile(binary, copied); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(copied, "-test.run="+pattern, "-test.v", "-test.count=1")
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), childEnv+"=1", "HOME="+home, "TMPDIR="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: UID, Gid: GID}}
	output, err := cmd.CombinedOutput()
	return string(output), err
}

// started reports whether err is the child's failure rather than a failure
// to start it as UID (no CAP_SETUID, or UID not mapped in this user
// namespace).
func started(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
