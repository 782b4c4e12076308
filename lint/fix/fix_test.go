package fix

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

func finding(file string, safety lint.FixSafety, edits ...manifest.Edit) lint.Finding {
	return lint.Finding{RuleID: "MDL207", Location: lint.Location{File: file}, Fix: &lint.Fix{Safety: safety, Edits: edits}}
}

// editOf is the edit a rule makes in source, the text it linted at path.
func editOf(path, source string, start, end int, text string) manifest.Edit {
	return manifest.Edit{File: path, Start: start, End: end, Text: text, Digest: sha256.Sum256([]byte(source))}
}

func writeTree(t *testing.T, files map[string]string) {
	t.Helper()
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func openRoots(t *testing.T, paths ...string) *Roots {
	t.Helper()
	roots, err := OpenRoots(paths)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(roots.Close)
	return roots
}

// TestPlanAndWrite: fixes are applied in one pass, overlapping ones are
// left out, unsafe ones need unsafe, the file keeps its mode, and a file
// the fixes would break is refused.
func TestPlanAndWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "deploy.yaml")
	const source = "a: 1 # keep\nb: 2\n"
	writeTree(t, map[string]string{path: source})
	findings := []lint.Finding{
		finding(path, lint.FixSafe, editOf(path, source, 3, 4, "0")),
		finding(path, lint.FixSafe, editOf(path, source, 3, 4, "9")), // the same bytes
		finding(path, lint.FixUnsafe, editOf(path, source, 15, 16, "3")),
		finding(path, lint.FixSafe, editOf(path, source, 17, 17, "c: 4\n")),
	}
	changes, err := Plan(findings, false, openRoots(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	files := changes.Files
	if len(files) != 1 || string(files[0].After) != "a: 0 # keep\nb: 2\nc: 4\n" || len(files[0].Fixed) != 2 || len(files[0].Skipped) != 1 {
		t.Fatalf("plan: %+v", files)
	}
	if err := changes.Write(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	if string(data) != "a: 0 # keep\nb: 2\nc: 4\n" || info.Mode().Perm() != 0o640 {
		t.Errorf("written %q with mode %v", data, info.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the temporary file was left: %v", entries)
	}
	broken := []lint.Finding{finding(path, lint.FixSafe, editOf(path, string(data), 0, 0, "a: dup\n"))}
	if _, err := Plan(broken, false, openRoots(t, dir)); err == nil {
		t.Error("a fix that writes a key twice was planned")
	}
}

// TestPlanRefuses: a file that is a symbolic link, one under a linked
// dir, one outside the PATHs and one changed since it was linted are each
// named on a line, and nothing is planned for any file of the run; the
// files outside the PATHs hold what they held.
func TestPlanRefuses(t *testing.T) {
	const source = "a: 1\n"
	for _, test := range []struct {
		name string
		// layout builds the tree under base and returns the PATH linted and
		// the file the fix edits, as a run would name it.
		layout func(t *testing.T, base string) (root, file string)
		want   string // the line, %s the file
	}{
		{"linked file", func(t *testing.T, base string) (string, string) {
			symlink(t, filepath.Join(base, "outside", "secret.yaml"), filepath.Join(base, "repo", "deploy.yaml"))
			return filepath.Join(base, "repo"), filepath.Join(base, "repo", "deploy.yaml")
		}, "%s: not fixed: it is a symbolic link; fix the file it points to"},
		{"linked file inside the root", func(t *testing.T, base string) (string, string) {
			writeTree(t, map[string]string{filepath.Join(base, "repo", "real.yaml"): source})
			symlink(t, "real.yaml", filepath.Join(base, "repo", "deploy.yaml"))
			return filepath.Join(base, "repo"), filepath.Join(base, "repo", "deploy.yaml")
		}, "%s: not fixed: it is a symbolic link; fix the file it points to"},
		{"linked dir", func(t *testing.T, base string) (string, string) {
			symlink(t, filepath.Join(base, "outside"), filepath.Join(base, "repo", "shared"))
			return filepath.Join(base, "repo"), filepath.Join(base, "repo", "shared", "secret.yaml")
		}, "%s: not fixed: " + "REPO/shared is a symbolic link; --fix writes through none"},
		{"outside the PATH", func(t *testing.T, base string) (string, string) {
			os.MkdirAll(filepath.Join(base, "repo", "overlay"), 0o755)
			return filepath.Join(base, "repo", "overlay"), filepath.Join(base, "outside", "secret.yaml")
		}, "%s: not fixed: outside the PATHs linted; --fix writes only inside them"},
		{"a base above the PATH", func(t *testing.T, base string) (string, string) {
			os.MkdirAll(filepath.Join(base, "repo", "overlay"), 0o755)
			return filepath.Join(base, "repo", "overlay"), filepath.Join(base, "repo", "overlay", "..", "..", "outside", "secret.yaml")
		}, "%s: not fixed: outside the PATHs linted; --fix writes only inside them"},
		{"changed since it was linted", func(t *testing.T, base string) (string, string) {
			file := filepath.Join(base, "repo", "deploy.yaml")
			writeTree(t, map[string]string{file: "b: 22\na: 1\n"})
			return filepath.Join(base, "repo"), file
		}, "%s: changed since it was linted; run modellint again"},
	} {
		t.Run(test.name, func(t *testing.T) {
			base := t.TempDir()
			secret := filepath.Join(base, "outside", "secret.yaml")
			writeTree(t, map[string]string{secret: source})
			root, file := test.layout(t, base)
			// A fix of a plain file in the same run is not written either.
			plain := filepath.Join(root, "plain.yaml")
			writeTree(t, map[string]string{plain: source})
			findings := []lint.Finding{
				finding(file, lint.FixSafe, editOf(file, source, 3, 4, "2")),
				finding(plain, lint.FixSafe, editOf(plain, source, 3, 4, "2")),
			}
			changes, err := Plan(findings, false, openRoots(t, root))
			var refused *RefusedError
			if !errors.As(err, &refused) || changes != nil {
				t.Fatalf("planned %+v, %v", changes, err)
			}
			want := strings.ReplaceAll(strings.ReplaceAll(test.want, "%s", file), "REPO", filepath.Join(base, "repo"))
			if !slices.Equal(refused.Lines, []string{want}) {
				t.Errorf("refused:\n%q\nwant\n%q", refused.Lines, want)
			}
			for _, path := range []string{secret, plain} {
				if data, _ := os.ReadFile(path); string(data) != source {
					t.Errorf("%s was written: %q", path, data)
				}
			}
		})
	}
}

// TestPlanThroughLinkedRoot: a PATH that is itself a link is resolved
// once, and the files under it are fixed where it points.
func TestPlanThroughLinkedRoot(t *testing.T) {
	base := t.TempDir()
	const source = "a: 1\n"
	real := filepath.Join(base, "real", "deploy.yaml")
	writeTree(t, map[string]string{real: source})
	symlink(t, filepath.Join(base, "real"), filepath.Join(base, "link"))
	file := filepath.Join(base, "link", "deploy.yaml")
	changes, err := Plan([]lint.Finding{finding(file, lint.FixSafe, editOf(file, source, 3, 4, "2"))}, false, openRoots(t, filepath.Join(base, "link")))
	if err != nil {
		t.Fatal(err)
	}
	if err := changes.Write(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(real); string(data) != "a: 2\n" {
		t.Errorf("written %q", data)
	}
}

// TestWriteRefusesChangedFile: a file changed between the plan and the
// write is not written, nor is any other file of the run.
func TestWriteRefusesChangedFile(t *testing.T) {
	dir := t.TempDir()
	const source = "a: 1\n"
	first, second := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	writeTree(t, map[string]string{first: source, second: source})
	changes, err := Plan([]lint.Finding{
		finding(first, lint.FixSafe, editOf(first, source, 3, 4, "2")),
		finding(second, lint.FixSafe, editOf(second, source, 3, 4, "2")),
	}, false, openRoots(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, map[string]string{second: "b: 1\n"})
	if err := changes.Write(); err == nil || err.Error() != second+": changed since it was linted; run modellint again" {
		t.Errorf("write: %v", err)
	}
	for path, want := range map[string]string{first: source, second: "b: 1\n"} {
		if data, _ := os.ReadFile(path); string(data) != want {
			t.Errorf("%s holds %q, want %q", path, data, want)
		}
	}
}

// TestWriteKeepsOwner: the fixed file keeps its owner and group, which
// a file written by root would otherwise take from root.
func TestWriteKeepsOwner(t *testing.T) {
	testenv.Root(t, "giving a file to another uid")
	dir := t.TempDir()
	const source = "a: 1\n"
	path := filepath.Join(dir, "deploy.yaml")
	writeTree(t, map[string]string{path: source})
	if err := os.Chown(path, 1000, 1000); err != nil {
		t.Fatal(err)
	}
	changes, err := Plan([]lint.Finding{finding(path, lint.FixSafe, editOf(path, source, 3, 4, "2"))}, false, openRoots(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := changes.Write(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	stat := info.Sys().(*syscall.Stat_t)
	if data, _ := os.ReadFile(path); string(data) != "a: 2\n" || stat.Uid != 1000 || stat.Gid != 1000 || info.Mode().Perm() != 0o640 {
		t.Errorf("written %q, owner %d:%d, mode %v; want owner 1000:1000, mode 0640", data, stat.Uid, stat.Gid, info.Mode().Perm())
	}
}

// TestMoves: a model dir's files move into its version dir inside the
// PATH; a model dir that is a link, a version dir that is a link and a
// model dir outside the PATH are refused, and no file moves.
func TestMoves(t *testing.T) {
	move := func(model string) lint.Finding {
		return lint.Finding{RuleID: "MDL101", Fix: &lint.Fix{Safety: lint.FixUnsafe, Moves: []lint.Move{
			{From: filepath.Join(model, "saved_model.pb"), To: filepath.Join(model, "1", "saved_model.pb")},
			{From: filepath.Join(model, "variables"), To: filepath.Join(model, "1", "variables")},
		}}}
	}
	for _, test := range []struct {
		name   string
		layout func(t *testing.T, base string) (model string)
		want   string // the refusal, "" when the files move; MODEL is the model dir
	}{
		{"a model dir", func(t *testing.T, base string) string {
			return filepath.Join(base, "repo", "models", "resnet")
		}, ""},
		{"a linked model dir", func(t *testing.T, base string) string {
			symlink(t, filepath.Join(base, "outside", "resnet"), filepath.Join(base, "repo", "models", "resnet"))
			return filepath.Join(base, "repo", "models", "resnet")
		}, "MODEL/saved_model.pb: not moved to MODEL/1/saved_model.pb: MODEL is a symbolic link; --fix writes through none"},
		{"a linked version dir", func(t *testing.T, base string) string {
			model := filepath.Join(base, "repo", "models", "resnet")
			writeTree(t, map[string]string{filepath.Join(model, "saved_model.pb"): "pb", filepath.Join(model, "variables", "variables.index"): "index"})
			os.MkdirAll(filepath.Join(base, "outside", "resnet"), 0o755)
			symlink(t, filepath.Join(base, "outside", "resnet"), filepath.Join(model, "1"))
			return model
		}, "MODEL/saved_model.pb: not moved to MODEL/1/saved_model.pb: MODEL/1 is a symbolic link; --fix writes through none"},
		{"a model dir outside the PATH", func(t *testing.T, base string) string {
			os.MkdirAll(filepath.Join(base, "repo"), 0o755)
			return filepath.Join(base, "outside", "resnet")
		}, "MODEL/saved_model.pb: not moved to MODEL/1/saved_model.pb: outside the PATHs linted; --fix writes only inside them"},
	} {
		t.Run(test.name, func(t *testing.T) {
			base := t.TempDir()
			outside := filepath.Join(base, "outside", "resnet")
			writeTree(t, map[string]string{filepath.Join(outside, "saved_model.pb"): "pb", filepath.Join(outside, "variables", "variables.index"): "index"})
			model := test.layout(t, base)
			if _, err := os.Lstat(model); err != nil {
				writeTree(t, map[string]string{filepath.Join(model, "saved_model.pb"): "pb", filepath.Join(model, "variables", "variables.index"): "index"})
			}
			changes, err := Plan([]lint.Finding{move(model)}, true, openRoots(t, filepath.Join(base, "repo")))
			if test.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if err := changes.Write(); err != nil {
					t.Fatal(err)
				}
				if data, err := os.ReadFile(filepath.Join(model, "1", "variables", "variables.index")); err != nil || string(data) != "index" {
					t.Errorf("not moved: %q %v", data, err)
				}
				return
			}
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("planned %+v, %v", changes, err)
			}
			want := strings.ReplaceAll(test.want, "MODEL", model)
			if len(refused.Lines) != 2 || refused.Lines[0] != want {
				t.Errorf("refused:\n%q\nwant first\n%q", refused.Lines, want)
			}
			for _, name := range []string{"saved_model.pb", "variables/variables.index"} {
				if _, err := os.Stat(filepath.Join(outside, name)); err != nil {
					t.Errorf("%s left the dir outside the PATH: %v", name, err)
				}
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 2 {
				t.Errorf("the dir outside the PATH holds %v", entries)
			}
		})
	}
}
