package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/internal/testenv"
)

// TestHelpListsEveryFlag: every flag a user may give is in --help, under
// one of the topics it lists (--fix, --diff and --unsafe-fixes were not).
func TestHelpListsEveryFlag(t *testing.T) {
	t.Setenv("COLUMNS", "200")
	_, help, _ := lintArgs(t, "", "--help")
	root := newRootCommand(nil, nil, nil, new(int))
	root.Flags().VisitAll(func(flag *pflag.Flag) {
		if !flag.Hidden && !strings.Contains(help, "--"+flag.Name+" ") && !strings.Contains(help, "--"+flag.Name+"\n") {
			t.Errorf("--help does not list --%s", flag.Name)
		}
	})
	if !strings.Contains(help, "\nFixes flags:\n") {
		t.Errorf("--help has no Fixes topic:\n%s", help)
	}
}

// TestFixDiffMovesApply: --diff --unsafe-fixes of a model dir whose files
// belong in a version dir shows the renames as git does (a diff --git
// header, similarity index 100%, rename from, rename to), file by file,
// and git apply --check, git apply and patch -p1 accept the whole diff.
func TestFixDiffMovesApply(t *testing.T) {
	git := testenv.Tool(t, "git", "apt-get install git")
	example, err := filepath.Abs(examples + "/broken")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.CopyFS("broken", os.DirFS(example)); err != nil {
		t.Fatal(err)
	}
	gitOutput(t, git, "", "init", "-q")
	gitOutput(t, git, "", "add", ".")
	gitOutput(t, git, "", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "broken")
	code, diff, stderr := lintArgs(t, "", "--offline", "--no-color", "--diff", "--unsafe-fixes", "broken")
	if code != exitFindings {
		t.Fatalf("--diff: exit %d, %s", code, stderr)
	}
	want := "diff --git a/broken/models/resnet/saved_model.pb b/broken/models/resnet/1/saved_model.pb\n" +
		"similarity index 100%\n" +
		"rename from broken/models/resnet/saved_model.pb\n" +
		"rename to broken/models/resnet/1/saved_model.pb\n"
	if !strings.Contains(diff, want) || !strings.Contains(diff, "rename to broken/models/resnet/1/variables/variables.index\n") {
		t.Errorf("the renames are not shown as git shows them:\n%s", diff)
	}
	if strings.Contains(diff, "rename to broken/models/resnet/1/variables\n") {
		t.Errorf("a dir is renamed whole, which git apply does not do:\n%s", diff)
	}
	gitOutput(t, git, diff, "apply", "--check", "-")
	gitOutput(t, git, diff, "apply", "-")
	for _, moved := range []string{"saved_model.pb", "variables/variables.index", "assets/foo.txt"} {
		if _, err := os.Stat(filepath.Join("broken/models/resnet/1", moved)); err != nil {
			t.Errorf("git apply did not move %s: %v", moved, err)
		}
	}
	if patch, err := exec.LookPath("patch"); err == nil {
		gitOutput(t, git, "", "checkout", "-q", ".")
		gitOutput(t, git, "", "clean", "-qfd")
		command := exec.Command(patch, "-p1", "--dry-run")
		command.Stdin = strings.NewReader(diff)
		if out, err := command.CombinedOutput(); err != nil {
			t.Errorf("patch -p1 refused the diff: %v\n%s", err, out)
		}
	}
}

// TestFixCounts: --fix counts the findings it fixed, and the files it
// edited and the paths it moved apart: one finding fixed by three moves
// is one finding, in no file edited.
func TestFixCounts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "broken")
	if err := os.CopyFS(dir, os.DirFS(examples+"/broken")); err != nil {
		t.Fatal(err)
	}
	_, _, stderr := lintArgs(t, "", "--offline", "--no-color", "--fix", "--unsafe-fixes", dir)
	if !strings.Contains(stderr, "modellint: fixed 4 findings in 1 file and moved 3 paths\n") {
		t.Errorf("--fix --unsafe-fixes says:\n%s", stderr)
	}
	cases := []struct {
		findings, files, moves int
		want                   string
	}{
		{1, 0, 3, "fixed 1 finding: moved 3 paths"},
		{2, 1, 0, "fixed 2 findings in 1 file"},
		{3, 2, 1, "fixed 3 findings in 2 files and moved 1 path"},
		{0, 0, 0, "fixed 0 findings in 0 files"},
	}
	for _, c := range cases {
		if got := fixSummary(c.findings, c.files, c.moves); got != c.want {
			t.Errorf("fixSummary(%d, %d, %d) = %q, want %q", c.findings, c.files, c.moves, got, c.want)
		}
	}
}

