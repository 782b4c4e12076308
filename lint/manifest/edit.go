package manifest

import (
	"bytes"
	"crypto/sha256"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"weak"

	"github.com/modellint/modellint/internal/fileread"
)

// Fixes are byte-range edits of the file a user wrote, never a
// re-serialisation: comments, key order, quoting, indentation and blank
// lines stay as they were. An edit is offered only where the text around
// it is plain enough to be sure of (a block mapping, a scalar on its key's
// line, ASCII before the column); elsewhere the fix stays a suggestion.

// Edit replaces the bytes [Start, End) of File with Text.
type Edit struct {
	File  string `json:"file"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text"`
	// Line and Column (1-based) are where Start is, for reports.
	Line   int `json:"line"`
	Column int `json:"column"`
	// EndLine and EndColumn are where End is.
	EndLine   int `json:"endLine"`
	EndColumn int `json:"endColumn"`
	// Review is the edit as a code-review suggestion: whole lines of the
	// file and what they become.
	Review Review `json:"review"`
	// Digest is the SHA-256 of the bytes Start and End count in: --fix
	// refuses a file that no longer holds them, where the offsets would
	// land in other text.
	Digest [sha256.Size]byte `json:"-"`
}

// Review replaces lines StartLine..EndLine (1-based, inclusive) with Text
// (its lines without line ends), as a GitHub ```suggestion block does.
type Review struct {
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Text      string `json:"text"`
}

// editable reports whether the object's fields can be edited in its file:
// rendered output (a Helm template, a Kustomize build) is not what the user
// edits, and the path must be written in the object's own document.
func (o *Object) editable(path string) (Position, bool) {
	file, pos, templated, ok := o.editTarget(path)
	return pos, ok && !templated && file == o.File
}

// offset turns a 1-based line and column into a byte offset, when every
// byte before the column on that line is ASCII (YAML columns count
// characters).
func (f *File) offset(pos Position) (int, bool) {
	f.Line(1) // builds lineStarts
	if pos.Line < 1 || pos.Line > len(f.lineStarts) || pos.Column < 1 {
		return 0, false
	}
	start := f.lineStart(pos.Line - 1)
	end := start + pos.Column - 1
	if end > len(f.Source) {
		return 0, false
	}
	for _, b := range f.Source[start:end] {
		if b >= utf8.RuneSelf {
			return 0, false
		}
	}
	return end, true
}

// position turns a byte offset back into a line and column.
func (f *File) position(offset int) Position {
	f.Line(1)
	// The last line starting at or before offset; rules ask this for every
	// fix they offer, so it is a search, not a scan.
	line := sort.Search(len(f.lineStarts), func(i int) bool { return f.lineStart(i) > offset })
	return Position{Line: line, Column: offset - f.lineStart(line-1) + 1}
}

func (f *File) edit(start, end int, text string) Edit {
	from, to := f.position(start), f.position(end)
	return Edit{File: f.Path, Start: start, End: end, Text: text,
		Line: from.Line, Column: from.Column, EndLine: to.Line, EndColumn: to.Column, Review: f.review(start, end, text),
		Digest: f.sourceDigest()}
}

// sourceDigests hold the SHA-256 of each edited file's source, taken the
// first time a fix edits it: a file of thousands of workloads gets
// thousands of edits. A key does not keep its file alive, and goes with it.
var sourceDigests sync.Map // weak.Pointer[File] → [sha256.Size]byte

func (f *File) sourceDigest() [sha256.Size]byte {
	key := weak.Make(f)
	if digest, ok := sourceDigests.Load(key); ok {
		return digest.([sha256.Size]byte)
	}
	digest := sha256.Sum256(f.Source)
	if _, loaded := sourceDigests.LoadOrStore(key, digest); !loaded {
		runtime.AddCleanup(f, func(key weak.Pointer[File]) { sourceDigests.Delete(key) }, key)
	}
	return digest
}

// review turns an edit into whole lines: an insertion at a line's start
// is anchored on the line before it.
func (f *File) review(start, end int, text string) Review {
	first, last := f.position(start).Line, f.position(end).Line
	if end > start && f.position(end).Column == 1 {
		last-- // the edit ends at a line end
	}
	if start == end && f.position(start).Column == 1 && first > 1 {
		first--
		last = first
	}
	last = max(first, min(last, len(f.lineStarts)))
	from := f.lineStart(first - 1)
	to := len(f.Source)
	if last < len(f.lineStarts) {
		to = f.lineStart(last)
	}
	changed := string(f.Source[from:start]) + text + string(f.Source[end:max(end, to)])
	changed = strings.ReplaceAll(changed, "\r\n", "\n")
	return Review{StartLine: first, EndLine: last, Text: strings.TrimSuffix(changed, "\n")}
}

