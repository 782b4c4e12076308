package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
)

// prRepository is a git repository of two deployments, old/ and deploy/,
// where the head commit changes deploy/ only; it returns the dir and the
// base commit.
func prRepository(t *testing.T) (dir, base string) {
	t.Helper()
	dir = t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		got := runCommand(t, dir, []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}, "git", args...)
		if got.code != 0 {
			t.Fatalf("git %s: %s", strings.Join(args, " "), got.stderr)
		}
		return strings.TrimSpace(got.stdout)
	}
	git("init", "-q")
	copyFile(t, brokenExample, filepath.Join(dir, "old", "tf-serving.yaml"))
	copyFile(t, brokenExample, filepath.Join(dir, "deploy", "tf-serving.yaml"))
	git("add", ".")
	git("commit", "-q", "-m", "base")
	base = git("rev-parse", "HEAD")
	file, err := os.OpenFile(filepath.Join(dir, "deploy", "tf-serving.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := file.WriteString("# changed by the pull request\n"); err != nil {
		t.Fatal(err)
	}
	file.Close()
	git("commit", "-q", "-am", "head")
	return dir, base
}

// runAnnotations runs scripts/action-lint.sh in dir for an event and
// returns its output and the files it annotated.
func runAnnotations(t *testing.T, dir, event, base string) (stdout string, annotated map[string]int) {
	t.Helper()
	eventFile := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(eventFile, []byte(`{"pull_request": {"number": 7, "base": {"sha": "`+base+`"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{
		withPath(modellintBinDir(t)),
		"GITHUB_OUTPUT=" + filepath.Join(t.TempDir(), "output"), "GITHUB_STEP_SUMMARY=", "RUNNER_TEMP=" + t.TempDir(),
		"GITHUB_EVENT_NAME=" + event, "GITHUB_EVENT_PATH=" + eventFile,
		"MODELLINT_PATH=.", "MODELLINT_SARIF_FILE=", "MODELLINT_JUNIT_FILE=", "MODELLINT_ANNOTATIONS=true", "MODELLINT_SUMMARY=false",
		"MODELLINT_ARGS=--no-color --offline", "MODELLINT_CONFIG=", "MODELLINT_FAIL_ON=",
	}
	got := runCommand(t, dir, env, "bash", filepath.Join(repoRoot, "scripts", "action-lint.sh"))
	if got.code != 1 {
		t.Fatalf("exit %d, want 1:\n%s%s", got.code, got.stdout, got.stderr)
	}
	annotated = map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^::(?:error|warning|notice) file=([^,]+),`).FindAllStringSubmatch(got.stdout, -1) {
		annotated[m[1]]++
	}
	return got.stdout, annotated
}

// TestActionAnnotatesChangedFiles: the annotations input annotates, on a
// pull request, the findings in the files it changes, and says so; without
// the base commit, or on another event, every file's, and says why.
func TestActionAnnotatesChangedFiles(t *testing.T) {
	// The script reads the event with jq, which GitHub's runners have.
	testenv.Tool(t, "jq", "apt-get install jq")
	dir, base := prRepository(t)

	stdout, annotated := runAnnotations(t, dir, "pull_request", base)
	if annotated["deploy/tf-serving.yaml"] == 0 || len(annotated) != 1 {
		t.Errorf("annotated %v, want deploy/tf-serving.yaml only:\n%s", annotated, stdout)
	}
	for _, want := range []string{"modellint: annotating findings in the files the pull request changes\n",
		"in files the pull request does not change not annotated"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output does not say %q:\n%s", want, stdout)
		}
	}

	missing := strings.Repeat("0", 40)
	for _, test := range []struct{ event, base, why string }{
		{"pull_request", missing, "every file: the base commit " + missing + " is not in the checkout"},
		{"pull_request", "HEAD; rm -rf /", "every file: the event's base commit is not a commit ID"},
		{"push", base, "every file: not a pull request"},
	} {
		stdout, annotated := runAnnotations(t, dir, test.event, test.base)
		if annotated["deploy/tf-serving.yaml"] == 0 || annotated["old/tf-serving.yaml"] == 0 {
			t.Errorf("%s, base %q: annotated %v, want both files", test.event, test.base, annotated)
		}
		if !strings.Contains(stdout, "modellint: annotating findings in "+test.why) {
			t.Errorf("%s, base %q: output does not say %q:\n%s", test.event, test.base, test.why, stdout)
		}
	}
}