// TestFixStdin: --diff - prints the diff of the document on stdin (exit
// 1), which patch applies to it; --fix - writes the fixed document to
// stdout, and the report of what remains to stderr.
func TestFixStdin(t *testing.T) {
	before := readFile(t, "testdata/fix/rollout-block/before.yaml")
	after := readFile(t, "testdata/fix/rollout-block/after.yaml")
	code, diff, stderr := lintArgs(t, before, "--offline", "--no-color", "--diff", "-")
	if code != exitFindings || !strings.HasPrefix(diff, "--- a/<stdin>\n+++ b/<stdin>\n@@ ") {
		t.Errorf("--diff -: exit %d, diff:\n%s\nstderr %s", code, diff, stderr)
	}
	if patch, err := exec.LookPath("patch"); err == nil {
		file := writeFile(t, t.TempDir(), "deploy.yaml", before)
		command := exec.Command(patch, file)
		command.Stdin = strings.NewReader(diff)
		if out, err := command.CombinedOutput(); err != nil {
			t.Errorf("patch refused the diff: %v\n%s", err, out)
		} else if got := readFile(t, file); got != after {
			t.Errorf("patch made:\n%s\nwant:\n%s", got, after)
		}
	}
	code, fixed, stderr := lintArgs(t, before, "--offline", "--no-color", "--fix", "-")
	if code != exitClean || fixed != after {
		t.Errorf("--fix -: exit %d, stdout:\n%s\nwant:\n%s\nstderr %s", code, fixed, after, stderr)
	}
	if !strings.Contains(stderr, "fixed 1 finding in 1 file") || !strings.Contains(stderr, "no findings in 1 file") {
		t.Errorf("--fix -: stderr lacks the count or the report:\n%s", stderr)
	}
	// Nothing to fix: the document as it came.
	if code, same, stderr := lintArgs(t, after, "--offline", "--no-color", "--fix", "-"); code != exitClean || same != after {
		t.Errorf("--fix - of a fixed document: exit %d, stdout:\n%s\nstderr %s", code, same, stderr)
	}
}

// TestUnsafeFixesAlone: --unsafe-fixes without --fix or --diff does
// nothing, so it is refused, saying what it needs.
func TestUnsafeFixesAlone(t *testing.T) {
	code, stdout, stderr := lintArgs(t, "", "--offline", "--unsafe-fixes", examples+"/broken")
	if code != exitError || stdout != "" || stderr != "modellint: --unsafe-fixes works with --fix or --diff: add one of them\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestDiffSuggestions: --diff prints the fixes it cannot make as edits,
// each as YAML to paste (MDL202's TF Serving probe must change kind), on
// stderr, so that stdout stays a patch; and it says how many more fixes
// --unsafe-fixes would show.
func TestDiffSuggestions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "broken")
	if err := os.CopyFS(dir, os.DirFS(examples+"/broken")); err != nil {
		t.Fatal(err)
	}
	_, diff, stderr := lintArgs(t, "", "--offline", "--no-color", "--diff", dir)
	if strings.Contains(diff, "livenessProbe") {
		t.Errorf("the suggestion is in the patch:\n%s", diff)
	}
	_, after, found := strings.Cut(stderr, "MDL202: no diff for this fix; ")
	if !found {
		t.Fatalf("no MDL202 suggestion on stderr:\n%s", stderr)
	}
	_, suggestion, _ := strings.Cut(after, "by hand:\n")
	suggestion, _, _ = strings.Cut(suggestion, "modellint: ")
	var pasted struct {
		LivenessProbe *corev1.Probe `json:"livenessProbe"`
	}
	if err := yaml.UnmarshalStrict([]byte(suggestion), &pasted); err != nil || pasted.LivenessProbe == nil ||
		pasted.LivenessProbe.TCPSocket == nil || pasted.LivenessProbe.TCPSocket.Port.IntValue() != 8500 {
		t.Errorf("the suggestion is not a livenessProbe on tcpSocket 8500 (%v):\n%s", err, suggestion)
	}
	if !strings.Contains(stderr, "modellint: 1 more fix with --unsafe-fixes") {
		t.Errorf("--diff does not say what --unsafe-fixes adds:\n%s", stderr)
	}
}
