package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/rules"
)

const (
	diffRefused = "modellint: no diff: --diff shows what --fix would write, and it would write nothing\n"
	fixRefused  = "modellint: nothing was written: --fix writes every fix of a run or none\n"
)

// sameTree reports each path a run changed, made or removed.
func sameTree(t *testing.T, what string, before, after map[string]fileState) {
	t.Helper()
	for path, state := range before {
		if now, ok := after[path]; ok && now != state {
			t.Errorf("%s changed %s", what, path)
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			t.Errorf("%s made %s", what, path)
		}
	}
	for path := range before {
		if _, ok := after[path]; !ok {
			t.Errorf("%s removed %s", what, path)
		}
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// TestFixHostileLinks lints trees a pull request could hold, each with a
// fix that would write or move a file through a symbolic link or outside
// the PATH: --diff and --fix name each such file on its own line, show
// and write nothing, exit 2, and leave every file inside and outside the
// PATH as it was.
func TestFixHostileLinks(t *testing.T) {
	// The layouts are built in a temporary working dir, from these.
	testdata, broken := mustAbs(t, "testdata"), mustAbs(t, "../../testdata/examples/broken")
	cases := []struct {
		name string
		// layout builds the tree in the working dir and returns the
		// arguments of the run.
		layout func(t *testing.T) []string
		want   string // the refusals, one a line
	}{
		{"a linked model dir", func(t *testing.T) []string {
			copyTree(t, filepath.Join(broken, "models", "resnet"), "outside/resnet")
			writeFile(t, "repo", "tf-serving.yaml", readFile(t, filepath.Join(broken, "tf-serving.yaml")))
			link(t, "../../outside/resnet", "repo/models/resnet")
			return []string{"--unsafe-fixes", "--model", "repo/models/resnet:/models/resnet", "repo"}
		}, "modellint: repo/models/resnet/saved_model.pb: not moved to repo/models/resnet/1/saved_model.pb: repo/models/resnet is a symbolic link; --fix writes through none\n" +
			"modellint: repo/models/resnet/assets: not moved to repo/models/resnet/1/assets: repo/models/resnet is a symbolic link; --fix writes through none\n" +
			"modellint: repo/models/resnet/variables: not moved to repo/models/resnet/1/variables: repo/models/resnet is a symbolic link; --fix writes through none\n"},
		{"a linked version dir", func(t *testing.T) []string {
			copyTree(t, broken, "repo")
			os.MkdirAll("outside/versions", 0o755)
			link(t, "../../../outside/versions", "repo/models/resnet/1")
			return []string{"--unsafe-fixes", "repo"}
		}, "modellint: repo/models/resnet/saved_model.pb: not moved to repo/models/resnet/1/saved_model.pb: repo/models/resnet/1 is a symbolic link; --fix writes through none\n" +
			"modellint: repo/models/resnet/assets: not moved to repo/models/resnet/1/assets: repo/models/resnet/1 is a symbolic link; --fix writes through none\n" +
			"modellint: repo/models/resnet/variables: not moved to repo/models/resnet/1/variables: repo/models/resnet/1 is a symbolic link; --fix writes through none\n"},
		{"a chart's linked values.yaml", func(t *testing.T) []string {
			copyTree(t, filepath.Join(testdata, "fix-helm", "chart"), "chart")
			os.Mkdir("chart/conf", 0o755)
			os.Rename("chart/values.yaml", "chart/conf/values.yaml")
			link(t, "conf/values.yaml", "chart/values.yaml")
			return []string{"chart"}
		}, "modellint: chart/values.yaml: not fixed: it is a symbolic link; fix the file it points to\n"},
		{"a chart's linked template", func(t *testing.T) []string {
			copyTree(t, filepath.Join(testdata, "fix-helm", "chart"), "chart")
			// A template with the value written in it: the fix edits its line.
			writeFile(t, "chart/templates", "_deployment.tpl", strings.Replace(readFile(t, filepath.Join(testdata, "fix", "rollout-block", "before.yaml")),
				"maxUnavailable: 0", "maxUnavailable: 1", 1))
			os.Remove("chart/templates/deployment.yaml")
			link(t, "_deployment.tpl", "chart/templates/deployment.yaml")
			return []string{"chart"}
		}, "modellint: chart/templates/deployment.yaml: not fixed: it is a symbolic link; fix the file it points to\n"},
		{"a Kustomize base above the PATH", func(t *testing.T) []string {
			// A repository whose overlay, two levels down, builds on its base.
			os.Mkdir(".git", 0o755)
			copyTree(t, filepath.Join(testdata, "fix-kustomize", "base"), "base")
			writeFile(t, "base", "deploy.yaml", strings.Replace(readFile(t, "base/deploy.yaml"), "maxUnavailable: 0", "maxUnavailable: 1", 1))
			writeFile(t, "apps/prod/overlay", "kustomization.yaml", "resources:\n  - ../../../base\n")
			return []string{"apps/prod/overlay"}
		}, "modellint: base/deploy.yaml: not fixed: outside the PATHs linted; --fix writes only inside them\n"},
	}
	for _, test := range cases {
		t.Run(test.name, func(t *testing.T) {
			base := t.TempDir()
			t.Chdir(base)
			args := test.layout(t)
			before := snapshotTree(t, base)
			for _, mode := range []struct{ flag, summary string }{{"--diff", diffRefused}, {"--fix", fixRefused}} {
				code, stdout, stderr := lintArgs(t, "", append([]string{"--offline", "--no-color", mode.flag}, args...)...)
				if code != exitError || stdout != "" || stderr != test.want+mode.summary {
					t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant exit 2, no output, stderr:\n%s", mode.flag, code, stdout, stderr, test.want+mode.summary)
				}
				sameTree(t, mode.flag, before, snapshotTree(t, base))
			}
		})
	}
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// lintThenFix lints dir, lets change alter the tree, then runs --fix on
// the findings of the lint, as a run would between its two steps.
func lintThenFix(t *testing.T, dir string, change func()) (code int, stdout, stderr string) {
	t.Helper()
	result, err := engine.Run(engine.Options{Paths: []string{dir}, Rules: rules.All(), Config: &lint.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	change()
	var out, errOut bytes.Buffer
	outcome, err := runFixes(fixFlags{apply: true, paths: func() []string { return []string{dir} }}, result, nil, &out, &errOut)
	code = outcome.code
	if err != nil {
		printError(&errOut, err)
	}
	return code, out.String(), errOut.String()
}

// TestFixRefusesSwappedFiles: a manifest swapped for a link, a dir
// swapped for a link, and a manifest edited, each between the lint and
// the fix, are refused by name; nothing is written inside or outside the
// PATH. The link holds the very bytes that were linted, so only the link
// check stands between the fix and the file outside.
func TestFixRefusesSwappedFiles(t *testing.T) {
	source := readFile(t, "testdata/fix/rollout-insert/before.yaml")
	for _, test := range []struct {
		name   string
		file   string // under repo/
		change func()
		want   string
	}{
		{"a manifest swapped for a link", "deploy.yaml", func() {
			os.Mkdir("outside", 0o755)
			os.Rename("repo/deploy.yaml", "outside/deploy.yaml")
			os.Symlink("../outside/deploy.yaml", "repo/deploy.yaml")
		}, "modellint: repo/deploy.yaml: not fixed: it is a symbolic link; fix the file it points to\n"},
		{"a dir swapped for a link", "shared/deploy.yaml", func() {
			os.Mkdir("outside", 0o755)
			os.Rename("repo/shared", "outside/shared")
			os.Symlink("../outside/shared", "repo/shared")
		}, "modellint: repo/shared/deploy.yaml: not fixed: repo/shared is a symbolic link; --fix writes through none\n"},
		{"a manifest edited", "deploy.yaml", func() {
			// Every offset the lint found moves by a line: its insertion
			// would land in another field.
			os.WriteFile("repo/deploy.yaml", []byte("# reviewed\n"+source), 0o644)
		}, "modellint: repo/deploy.yaml: changed since it was linted; run modellint again\n"},
	} {
		t.Run(test.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			writeFile(t, "repo", test.file, source)
			var before map[string]fileState
			code, stdout, stderr := lintThenFix(t, "repo", func() { test.change(); before = snapshotTree(t, ".") })
			if code != exitError || stdout != "" || stderr != test.want+fixRefused {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2, stderr:\n%s", code, stdout, stderr, test.want+fixRefused)
			}
			sameTree(t, "--fix", before, snapshotTree(t, "."))
		})
	}
}

// TestFixKeepsOwner: a file owned by another user keeps its owner, group
// and mode after --fix, which root running modellint would otherwise take.
func TestFixKeepsOwner(t *testing.T) {
	testenv.Root(t, "giving a file to another uid")
	dir := t.TempDir()
	file := writeFile(t, dir, "deploy.yaml", readFile(t, "testdata/fix/rollout-insert/before.yaml"))
	if err := os.Chown(file, 1000, 1000); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o664); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := lintArgs(t, "", "--offline", "--no-color", "--fix", dir); code == exitError {
		t.Fatalf("--fix: %s", stderr)
	}
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	owner := info.Sys().(*syscall.Stat_t)
	if readFile(t, file) != readFile(t, "testdata/fix/rollout-insert/after.yaml") || owner.Uid != 1000 || owner.Gid != 1000 || info.Mode().Perm() != 0o664 {
		t.Errorf("after --fix: owner %d:%d, mode %v, fixed %v; want 1000:1000, 0664, fixed", owner.Uid, owner.Gid, info.Mode().Perm(),
			readFile(t, file) == readFile(t, "testdata/fix/rollout-insert/after.yaml"))
	}
}

// TestFixDiffNames: --diff names a file by its path in the working dir,
// or, for a PATH outside it, by its path in the PATH: never by an
// absolute path.
func TestFixDiffNames(t *testing.T) {
	source := readFile(t, "testdata/fix/rollout-insert/before.yaml")
	outside := t.TempDir() // not under the working dir
	writeFile(t, filepath.Join(outside, "repo", "apps"), "deploy.yaml", source)
	code, diff, stderr := lintArgs(t, "", "--offline", "--no-color", "--diff", filepath.Join(outside, "repo"))
	if code != exitFindings || !strings.HasPrefix(diff, "--- a/apps/deploy.yaml\n+++ b/apps/deploy.yaml\n@@ ") {
		t.Errorf("a PATH outside the working dir: exit %d, stderr %q, diff:\n%s", code, stderr, diff)
	}
	t.Chdir(outside)
	code, diff, stderr = lintArgs(t, "", "--offline", "--no-color", "--diff", "repo/apps")
	if code != exitFindings || !strings.HasPrefix(diff, "--- a/repo/apps/deploy.yaml\n+++ b/repo/apps/deploy.yaml\n@@ ") {
		t.Errorf("a PATH in the working dir: exit %d, stderr %q, diff:\n%s", code, stderr, diff)
	}
}
