package fix

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// Changes are what the applicable fixes of a run's findings do: files
// edited and model files moved, each inside one of the roots.
type Changes struct {
	Files []*File
	Moves []*Move
	// Moved are the findings whose renames Moves are, in order.
	Moved []lint.Finding
}

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

	target *target         // nil for a stream (PlanStream)
	name   string          // how the diff names the file
	edits  []manifest.Edit // applied, in file order
}

// Move is a rename a fix asks for, its source and destination in one root.
type Move struct {
	lint.Move
	from, to *target
}

// RefusedError lists the files --fix will not touch, one line each: a
// symbolic link, a file outside the roots, a file changed since it was
// linted. With any of them nothing is written: a run fixes its tree
// whole or not at all.
type RefusedError struct {
	Lines []string
}

func (e *RefusedError) Error() string { return strings.Join(e.Lines, "\n") }

// Plan reads each file the applicable fixes of findings edit, through its
// root, and applies them in memory, and checks the renames they ask for.
// Suppressed findings are not fixed; unsafe fixes only with unsafe. Files
// and renames outside the roots or through a link, and files changed since
// they were linted, are a *RefusedError. A file whose edited text no
// longer parses as YAML is an error, and nothing is planned for it.
func Plan(findings []lint.Finding, unsafe bool, roots *Roots) (*Changes, error) {
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
	changes := &Changes{}
	var refused []string
	for _, path := range sortedKeys(byFile) {
		target, err := roots.locate(path, true)
		if err != nil {
			refused = append(refused, fmt.Sprintf("%s: not fixed: %v", path, err))
			continue
		}
		before, _, err := target.read()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if !linted(byFile[path], sha256.Sum256(before)) {
			refused = append(refused, fmt.Sprintf("%s: %v", path, errChanged))
			continue
		}
		file, err := plan(path, before, byFile[path])
		if err != nil {
			return nil, err
		}
		file.target, file.name = target, target.name
		changes.Files = append(changes.Files, file)
	}
	for _, finding := range findings {
		if finding.Suppressed() || !finding.Fix.Applicable(unsafe) || len(finding.Fix.Moves) == 0 {
			continue
		}
		moved := true
		for _, move := range finding.Fix.Moves {
			planned, err := roots.locateMove(move)
			if err != nil {
				refused = append(refused, fmt.Sprintf("%s: not moved to %s: %v", move.From, move.To, err))
				moved = false
				continue
			}
			changes.Moves = append(changes.Moves, planned)
		}
		if moved {
			changes.Moved = append(changes.Moved, finding)
		}
	}
	if len(refused) > 0 {
		return nil, &RefusedError{Lines: refused}
	}
	return changes, nil
}

// PlanStream applies in memory the applicable fixes of findings that edit
// the stream named name (standard input), whose text was source: the fixed
// text goes where the stream's reader says, not to a file. Findings of
// other files are left out. Text changed since it was linted is a
// *RefusedError.
func PlanStream(name string, source []byte, findings []lint.Finding, unsafe bool) (*File, error) {
	var mine []lint.Finding
	for _, finding := range findings {
		if finding.Suppressed() || !finding.Fix.Applicable(unsafe) || len(finding.Fix.Edits) == 0 {
			continue
		}
		if !slices.ContainsFunc(finding.Fix.Edits, func(e manifest.Edit) bool { return e.File != name }) {
			mine = append(mine, finding)
		}
	}
	if !linted(mine, sha256.Sum256(source)) {
		return nil, &RefusedError{Lines: []string{fmt.Sprintf("%s: %v", name, errChanged)}}
	}
	file, err := plan(name, source, mine)
	if err != nil {
		return nil, err
	}
	file.name = name
	return file, nil
}

// linted reports whether every edit was made on the bytes digest sums:
// offsets counted in other text would land in another field.
func linted(findings []lint.Finding, digest [sha256.Size]byte) bool {
	for _, finding := range findings {
		for _, edit := range finding.Fix.Edits {
			if edit.Digest != digest {
				return false
			}
		}
	}
	return true
}

var errChanged = errors.New("changed since it was linted; run modellint again")