// ReplaceScalar returns the edit that rewrites the scalar value of the field
// at path (relative to the object) as text, when the value is written on
// its key's line and matches says it is the value the rule read. In
// rendered output the edit goes where the value was written: the values
// file or Kustomize patch the field was traced to, or the template's own
// line when it holds the value literally under the same key (never a
// template expression, which matches nothing).
func (o *Object) ReplaceScalar(path string, matches func(written string) bool, text string) (Edit, bool) {
	if full := o.FullPath(path); full == "" || (strings.HasSuffix(full, "]") && !strings.HasSuffix(full, `"]`)) {
		// A document or a sequence item is positioned at its first key:
		// only a mapping's field has a scalar after its own key.
		return Edit{}, false
	}
	file, pos, templated, ok := o.editTarget(path)
	if !ok {
		return Edit{}, false
	}
	start, ok := file.offset(pos)
	if !ok {
		return Edit{}, false
	}
	source := file.Source
	valueStart, valueEnd, ok := scalarAfterKey(source, start)
	if !ok {
		return Edit{}, false
	}
	if templated {
		keyEnd, _ := skipScalar(source, start, true)
		if key := unquote(string(source[start:keyEnd])); key != lastPathKey(path) {
			return Edit{}, false
		}
	}
	written := string(source[valueStart:valueEnd])
	if !matches(unquote(written)) {
		return Edit{}, false // not the value the rule read: leave it to the user
	}
	if quote := written[0]; (quote == '"' || quote == '\'') && !strings.ContainsAny(text, "\"'\\") {
		text = string(quote) + text + string(quote) // keep the file's quoting
	}
	return file.edit(valueStart, valueEnd, text), true
}

// editTarget is the file a field's value was written in and where: the
// object's own file, or for rendered output the file the field was traced
// to (read again, within the manifest size bound). templated says the
// position is a line of the rendered template itself.
func (o *Object) editTarget(path string) (file *File, pos Position, templated, ok bool) {
	// The document on stdin is fixed too: --fix - writes it fixed to stdout.
	if o.File == nil || o.File.Path == "" {
		return nil, Position{}, false, false
	}
	fields := o.Doc.table()
	entry, ok := fields.lookup(o.FullPath(path))
	if !ok {
		return nil, Position{}, false, false
	}
	pos = fields.position(entry)
	other := o.Doc.rareOrNone().elsewhere[entry]
	switch {
	case other == "" && !o.File.Rendered:
		return o.File, pos, false, true
	case other == "":
		return o.File, pos, true, true
	case !o.File.Rendered:
		return nil, Position{}, false, false
	}
	source, err := fileread.Regular(other, MaxFileSize)
	if err != nil {
		return nil, Position{}, false, false
	}
	return &File{Path: other, Source: source}, pos, false, true
}

// lastPathKey is the last map key of a field path ("spec.replicas" →
// "replicas", `limits["nvidia.com/gpu"]` → "nvidia.com/gpu").
func lastPathKey(path string) string {
	if strings.HasSuffix(path, `"]`) {
		if i := strings.LastIndex(path, `["`); i >= 0 {
			if key, err := strconv.Unquote(path[i+1 : len(path)-1]); err == nil {
				return key
			}
		}
	}
	return path[strings.LastIndexAny(path, ".]")+1:]
}

// scalarAfterKey finds the value of "key: value" starting at a key, when the
// value is a plain or quoted scalar on the same line.
func scalarAfterKey(source []byte, at int) (int, int, bool) {
	i, ok := skipScalar(source, at, true)
	if !ok || i >= len(source) || source[i] != ':' {
		return 0, 0, false
	}
	i++
	for i < len(source) && (source[i] == ' ' || source[i] == '\t') {
		i++
	}
	if i >= len(source) || source[i] == '\n' || source[i] == '\r' || source[i] == '#' {
		return 0, 0, false
	}
	switch source[i] {
	case '{', '[', '|', '>', '&', '*', '!':
		return 0, 0, false // a collection, a block scalar, an anchor, alias or tag
	}
	end, ok := skipScalar(source, i, false)
	return i, end, ok
}

// skipScalar returns the end of the scalar at i: a quoted one up to its
// closing quote, a plain one up to ": " (a key), " #", a flow indicator or
// the end of the line.
func skipScalar(source []byte, i int, key bool) (int, bool) {
	if i >= len(source) {
		return 0, false
	}
	switch quote := source[i]; quote {
	case '"', '\'':
		for j := i + 1; j < len(source); j++ {
			switch {
			case source[j] == '\n':
				return 0, false
			case quote == '"' && source[j] == '\\':
				j++
			case source[j] == quote && quote == '\'' && j+1 < len(source) && source[j+1] == '\'':
				j++
			case source[j] == quote:
				return j + 1, true
			}
		}
		return 0, false
	}
	j := i
	for j < len(source) {
		c := source[j]
		if c == '\n' || c == '\r' || c == '}' || c == ']' {
			break
		}
		// A comma ends a scalar in a flow collection, where one follows it
		// with a space or a line end; "a,b" is one plain scalar.
		if c == ',' && (j+1 == len(source) || source[j+1] == ' ' || source[j+1] == '\n' || source[j+1] == '\r') {
			break
		}
		if c == '#' && j > i && (source[j-1] == ' ' || source[j-1] == '\t') {
			break
		}
		if key && c == ':' && (j+1 == len(source) || source[j+1] == ' ' || source[j+1] == '\t' || source[j+1] == '\n' || source[j+1] == '\r') {
			break
		}
		j++
	}
	for j > i && (source[j-1] == ' ' || source[j-1] == '\t') {
		j--
	}
	return j, j > i
}

