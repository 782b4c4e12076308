package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
)

var hunkFunction = regexp.MustCompile(`(?m)^(@@ [^@]* @@).*$`)

// TestFixDiffAsGit: for each fixture under testdata/fix (and its CRLF
// copy), --diff prints what git diff prints between before.yaml and
// after.yaml (less the function names git adds to hunk headers), and git
// apply turns before.yaml into after.yaml with it.
func TestFixDiffAsGit(t *testing.T) {
	git := testenv.Tool(t, "git", "apt-get install git")
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

// TestFixDiffHostileNames: a fixable manifest whose file name holds an
// escape sequence and a line break gets a diff whose headers are quoted as
// git quotes them, which git apply reads; one whose lines hold a bidi
// override gets no diff, and is named on stderr. No raw control
// character reaches either stream.
func TestFixDiffHostileNames(t *testing.T) {
	git := testenv.Tool(t, "git", "apt-get install git")
	cases, _ := filepath.Glob(mustAbs(t, "testdata/fix") + "/*/before.yaml")
	var source, fixed string
	for _, before := range cases {
		if strings.HasPrefix(filepath.Base(filepath.Dir(before)), "model-") || strings.HasPrefix(filepath.Base(filepath.Dir(before)), "unsafe-") {
			continue
		}
		if after := readFile(t, filepath.Join(filepath.Dir(before), "after.yaml")); after != readFile(t, before) {
			source, fixed = readFile(t, before), after
			break
		}
	}
	if source == "" {
		t.Fatal("no safe fixture with a fix under testdata/fix")
	}
	hostile := "deploy\x1b[31m\nforged.yaml"
	t.Chdir(t.TempDir())
	writeFile(t, ".", hostile, source)
	// YAML refuses C0 controls in a file, not a bidi override: one in a
	// comment on every line, so that the hunk holds one.
	writeFile(t, ".", "commented.yaml", strings.ReplaceAll(strings.ReplaceAll(source, "name: ", "name: c"), "\n", " # \u202egnp.exe\n"))
	code, diff, stderr := lintArgs(t, "", "--offline", "--no-color", "--diff", ".")
	if code != exitFindings {
		t.Fatalf("--diff: exit %d, %s", code, stderr)
	}
	for _, stream := range []string{diff, stderr} {
		if strings.ContainsAny(strings.ReplaceAll(strings.ReplaceAll(stream, "\n", ""), "\t", ""), "\x1b\x07\u202e") {
			t.Errorf("a raw control character in the output:\n%q", stream)
		}
	}
	if !strings.Contains(diff, `--- "a/deploy\033[31m\nforged.yaml"`) {
		t.Errorf("the diff's header is not quoted as git quotes it:\n%s", diff)
	}
	if strings.Contains(diff, "commented.yaml") || !strings.Contains(stderr, `commented.yaml: the diff holds control characters`) {
		t.Errorf("the diff of a file with control characters is printed, or not named:\nstdout %s\nstderr %s", diff, stderr)
	}
	gitOutput(t, git, diff, "apply", "--whitespace=nowarn", "-")
	if got := readFile(t, hostile); got != fixed {
		t.Errorf("git apply made:\n%s\nwant:\n%s", got, fixed)
	}
}