// plan applies the fixes of findings that do not overlap one applied
// before them.
func plan(path string, before []byte, findings []lint.Finding) (*File, error) {
	file := &File{Path: path, Before: before}
	accepted := newOverlaps(findings)
	for _, finding := range findings {
		switch accepted.check(finding.Fix.Edits) {
		case conflicting:
			file.Skipped = append(file.Skipped, finding)
			continue
		case sameAddition:
			continue
		}
		accepted.add(finding.Fix.Edits)
		file.edits = append(file.edits, finding.Fix.Edits...)
		file.Fixed = append(file.Fixed, finding)
	}
	slices.SortStableFunc(file.edits, func(a, b manifest.Edit) int {
		// An insertion goes before a replacement starting where it is.
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return a.End - b.End
	})
	var err error
	if file.After, err = apply(before, file.edits); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := parses(file.After); err != nil {
		return nil, fmt.Errorf("%s: the fixed file would not parse (%v); nothing was changed in it", path, err)
	}
	return file, nil
}

// apply makes the edits, sorted by offset and not overlapping, in one
// pass: the fixed text is copied once, whatever the number of edits.
func apply(source []byte, sorted []manifest.Edit) ([]byte, error) {
	size := len(source)
	for _, edit := range sorted {
		size += len(edit.Text) - (edit.End - edit.Start)
	}
	out := make([]byte, 0, max(size, 0))
	copied := 0
	for _, edit := range sorted {
		if edit.Start < copied || edit.End < edit.Start || edit.End > len(source) {
			return nil, fmt.Errorf("an edit at %d:%d is outside the file or overlaps another", edit.Line, edit.Column)
		}
		out = append(out, source[copied:edit.Start]...)
		out = append(out, edit.Text...)
		copied = edit.End
	}
	return append(out, source[copied:]...), nil
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

// Write writes every fixed file, then makes the renames. Every file is
// checked to hold what was planned before the first is written.
func (c *Changes) Write() error {
	for _, file := range c.Files {
		if _, err := file.unchanged(); err != nil {
			return fmt.Errorf("%s: %w", file.Path, err)
		}
	}
	for _, file := range c.Files {
		if err := file.Write(); err != nil {
			return fmt.Errorf("%s: %w", file.Path, err)
		}
	}
	for _, move := range c.Moves {
		if err := move.apply(); err != nil {
			return err
		}
	}
	return nil
}

// Write replaces the file with its fixed text atomically (a temporary file
// in the same dir, renamed over it), keeping its mode and owner; unchanged
// files are not touched, and one that no longer holds what was planned
// is refused.
func (f *File) Write() error {
	info, err := f.unchanged()
	if err != nil || info == nil {
		return err
	}
	return f.target.replace(f.After, info)
}

// unchanged checks a file the fixes change still holds what they were
// planned on, and says what it is; nil for a file they leave as it is.
func (f *File) unchanged() (fs.FileInfo, error) {
	if bytes.Equal(f.Before, f.After) {
		return nil, nil
	}
	current, info, err := f.target.read()
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(current, f.Before) {
		return nil, errChanged
	}
	return info, nil
}

// Diff is the file's change as a unified diff, as git shows it, naming
// the file by its path in the working dir or, outside it, in its root.
func (f *File) Diff() string {
	if bytes.Equal(f.Before, f.After) {
		return ""
	}
	return unifiedDiff(f.name, f.Before, f.After, f.edits)
}

// maxMovedFiles bounds the files the renames of one run name in a diff: a
// model dir holds tens of files, and a diff of more is not read by anyone.
const maxMovedFiles = 10000

// MovesDiff shows the renames as git diff -M does, a file at a time (a
// renamed dir is the renames of the files under it), so that git apply
// and patch make them: a "diff --git" header, "similarity index 100%",
// "rename from" and "rename to".
func MovesDiff(moves []*Move) (string, error) {
	var out strings.Builder
	files := 0
	for _, move := range moves {
		rel := filepath.ToSlash(move.from.rel)
		err := fs.WalkDir(move.from.root.dir.FS(), rel, func(name string, entry fs.DirEntry, err error) error {
			if err != nil {
				return unwrapPathError(err)
			}
			if entry.IsDir() {
				return nil
			}
			if files++; files > maxMovedFiles {
				return fmt.Errorf("more than %d files to rename", maxMovedFiles)
			}
			below := strings.TrimPrefix(name, rel)
			from, to := move.from.name+below, move.to.name+below
			fmt.Fprintf(&out, "diff --git %s %s\nsimilarity index 100%%\nrename from %s\nrename to %s\n",
				diffName("a/", from), diffName("b/", to), diffName("", from), diffName("", to))
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("%s: %w", move.From, err)
		}
	}
	return out.String(), nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}
