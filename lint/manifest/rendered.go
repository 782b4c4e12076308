package manifest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Rendered input (a Helm chart, a Kustomize overlay) is parsed from the text
// the renderer produced, but users edit the files it was rendered from. A
// rendered file therefore keeps the pre-render Source, and its documents are
// relocated: every field moves to the line of the template, values file or
// patch that wrote it, so findings, inline ignore comments and the rest of
// the engine see ordinary positions.

// LoadRendered parses rendered as the file path, keeping source (the text
// before rendering, e.g. the Helm template) as the file's Source, which Line
// and inline ignore comments read. Positions stay those of rendered until the
// renderer relocates each document (see Document.Relocate).
func LoadRendered(path string, source, rendered []byte) (*File, error) {
	file, err := Load(path, rendered)
	if err != nil {
		return nil, err
	}
	file.Source, file.Rendered = source, true
	return file, nil
}

// ParseDocuments parses every YAML document of source with the positions of
// its fields, whether or not it holds Kubernetes objects: renderers read Helm
// values files and Kustomize patches with it.
func ParseDocuments(path string, source []byte) ([]*Document, error) {
	var docs []*Document
	err := parseDocuments(path, source, func(doc *Document) { docs = append(docs, doc) })
	return docs, err
}

// Documents returns the distinct documents of the file's objects, in order.
func (f *File) Documents() []*Document {
	var docs []*Document
	for _, object := range f.Objects {
		if len(docs) == 0 || docs[len(docs)-1] != object.Doc {
			docs = append(docs, object.Doc)
		}
	}
	return docs
}

// Fields returns every written field path of the document and its position.
func (d *Document) Fields() map[string]Position {
	fields := make(map[string]Position, len(d.fields.entries))
	paths, _ := d.fields.paths()
	for entry, path := range paths {
		fields[path] = d.fields.position(int32(entry))
	}
	return fields
}

