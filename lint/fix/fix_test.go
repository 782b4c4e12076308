package fix

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

func finding(file string, safety lint.FixSafety, edits ...manifest.Edit) lint.Finding {
	return lint.Finding{RuleID: "MDL207", Location: lint.Location{File: file}, Fix: &lint.Fix{Safety: safety, Edits: edits}}
}

// TestPlanAndWrite: fixes are applied last to first, overlapping ones
// are left out, unsafe ones need unsafe, a symlinked file is written
// where it lives, and a file the fixes would break is refused.
func TestPlanAndWrite(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "shared", "deploy.yaml")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("a: 1 # keep\nb: 2\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "deploy.yaml")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	findings := []lint.Finding{
		finding(link, lint.FixSafe, manifest.Edit{File: link, Start: 3, End: 4, Text: "0"}),
		finding(link, lint.FixSafe, manifest.Edit{File: link, Start: 3, End: 4, Text: "9"}), // the same bytes
		finding(link, lint.FixUnsafe, manifest.Edit{File: link, Start: 15, End: 16, Text: "3"}),
		finding(link, lint.FixSafe, manifest.Edit{File: link, Start: 17, End: 17, Text: "c: 4\n"}),
	}
	files, err := Plan(findings, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || string(files[0].After) != "a: 0 # keep\nb: 2\nc: 4\n" || len(files[0].Fixed) != 2 || len(files[0].Skipped) != 1 {
		t.Fatalf("plan: %+v", files)
	}
	if err := files[0].Write(); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", info.Mode(), err)
	}
	data, _ := os.ReadFile(real)
	info, _ := os.Stat(real)
	if string(data) != "a: 0 # keep\nb: 2\nc: 4\n" || info.Mode().Perm() != 0o640 {
		t.Errorf("written %q with mode %v", data, info.Mode().Perm())
	}
	broken := []lint.Finding{finding(link, lint.FixSafe, manifest.Edit{File: link, Start: 0, End: 0, Text: "a: dup\n"})}
	if _, err := Plan(broken, false); err == nil {
		t.Error("a fix that writes a key twice was planned")
	}
}
