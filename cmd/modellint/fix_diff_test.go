package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var hunkFunction = regexp.MustCompile(`(?m)^(@@ [^@]* @@).*$`)

// TestFixDiffAsGit: for each fixture under testdata/fix (and its CRLF
// copy), --diff prints what git diff prints between before.yaml and
// after.yaml (less the function names git adds to hunk headers), and git
// apply turns before.yaml into after.yaml with it.
func TestFixDiffAsGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed (apt-get install git): --diff is not compared with git diff")
	}
	model := fixModel(t)
	cases, _ := filepath.Glob(mustAbs(t, "testdata/fix") + "/*/before.yaml")
	for _, before := range cases {
		name := filepath.Base(filepath.Dir(before))
		for _, lineEnd := range []string{"\n", "\r\n"} {
			read := func(path string) string { return strings.ReplaceAll(readFile(t, path), "\n", lineEnd) }
			source, fixed := read(before), read(filepath.Join(filepath.Dir(before), "after.yaml"))
			if source == fixed {
				continue
			}
			t.Run(name+map[string]string{"\n": "", "\r\n": "/crlf"}[lineEnd], func(t *testing.T) {
				t.Chdir(t.TempDir())
				writeFile(t, "a", "deploy.yaml", source)
				writeFile(t, "b", "deploy.yaml", fixed)
				args := []string{"--offline", "--no-color", "--diff"}
				if strings.HasPrefix(name, "model-") {
					args = append(args, "--model", model+":/models/resnet")
				}
				if strings.HasPrefix(name, "unsafe-") {
					args = append(args, "--unsafe-fixes")
				}
				t.Chdir("a")
				code, diff, stderr := lintArgs(t, "", append(args, ".")...)
				if code != exitFindings {
					t.Fatalf("--diff: exit %d, %s", code, stderr)
				}
				t.Chdir("..")
				want := gitOutput(t, git, "", "diff", "--no-index", "--no-color", "--no-prefix", "-U3", "a/deploy.yaml", "b/deploy.yaml")
				want = hunkFunction.ReplaceAllString(want[strings.Index(want, "--- "):], "$1")
				if diff != want {
					t.Errorf("--diff:\n%s\ngit diff:\n%s", diff, want)
				}
				t.Chdir("a")
				gitOutput(t, git, diff, "apply", "--whitespace=nowarn", "-")
				if got := readFile(t, "deploy.yaml"); got != fixed {
					t.Errorf("git apply made:\n%s\nwant:\n%s", got, fixed)
				}
			})
		}
	}
}

// gitOutput runs git in the working dir without the user's config and
// returns what it printed; a failure other than diff's exit 1 fails t.
func gitOutput(t *testing.T, git, stdin string, args ...string) string {
	t.Helper()
	command := exec.Command(git, args...)
	command.Stdin = strings.NewReader(stdin)
	command.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	var out bytes.Buffer
	command.Stdout, command.Stderr = &out, &out
	if err := command.Run(); err != nil && !(args[0] == "diff" && command.ProcessState.ExitCode() == 1) {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}
