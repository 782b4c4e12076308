// Package fix applies the fixes of a run's findings to the files they
// point at, as byte-range edits, or shows them as a unified diff.
package fix

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"go.yaml.in/yaml/v3"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// File is one file's fixes: what it holds now and after them.
type File struct {
	Path   string
	Before []byte
	After  []byte
	// Fixed are the findings whose fixes were applied, in order.
	Fixed []lint.Finding
	// Skipped are fixes left out because they overlapped one applied
	// before them in the same file (two rules editing one field). A fix
	// that adds the same field at the same place as one applied (MDL203
	// and MDL402 both adding the startupProbe) is neither.
	Skipped []lint.Finding
}

// Plan reads each file the applicable fixes of findings edit and applies
// them in memory. Suppressed findings are not fixed; unsafe fixes only
// with unsafe. A file whose edited text no longer parses as YAML is an
// error, and nothing is planned for it.
func Plan(findings []lint.Finding, unsafe bool) ([]*File, error) {
	byFile := map[string][]lint.Finding{}
	for _, finding := range findings {
		if finding.Suppressed() || !finding.Fix.Applicable(unsafe) || len(finding.Fix.Edits) == 0 {
			continue
		}
		file := finding.Fix.Edits[0].File
		if !slices.ContainsFunc(finding.Fix.Edits, func(e manifest.Edit) bool { return e.File != file }) {
			byFile[file] = append(byFile[file], finding)
		}
	}
	var files []*File
	for _, path := range sortedKeys(byFile) {
		before, err := fileread.Regular(path, manifest.MaxFileSize)
		if err != nil {
			return nil, err
		}
		file := &File{Path: path, Before: before}
		var edits []manifest.Edit
		for _, finding := range byFile[path] {
			switch overlap(finding.Fix.Edits, edits) {
			case conflicting:
				file.Skipped = append(file.Skipped, finding)
				continue
			case sameAddition:
				continue
			}
			edits = append(edits, finding.Fix.Edits...)
			file.Fixed = append(file.Fixed, finding)
		}
		if file.After, err = apply(before, edits); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if err := parses(file.After); err != nil {
			return nil, fmt.Errorf("%s: the fixed file would not parse (%v); nothing was changed in it", path, err)
		}
		files = append(files, file)
	}
	return files, nil
}

type overlapKind int

const (
	disjoint     overlapKind = iota
	conflicting              // the edits touch the same bytes
	sameAddition             // both add the same field at the same place
)

// overlap says whether the edits of one fix touch those accepted before.
func overlap(candidate, accepted []manifest.Edit) overlapKind {
	kind := disjoint
	for _, a := range candidate {
		for _, b := range accepted {
			insertions := a.Start == a.End && b.Start == b.End
			switch {
			case insertions && a.Start == b.Start && a.Text == b.Text:
				kind = max(kind, sameAddition)
			case insertions && a.Start == b.Start && firstLine(a.Text) == firstLine(b.Text):
				return conflicting // the same key twice
			case a.Start < b.End && b.Start < a.End,
				a.Start == a.End && a.Start > b.Start && a.Start < b.End,
				b.Start == b.End && b.Start > a.Start && b.Start < a.End:
				return conflicting
			}
		}
	}
	return kind
}

func firstLine(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	return strings.TrimSpace(line)
}

// apply makes the edits, which must not overlap, from the last to the
// first so offsets stay valid.
func apply(source []byte, edits []manifest.Edit) ([]byte, error) {
	sorted := slices.Clone(edits)
	slices.SortStableFunc(sorted, func(a, b manifest.Edit) int { return a.Start - b.Start })
	out := bytes.Clone(source)
	for i := len(sorted) - 1; i >= 0; i-- {
		edit := sorted[i]
		if edit.Start < 0 || edit.End < edit.Start || edit.End > len(out) {
			return nil, fmt.Errorf("an edit at %d:%d is outside the file (it changed since it was linted?)", edit.Line, edit.Column)
		}
		out = slices.Concat(out[:edit.Start], []byte(edit.Text), out[edit.End:])
	}
	return out, nil
}

// parses checks every YAML document of the fixed text still parses, with
// no key written twice.
func parses(data []byte) error {
	decoder := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var document any
		err := decoder.Decode(&document)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Write replaces the file with its fixed text atomically (a temporary file
// in the same dir, renamed over it), keeping its mode; unchanged files are
// not touched.
func (f *File) Write() error {
	if bytes.Equal(f.Before, f.After) {
		return nil
	}
	// A symlinked manifest is edited where it lives: renaming over the
	// link would replace it with a copy.
	target, err := filepath.EvalSymlinks(f.Path)
	if err != nil {
		return err
	}
	info, err := os.Stat(target)
	if err != nil {
		return err
	}
	temp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".modellint-*")
	if err != nil {
		return err
	}
	defer os.Remove(temp.Name())
	if _, err := temp.Write(f.After); err != nil {
		temp.Close()
		return err
	}
	if err := temp.Chmod(info.Mode().Perm()); err != nil {
		temp.Close()
		return err
	}
	if err := temp.Close(); err != nil {
		return err
	}
	return os.Rename(temp.Name(), target)
}

// Diff is the file's change as a unified diff, as git shows it.
func (f *File) Diff() string {
	if bytes.Equal(f.Before, f.After) {
		return ""
	}
	name := strings.TrimPrefix(filepath.ToSlash(f.Path), "/")
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(f.Before)), B: difflib.SplitLines(string(f.After)),
		FromFile: "a/" + name, ToFile: "b/" + name, Context: 3,
	})
	if err != nil {
		return ""
	}
	return text
}

// Moves are the renames the applicable fixes of findings ask for, in
// order: a model dir's files into a version dir.
func Moves(findings []lint.Finding, unsafe bool) []lint.Move {
	var moves []lint.Move
	for _, finding := range findings {
		if !finding.Suppressed() && finding.Fix.Applicable(unsafe) {
			moves = append(moves, finding.Fix.Moves...)
		}
	}
	return moves
}

// DescribeMoves shows renames as git's diff does.
func DescribeMoves(moves []lint.Move) string {
	var out strings.Builder
	for _, move := range moves {
		fmt.Fprintf(&out, "rename from %s\nrename to %s\n", filepath.ToSlash(move.From), filepath.ToSlash(move.To))
	}
	return out.String()
}

// ApplyMoves makes the renames, creating the destination's dir. A source
// that is gone or a destination that exists stops them with an error:
// nothing is overwritten.
func ApplyMoves(moves []lint.Move) error {
	for _, move := range moves {
		if _, err := os.Lstat(move.From); err != nil {
			return err
		}
		if _, err := os.Lstat(move.To); err == nil {
			return fmt.Errorf("%s exists; %s was not moved", move.To, move.From)
		}
		if err := os.MkdirAll(filepath.Dir(move.To), 0o755); err != nil {
			return err
		}
		if err := os.Rename(move.From, move.To); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}