// unquote reads a quoted scalar's text; escapes other than \" and ” are
// left as written, which is enough to compare with the values rules read.
func unquote(text string) string {
	if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
		return strings.ReplaceAll(text[1:len(text)-1], `\"`, `"`)
	}
	if len(text) >= 2 && text[0] == '\'' && text[len(text)-1] == '\'' {
		return strings.ReplaceAll(text[1:len(text)-1], "''", "'")
	}
	return text
}

// AddFields returns the edit that adds fields to the block mapping at path
// (relative to the object; "" for the object itself): block is their YAML
// at indentation zero, two spaces a level, "\n" line ends. The lines go
// after the mapping's last line, at its fields' indentation, with the
// file's line ends.
func (o *Object) AddFields(path, block string) (Edit, bool) {
	indent, last, ok := o.fieldsAdded(path)
	if !ok {
		return Edit{}, false
	}
	file := o.File
	// Past the last field's line: the lines deeper than the fields (a nested
	// value, a block scalar) still belong to the mapping; blank lines and
	// comments after it do not.
	end := last
	for line := last + 1; line <= len(file.lineStarts); line++ {
		text := strings.TrimRight(file.Line(line), "\r")
		trimmed := strings.TrimLeft(text, " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if len(text)-len(trimmed) <= indent || strings.HasPrefix(trimmed, "---") {
			break
		}
		end = line
	}
	newline := "\n"
	if bytes.Contains(file.Source, []byte("\r\n")) {
		newline = "\r\n"
	}
	var text strings.Builder
	at := len(file.Source)
	if end < len(file.lineStarts) {
		at = file.lineStart(end)
	} else if len(file.Source) > 0 && file.Source[len(file.Source)-1] != '\n' {
		text.WriteString(newline) // the last line had no line end
	}
	pad := strings.Repeat(" ", indent)
	for _, line := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		text.WriteString(pad + line + newline)
	}
	return file.edit(at, at, text.String()), true
}

// CanAddFields says whether AddFields adds fields to the mapping at path,
// without making the edit.
func (o *Object) CanAddFields(path string) bool {
	_, _, ok := o.fieldsAdded(path)
	return ok
}

// fieldsAdded is where AddFields adds fields to the block mapping at path:
// its fields' indentation and the last line of its fields; false when it
// adds none there (not a block mapping written in the file).
func (o *Object) fieldsAdded(path string) (indent, last int, ok bool) {
	if _, ok := o.editable(path); !ok {
		return 0, 0, false
	}
	// The mapping's fields: where they start and how deep its content goes.
	var keys []Position // the mapping's own keys
	indent, mixed := -1, false
	fields := o.Doc.table()
	elsewhere := o.Doc.rareOrNone().elsewhere
	var deepest func(entry int32)
	deepest = func(entry int32) {
		if elsewhere[entry] == "" {
			last = max(last, int(fields.entries[entry].line))
		}
		first, end, _ := fields.entries[entry].children()
		for child := first; child < end; child++ {
			deepest(child)
		}
	}
	if entry, ok := fields.lookup(o.FullPath(path)); ok {
		first, end, items := fields.entries[entry].children()
		for child := first; child < end && !items; child++ {
			if strings.ContainsAny(fields.key(child), ".[]") {
				continue // not a field path can name
			}
			pos := fields.position(child)
			keys = append(keys, pos)
			if elsewhere[child] == "" && (indent == -1 || pos.Column-1 != indent) {
				mixed = mixed || indent != -1 // fields at two indentations: a flow mapping, or not one mapping
				indent = pos.Column - 1
			}
			deepest(child)
		}
	}
	if mixed || indent < 0 || last == 0 {
		return 0, 0, false
	}
	// Each field must start its line (after "- " for a sequence item's first
	// field): a field after another on one line is flow style.
	for _, pos := range keys {
		line := o.File.Line(pos.Line)
		before := strings.TrimLeft(line[:min(pos.Column-1, len(line))], " ")
		if before != "" && strings.Trim(before, "- ") != "" {
			return 0, 0, false
		}
	}
	return indent, last, true
}
