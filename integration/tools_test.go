package integration

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
)

// repoRoot is the repository this package is in.
var repoRoot = func() string {
	root, err := filepath.Abs("..")
	if err != nil {
		panic(err)
	}
	return root
}()

// requireTool returns the path of command, or skips the test (fails it when
// tools are required) with how to install it.
func requireTool(t *testing.T, command, install string) string {
	t.Helper()
	return testenv.Tool(t, command, install)
}

var (
	buildOnce   sync.Once
	builtBinDir string
	buildErr    error
)

// modellintBinDir builds modellint once for the package's tests and returns
// the directory holding it, to put on PATH. It builds with the flags of
// `make release`, install.sh and the pre-commit hook (goEnv), so that the
// packages are compiled once for all of them and only linked again.
// skipShort skips, under go test -short, a test that builds modellint once
// more from scratch (a release, or pre-commit's own go install): each
// takes minutes on two cores, and together they outlast go test's
// default 10-minute timeout. make test and .ci/run run them.
func skipShort(t *testing.T, build string) {
	t.Helper()
	if testing.Short() {
		t.Skip(build + " builds modellint from scratch, minutes on two cores; run without -short")
	}
}

func modellintBinDir(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		builtBinDir, buildErr = os.MkdirTemp("", "modellint-bin-")
		if buildErr != nil {
			return
		}
		var out []byte
		command := exec.Command("go", "build", "-o", builtBinDir+string(filepath.Separator), "-ldflags", "-X main.version=v0.0.0-test", "./cmd/modellint", "./cmd/modellint-helm")
		command.Dir = repoRoot
		command.Env = append(os.Environ(), goEnv(t)...)
		out, buildErr = command.CombinedOutput()
		if buildErr != nil {
			buildErr = errors.New("go build: " + buildErr.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBinDir
}

// cleanups remove what tests built once for the whole package.
var cleanups []func()

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBinDir != "" {
		os.RemoveAll(builtBinDir)
	}
	for _, cleanup := range cleanups {
		cleanup()
	}
	os.Exit(code)
}

// goEnv is the environment for a command that builds Go code offline with
// this machine's caches: a test must not download modules or toolchains.
// Every build a test runs (the test binary, `make release`, install.sh's
// go install, pre-commit's go install ./...) uses the release flags,
// CGO_ENABLED=0 and -trimpath, so that a cold run compiles the dependency
// graph once for them all instead of once per flag set.
func goEnv(t *testing.T) []string {
	t.Helper()
	var env []string
	for _, name := range []string{"GOCACHE", "GOMODCACHE"} {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		env = append(env, name+"="+strings.TrimSpace(string(out)))
	}
	return append(env, "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly -trimpath", "CGO_ENABLED=0")
}

// result is what a command did.
type result struct {
	code           int
	stdout, stderr string
}

// runCommand runs name in dir with the environment plus extra, and returns
// its exit code and output; only a command that could not start fails.
func runCommand(t *testing.T, dir string, extra []string, name string, args ...string) result {
	t.Helper()
	command := exec.Command(name, args...)
	command.Dir = dir
	command.Env = append(os.Environ(), extra...)
	var stdout, stderr bytes.Buffer
	command.Stdout, command.Stderr = &stdout, &stderr
	err := command.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return result{exit.ExitCode(), stdout.String(), stderr.String()}
	case err != nil:
		t.Fatalf("%s: %v", name, err)
	}
	return result{0, stdout.String(), stderr.String()}
}

// withPath prepends dirs to PATH.
func withPath(dirs ...string) string {
	return "PATH=" + strings.Join(append(dirs, os.Getenv("PATH")), string(os.PathListSeparator))
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}

func skipUnlessLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the release and install scripts are tested on Linux (GNU tar)")
	}
}

// examples are the deployments `make demo` lints.
var (
	brokenExample = filepath.Join(repoRoot, "testdata", "examples", "broken", "tf-serving.yaml")
	fixedExample  = filepath.Join(repoRoot, "testdata", "examples", "fixed", "tf-serving.yaml")
)
