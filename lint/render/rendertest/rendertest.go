// Package rendertest holds what the Helm and Kustomize render tests share:
// the listing of where each rendered field is placed, and its golden files.
package rendertest

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/manifest"
)

// Locations lists, for every rendered object, where each of its fields is
// placed (and, for a field a helper wrote, the template line that included
// the helper): the golden files show at a glance which line a finding would name.
func Locations(files []*manifest.File) string {
	var out strings.Builder
	for _, file := range files {
		fmt.Fprintf(&out, "%s\n", file.Path)
		for _, reason := range file.Skipped {
			fmt.Fprintf(&out, "  skipped: %s\n", reason)
		}
		for _, object := range file.Objects {
			fmt.Fprintf(&out, "  %s\n", object.ID())
			fields := object.Doc.Fields()
			paths := make([]string, 0, len(fields))
			for path := range fields {
				paths = append(paths, path)
			}
			sort.Strings(paths)
			for _, path := range paths {
				where, pos := object.Doc.Where(path)
				name := path
				if name == "" {
					name = "(object)"
				}
				line := fmt.Sprintf("    %-62s %s:%d:%d", name, where, pos.Line, pos.Column)
				if call, ok := object.Doc.CalledFrom(path); ok && call.Note == "" {
					line += fmt.Sprintf(" (included from %s:%d)", call.File, call.Line)
				} else if ok {
					line += fmt.Sprintf(" (%s: %s:%d)", call.Note, call.File, call.Line)
				}
				fmt.Fprintln(&out, line)
			}
		}
	}
	return out.String()
}

// CheckGolden compares got with the golden file, or rewrites it when
// update is set; pkg names the package for the hint to rerun with -update.
func CheckGolden(t *testing.T, golden, got string, update bool, pkg string) {
	t.Helper()
	if update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run `go test %s -update` to create it)", err, pkg)
	}
	if string(want) != got {
		t.Errorf("locations differ from %s (run `go test %s -update` and review the diff):\n%s", golden, pkg, got)
	}
}