// Relocate moves every field of a rendered document to where it was written
// before rendering. where receives a field path and its position in the
// rendered text and returns the file (empty for the document's own) and
// position; ok false places the field at its nearest relocated ancestor,
// the best a user can be shown for a line the renderer made up.
func (d *Document) Relocate(where func(path string, rendered Position) (file string, pos Position, ok bool)) {
	paths, parents := d.fields.paths()
	order := make([]int32, len(paths))
	for i := range order {
		order[i] = int32(i)
	}
	// An ancestor's path is a prefix of its descendants', hence shorter: it
	// is relocated first and can stand in for them.
	sort.Slice(order, func(i, j int) bool {
		a, b := paths[order[i]], paths[order[j]]
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
	elsewhere := map[int32]string{}
	for _, entry := range order {
		file, pos, ok := where(paths[entry], d.fields.position(entry))
		if !ok {
			file, pos = "", Position{Line: 1, Column: 1}
			if parent := parents[entry]; parent >= 0 {
				file, pos = elsewhere[parent], d.fields.position(parent)
			}
		}
		e := &d.fields.entries[entry]
		e.line, e.column = int32(pos.Line), int32(pos.Column)
		if file != "" && file != d.File {
			elsewhere[entry] = file
		}
	}
	d.setElsewhere(elsewhere)
}

// Placement is where Relocate and SetCalls put a rendered document's
// fields, in a form that crosses processes: a chart is rendered, traced and
// relocated in a child process, which sends back the rendered text and the
// placement of each document; Place puts the fields of the same text,
// parsed again, where the child put them.
type Placement struct {
	// Lines and Columns are each field's position, by its entry in the
	// document's field table (the order parsing writes them in).
	Lines, Columns []int32
	// Elsewhere are the files, other than the document's, of the fields
	// (by entry) placed in them.
	Elsewhere map[int32]string `json:",omitempty"`
	Calls     map[string]Call  `json:",omitempty"`
}

// Placement returns where the document's fields are now.
func (d *Document) Placement() Placement {
	placement := Placement{Lines: make([]int32, len(d.fields.entries)), Columns: make([]int32, len(d.fields.entries)),
		Elsewhere: d.rareOrNone().elsewhere, Calls: d.rareOrNone().calls}
	for i, e := range d.fields.entries {
		placement.Lines[i], placement.Columns[i] = e.line, e.column
	}
	return placement
}

// Place puts the document's fields where placement says. It fails, and
// moves nothing, when placement is not of a document with as many fields.
func (d *Document) Place(placement Placement) error {
	n := len(d.fields.entries)
	if len(placement.Lines) != n || len(placement.Columns) != n {
		return fmt.Errorf("the placement of %d fields does not fit a document of %d", len(placement.Lines), n)
	}
	for entry := range placement.Elsewhere {
		if entry < 0 || int(entry) >= n {
			return fmt.Errorf("the placement names field %d of a document of %d", entry, n)
		}
	}
	for i := range d.fields.entries {
		d.fields.entries[i].line, d.fields.entries[i].column = placement.Lines[i], placement.Columns[i]
	}
	d.setElsewhere(placement.Elsewhere)
	d.SetCalls(placement.Calls)
	return nil
}

// ParentPath drops the last element of a field path: "a.b[0].c" → "a.b[0]".
func ParentPath(path string) string { return parentPath(path) }

// PathElement is one step of a field path: a map key or a sequence index.
type PathElement struct {
	Key     string
	Index   int
	IsIndex bool
}

// SplitPath splits a field path as JoinPath and IndexPath build it:
// `spec.containers[0].resources.limits["nvidia.com/gpu"]` gives spec,
// containers, [0], resources, limits, nvidia.com/gpu.
func SplitPath(path string) []PathElement {
	var elements []PathElement
	for len(path) > 0 {
		switch path[0] {
		case '.':
			path = path[1:]
		case '[':
			end := strings.IndexByte(path, ']')
			if strings.HasPrefix(path, `["`) {
				// A quoted key may hold "]": find the closing quote first.
				if key, rest, ok := unquotePrefix(path[1:]); ok && strings.HasPrefix(rest, "]") {
					elements = append(elements, PathElement{Key: key})
					path = rest[1:]
					continue
				}
			}
			if end < 0 {
				return append(elements, PathElement{Key: path})
			}
			index, err := strconv.Atoi(path[1:end])
			if err != nil {
				elements = append(elements, PathElement{Key: path[1:end]})
			} else {
				elements = append(elements, PathElement{Index: index, IsIndex: true})
			}
			path = path[end+1:]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			elements = append(elements, PathElement{Key: path[:end]})
			path = path[end:]
		}
	}
	return elements
}

func unquotePrefix(s string) (string, string, bool) {
	prefix, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", false
	}
	key, err := strconv.Unquote(prefix)
	return key, s[len(prefix):], err == nil
}

// ValueAt returns the plain value at a field path inside value (a document's
// or object's Value).
func ValueAt(value any, path string) (any, bool) {
	for _, element := range SplitPath(path) {
		if element.IsIndex {
			items, ok := value.([]any)
			if !ok || element.Index < 0 || element.Index >= len(items) {
				return nil, false
			}
			value = items[element.Index]
			continue
		}
		fields, ok := value.(map[string]any)
		if !ok {
			return nil, false
		}
		if value, ok = fields[element.Key]; !ok {
			return nil, false
		}
	}
	return value, true
}

// Call is the line of a template that included the helper (a Helm define)
// which wrote a field: the field is placed in the helper, and the call says
// which of the templates sharing the helper made this object. With a Note,
// it is another line behind a field placed elsewhere: the line inside a
// packaged dependency that wrote a field placed on its parent's values, or
// the helper line that wrote a field placed on the values entry (a range's
// element) the helper was given.
type Call struct {
	File string
	Position
	// Note says what the line is, when it is not a call.
	Note string `json:",omitempty"`
}

// HelperLine is the Note of a helper's line behind a field placed on the
// values entry the helper was given.
const HelperLine = "the helper line that writes it"

// SetCalls records, once the document is relocated, the call behind each
// field written by a helper, by field path.
func (d *Document) SetCalls(calls map[string]Call) {
	if len(calls) == 0 {
		if d.rare != nil {
			d.rare.calls = nil
		}
		return
	}
	d.rareFields().calls = calls
}

// CalledFrom returns the call of the helper that wrote path, looking at the
// field Where places path at (path itself or its nearest written ancestor).
func (d *Document) CalledFrom(path string) (Call, bool) {
	calls := d.rareOrNone().calls
	if len(calls) == 0 {
		return Call{}, false
	}
	for p := path; ; p = parentPath(p) {
		if d.Has(p) {
			call, found := calls[p]
			return call, found
		}
		if p == "" {
			return Call{}, false
		}
	}
}

// CalledFrom is Document.CalledFrom for a field path relative to the object.
func (o *Object) CalledFrom(path string) (Call, bool) { return o.Doc.CalledFrom(o.FullPath(path)) }

// setElsewhere records the files of the fields not in the document's.
func (d *Document) setElsewhere(elsewhere map[int32]string) {
	if elsewhere == nil && d.rare == nil {
		return
	}
	d.rareFields().elsewhere = elsewhere
}
