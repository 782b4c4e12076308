package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/internal/parallel"
	"github.com/modellint/modellint/internal/quantity"
)

// MaxFileSize bounds what one manifest file may hold. Generated bundles of
// thousands of objects stay far below it; anything larger is rejected with an
// error rather than read into memory.
const MaxFileSize = 32 << 20

// File is a loaded manifest file.
type File struct {
	Path    string
	Source  []byte
	Objects []*Object
	// Skipped says, per document, why it held no Kubernetes object.
	Skipped []string
	// Unit is the deployment the file belongs to: one per PATH argument,
	// one per rendered chart or overlay, and one per dir beside another
	// that declares the same workload (the engine's splitUnits). Objects
	// refer only to objects of their own unit and the units it lies in, so
	// two example dirs linted together stay apart.
	Unit int
	// Rendered is output of a Helm chart or Kustomize overlay: its
	// positions point into the files it was rendered from, and fixes are
	// never applied to it.
	Rendered bool
	// HelmRelease is the release name a Helm chart's templates were
	// rendered with ("" for other files): names made from it differ
	// between installs.
	HelmRelease string

	lineStartsOnce sync.Once
	lineStarts     []int32

	// The source is dropped once every workload of the file is done (see
	// Workload.Done) in a set made with ReleaseTyped, when no file of the
	// set was rendered (a rendered document's fixes edit the files it was
	// rendered from). marked keeps the lines that mention IgnoreMarker.
	droppable bool
	pending   atomic.Int32 // workloads not done
	dropped   bool
	marked    map[int]string
	sleep     *sleep // see Settle
}

// IgnoreMarker starts the comment that suppresses a finding on its line or
// the next: `# modellint:ignore MDL208 reason`.
const IgnoreMarker = "modellint:ignore"

// MarkedLines are the lines that mention IgnoreMarker, by 1-based number:
// what the suppression of findings reads, also after the source is dropped.
func (f *File) MarkedLines() map[int]string {
	if f.dropped || (f.sleep != nil && f.sleep.asleep.Load()) {
		return f.marked
	}
	return markedLines(f.Source)
}

// dropSource drops the source, keeping the lines MarkedLines returns. A
// file that can be read again goes back to sleep instead.
func (f *File) dropSource() {
	if s := f.sleep; s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		f.Source, f.lineStarts = nil, nil
		s.asleep.Store(true)
		return
	}
	f.markLines()
	f.Source, f.lineStarts, f.dropped = nil, nil, true
}

// markLines keeps the lines of the source that MarkedLines returns.
func (f *File) markLines() { f.marked = markedLines(f.Source) }

// markedLines are the lines of source that mention IgnoreMarker, by
// 1-based number; nil when none does.
func markedLines(source []byte) map[int]string {
	if !bytes.Contains(source, []byte(IgnoreMarker)) {
		return nil
	}
	marked := map[int]string{}
	for n, line := range strings.Split(string(source), "\n") {
		if strings.Contains(line, IgnoreMarker) {
			marked[n+1] = strings.TrimSuffix(line, "\r")
		}
	}
	return marked
}

// Line returns the text of a 1-based line, without its newline. A file
// that sleeps is read again; its lines are read under its lock, as another
// workload's rules may read them while its own last workload is done.
func (f *File) Line(n int) string {
	if s := f.sleep; s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		f.wakeLocked() //nolint:errcheck // the file keeps the error for WakeError
		if f.lineStarts == nil {
			f.indexLines()
		}
		return f.line(n)
	}
	if f.dropped {
		retiredReads.Add(1)
		return ""
	}
	f.lineStartsOnce.Do(f.indexLines)
	return f.line(n)
}

// indexLines finds where each line starts. Sized to the line count, 4
// bytes a line (a file, read or rendered, is far below 2 GiB): fixes read
// the lines of every file a large run edits.
func (f *File) indexLines() {
	f.lineStarts = make([]int32, 1, 1+bytes.Count(f.Source, []byte{'\n'}))
	for i, b := range f.Source {
		if b == '\n' {
			f.lineStarts = append(f.lineStarts, int32(i+1))
		}
	}
}

// line is Line once the lines are indexed.
func (f *File) line(n int) string {
	if n < 1 || n > len(f.lineStarts) {
		return ""
	}
	start := f.lineStart(n - 1)
	end := len(f.Source)
	if n < len(f.lineStarts) {
		end = f.lineStart(n) - 1
	}
	return strings.TrimSuffix(string(f.Source[start:end]), "\r")
}

// lineStart is the offset of the 0-based line i; Line builds the index.
func (f *File) lineStart(i int) int { return int(f.lineStarts[i]) }

// Object is one Kubernetes object: a document, or an item of a List.
type Object struct {
	File       *File
	Doc        *Document
	Base       string // field path of the object inside its document ("items[2]"), "" for a whole document
	APIVersion string
	Kind       string
	Name       string
	Namespace  string

	strict  *strictDecoding // see decodeStrict
	holds   *typedHolds     // see Hold; nil when the typed fields are never released
	decoded *decodedObject  // what Settle decoded, until NewSet takes it
	// seldonConfig gives a SeldonDeployment's prepackaged servers their
	// images (see UseSeldonConfig); nil for Seldon's defaults.
	seldonConfig *SeldonConfig
}

// Group is the API group of the object ("" for the core group).
func (o *Object) Group() string { return APIGroup(o.APIVersion) }

// APIGroup is the API group of an apiVersion ("" for the core group).
func APIGroup(apiVersion string) string {
	if i := strings.IndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// ID names the object for people: Kind/namespace/name, or Kind/name.
func (o *Object) ID() string {
	if o.Namespace != "" {
		return o.Kind + "/" + o.Namespace + "/" + o.Name
	}
	return o.Kind + "/" + o.Name
}

// FullPath turns a path relative to the object into a path in its document.
func (o *Object) FullPath(path string) string { return ConcatPath(o.Base, path) }

// ConcatPath appends a relative field path to a base path:
// ("spec", "containers[0]") → "spec.containers[0]", ("items[2]", "[0]") → "items[2][0]".
func ConcatPath(base, relative string) string {
	relative = strings.TrimPrefix(relative, ".")
	switch {
	case base == "":
		return relative
	case relative == "":
		return base
	case strings.HasPrefix(relative, "["):
		return base + relative
	}
	return base + "." + relative
}

// Locate returns where path (relative to the object) was written, or its
// nearest written ancestor.
func (o *Object) Locate(path string) Position { return o.Doc.Locate(o.FullPath(path)) }

// Where is Locate with the file the position is in: the object's file, or
// for rendered input possibly another one (a Helm values file, a Kustomize
// patch).
func (o *Object) Where(path string) (string, Position) { return o.Doc.Where(o.FullPath(path)) }

// Has reports whether path (relative to the object) was written.
func (o *Object) Has(path string) bool { return o.Doc.Has(o.FullPath(path)) }

// Lookup returns the plain value at a path of map keys. A key may end in
// sequence indexes, as field paths write them ("workerGroupSpecs[0]"), so a
// split field path can be looked up as it is.
func (o *Object) Lookup(keys ...string) (any, bool) {
	if o.Doc.rareOrNone().expanded == nil {
		entry, ok := o.lookupEntry(keys)
		if !ok {
			return nil, false
		}
		return o.Doc.table().plain(entry), true
	}
	value, ok := ValueAt(o.Doc.rareOrNone().expanded, o.Base)
	if !ok {
		return nil, false
	}
	for _, key := range keys {
		if value, ok = lookupKey(value, key); !ok {
			return nil, false
		}
	}
	return value, true
}

// lookupKey returns the field key of a mapping, or the item a key like
// "containers[0]" or "matrix[1][2]" names when no field is called that.
func lookupKey(value any, key string) (any, bool) {
	fields, ok := value.(map[string]any)
	if !ok {
		return nil, false
	}
	if field, ok := fields[key]; ok {
		return field, true
	}
	name, indexes, ok := indexedKey(key)
	if !ok {
		return nil, false
	}
	if value, ok = fields[name]; !ok {
		return nil, false
	}
	for _, i := range indexes {
		items, isSequence := value.([]any)
		if !isSequence || i < 0 || i >= len(items) {
			return nil, false
		}
		value = items[i]
	}
	return value, true
}

// indexedKey splits a key like "matrix[1][2]" into its field and indexes.
func indexedKey(key string) (name string, indexes []int, ok bool) {
	name, rest, found := strings.Cut(key, "[")
	if !found || !strings.HasSuffix(rest, "]") {
		return "", nil, false
	}
	for _, index := range strings.Split(strings.TrimSuffix(rest, "]"), "][") {
		i, err := strconv.Atoi(index)
		if err != nil {
			return "", nil, false
		}
		indexes = append(indexes, i)
	}
	return name, indexes, true
}

// Plain is the object's plain value.
func (o *Object) Plain() map[string]any {
	value, _ := o.Lookup()
	fields, _ := value.(map[string]any)
	return fields
}

// lookupEntry is Lookup's field entry, for a document read off its fields.
func (o *Object) lookupEntry(keys []string) (int32, bool) {
	fields := o.Doc.table()
	entry, ok := fields.lookup(o.Base)
	if !ok {
		return 0, false
	}
	for _, key := range keys {
		if entry, ok = fields.keyEntry(entry, key); !ok {
			return 0, false
		}
	}
	return entry, true
}

// kindAt is what the value at keys is; kindUnread when there is none.
func (o *Object) kindAt(keys ...string) valueKind {
	if o.Doc.rareOrNone().expanded == nil {
		entry, ok := o.lookupEntry(keys)
		if !ok {
			return kindUnread
		}
		return o.Doc.table().entries[entry].kind
	}
	value, ok := o.Lookup(keys...)
	if !ok {
		return kindUnread
	}
	return plainKind(value)
}

// plainKind is what a plain value is.
func plainKind(value any) valueKind {
	switch value.(type) {
	case map[string]any:
		return kindMapping
	case []any:
		return kindSequence
	case string:
		return kindString
	case bool:
		return kindBool
	case int64:
		return kindInt
	case float64:
		return kindFloat
	}
	return kindNull
}

// lengthAt is the number of items of the sequence at keys.
func (o *Object) lengthAt(keys ...string) int {
	if o.Doc.rareOrNone().expanded == nil {
		entry, ok := o.lookupEntry(keys)
		if !ok {
			return 0
		}
		first, end, _ := o.Doc.table().entries[entry].children()
		return int(end - first)
	}
	value, _ := o.Lookup(keys...)
	items, _ := value.([]any)
	return len(items)
}

// stringAt is the string at keys, "" when there is none.
func (o *Object) stringAt(keys ...string) string {
	if o.Doc.rareOrNone().expanded == nil {
		entry, ok := o.lookupEntry(keys)
		if !ok || o.Doc.table().entries[entry].kind != kindString {
			return ""
		}
		return o.Doc.table().value(entry)
	}
	value, _ := o.Lookup(keys...)
	text, _ := value.(string)
	return text
}

// jsonAt is the value at keys as JSON, as encoding/json writes its plain
// value.
func (o *Object) jsonAt(keys []string) ([]byte, bool) {
	return o.appendJSONAt(nil, keys)
}

// appendJSONAt is jsonAt appending to dst.
func (o *Object) appendJSONAt(dst []byte, keys []string) ([]byte, bool) {
	if o.Doc.rareOrNone().expanded == nil {
		entry, ok := o.lookupEntry(keys)
		if !ok {
			return nil, false
		}
		return o.Doc.table().appendJSON(dst, entry), true
	}
	value, ok := o.Lookup(keys...)
	if !ok {
		return nil, false
	}
	raw, err := json.Marshal(value)
	return raw, err == nil
}

// hasSuspicious reports whether a string at or under keys would hang
// resource.ParseQuantity (see quantity.Suspicious).
func (o *Object) hasSuspicious(keys []string) bool {
	if o.Doc.rareOrNone().expanded == nil {
		entry, ok := o.lookupEntry(keys)
		return ok && o.Doc.table().anyString(entry, quantity.Suspicious)
	}
	value, ok := o.Lookup(keys...)
	return ok && len(suspiciousQuantities(value, "")) > 0
}

// Decode decodes the value at keys (the whole object when none) into a
// k8s.io/api type through JSON, as the API server would. A value of the wrong
// type is an *InvalidError that names the field. into must be zero.
func (o *Object) Decode(into any, keys ...string) error {
	// A workload decoded strictly is read off its typed object; into is
	// zero, as json.Unmarshal would leave it for a field not written.
	if typed, ok := o.typedField(keys); ok {
		target := reflect.ValueOf(into)
		if typed.Kind() == reflect.Pointer && !typed.IsNil() && target.Type() == typed.Type() {
			typed = typed.Elem()
		}
		if target.Kind() == reflect.Pointer && !target.IsNil() && target.Elem().Type() == typed.Type() {
			target.Elem().Set(typed)
			return nil
		}
	}
	prefix := strings.Join(keys, ".")
	if o.hasSuspicious(keys) {
		value, _ := o.Lookup(keys...)
		suspicious := suspiciousQuantities(value, "")
		sort.Slice(suspicious, func(i, j int) bool { return suspicious[i].path < suspicious[j].path })
		// Decode once with the suspicious strings swapped for a word that
		// fails ParseQuantity at once: an error then means one of them sat
		// where a quantity belongs, and the real decode would hang.
		if err := decodeJSON(replaceStrings(value, suspicious, ""), into); err != nil {
			if !errors.Is(err, resource.ErrFormatWrong) {
				return o.invalid(prefix, err)
			}
			// Find which: the one whose swap alone still fails.
			field := suspicious[0]
			for _, candidate := range suspicious[:min(len(suspicious), 16)] {
				if err := decodeJSON(replaceStrings(value, suspicious, candidate.path), into); errors.Is(err, resource.ErrFormatWrong) {
					field = candidate
					break
				}
			}
			path := ConcatPath(prefix, field.path)
			return &InvalidError{Object: o, Path: path, Message: path + ": " + quantity.Check(field.value).Error()}
		}
	}
	if o.fillFromTable(keys, into) {
		return nil
	}
	raw, ok := o.jsonAt(keys)
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return o.invalid(prefix, err)
	}
	return nil
}

func decodeJSON(value, into any) error {
	raw, err := json.Marshal(value)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, into)
}

// suspiciousString is a string of a document that would hang
// resource.ParseQuantity, at its field path.
type suspiciousString struct{ path, value string }

// suspiciousQuantities finds the strings of a decoded
// YAML value that quantity.Check refuses.
func suspiciousQuantities(value any, path string) []suspiciousString {
	var found []suspiciousString
	switch v := value.(type) {
	case string:
		if quantity.Suspicious(v) {
			found = append(found, suspiciousString{path, v})
		}
	case map[string]any:
		for key, item := range v {
			found = append(found, suspiciousQuantities(item, ConcatPath(path, key))...)
		}
	case []any:
		for i, item := range v {
			found = append(found, suspiciousQuantities(item, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return found
}

// replaceStrings copies value with the suspicious strings replaced by a
// word ParseQuantity refuses at once; with only set, that path alone is,
// and the others become "0", which decodes as a string and as a quantity.
func replaceStrings(value any, suspicious []suspiciousString, only string) any {
	swap := map[string]string{}
	for _, s := range suspicious {
		swap[s.path] = "not-a-quantity"
		if only != "" && s.path != only {
			swap[s.path] = "0"
		}
	}
	var replace func(value any, path string) any
	replace = func(value any, path string) any {
		switch v := value.(type) {
		case string:
			if replacement, ok := swap[path]; ok {
				return replacement
			}
		case map[string]any:
			copied := make(map[string]any, len(v))
			for key, item := range v {
				copied[key] = replace(item, ConcatPath(path, key))
			}
			return copied
		case []any:
			copied := make([]any, len(v))
			for i, item := range v {
				copied[i] = replace(item, fmt.Sprintf("%s[%d]", path, i))
			}
			return copied
		}
		return value
	}
	return replace(value, "")
}

// InvalidError is an object the API server would reject because a field has
// the wrong type (a template placeholder where a number belongs, say).
type InvalidError struct {
	Object  *Object
	Path    string // field path relative to the object, as precise as could be found
	Message string
	// Unsure says the field may be one of a newer API than modellint's
	// types of a CRD: the cluster's CRD decides, the one CRD names
	// ("rayclusters.ray.io").
	Unsure bool
	CRD    string
}

func (e *InvalidError) Error() string {
	file, pos := e.Object.Where(e.Path)
	return fmt.Sprintf("%s:%d: %s: %s", file, pos.Line, e.Object.ID(), e.Message)
}

func (o *Object) invalid(prefix string, err error) error {
	invalid := &InvalidError{Object: o, Path: prefix, Message: err.Error()}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := jsonFieldPath(typeErr.Field)
		invalid.Message = fmt.Sprintf("%s: a %s where the API expects %s", strings.TrimPrefix(prefix+"."+field, "."), typeErr.Value, typeErr.Type)
		if path, ok := o.Doc.find(o.FullPath(prefix), field); ok {
			invalid.Path = strings.TrimPrefix(strings.TrimPrefix(path, o.Base), ".")
		}
	}
	return invalid
}

// jsonFieldPath drops the Go names of embedded structs from encoding/json's
// field path ("volumes.VolumeSource.fc.lun" → "volumes.fc.lun").
func jsonFieldPath(field string) string {
	var parts []string
	for _, part := range strings.Split(field, ".") {
		if part != "" && !unicode.IsUpper(rune(part[0])) {
			parts = append(parts, part)
		}
	}
	return strings.Join(parts, ".")
}

// Load parses a manifest file. YAML and JSON are accepted, with any number of
// documents; `kind: List` objects are expanded. Documents that are not
// Kubernetes objects are recorded in Skipped. Errors are one line and name
// the file and, where known, the line.
func Load(path string, source []byte) (*File, error) {
	file := &File{Path: path, Source: source}
	if len(source) > MaxFileSize {
		return nil, fmt.Errorf("%s: file is %d MiB, more than the %d MiB a manifest may hold", path, len(source)>>20, MaxFileSize>>20)
	}
	if err := parseDocuments(path, source, file.addDocument); err != nil {
		return nil, err
	}
	return file, nil
}

// parseDocuments converts every YAML document of source, in order. A large
// stream (`helm template | modellint -`) is cut into parts at its "---"
// lines, which YAML forbids inside any content, and the parts are parsed on
// every CPU.
func parseDocuments(path string, source []byte, add func(*Document)) error {
	if line, err := checkText(source); err != nil {
		return fmt.Errorf("%s:%d: %w", path, line, err)
	}
	parts := splitStream(source)
	if err := measureParts(path, parts); err != nil {
		return err
	}
	var fields atomic.Int64
	for i := range parts {
		parts[i].fields = &fields
	}
	parsed := parallel.Map(parts, func(p streamPart) parsedPart {
		defer parsing.release(parsing.acquire(p.largest))
		return parsePart(path, p)
	})
	index := 0
	for _, part := range parsed {
		if part.err != nil {
			return part.err
		}
		if part.convertErr != nil {
			return fmt.Errorf("%s: document %d: %w", path, index+part.failedDoc+1, part.convertErr)
		}
		for _, doc := range part.docs {
			doc.Index = int32(index)
			index++
			add(doc)
		}
	}
	return nil
}

// streamPart is a run of whole documents of a stream, from its line line
// (0-based).
type streamPart struct {
	source []byte
	line   int
	// largest is the values of its largest document (see measureParts);
	// fields counts the fields the stream's parts have converted, against
	// MaxFileValues.
	largest int
	fields  *atomic.Int64
}

// parsedPart is a part's documents, or what stopped it: a YAML error
// (err, with the file's line) or a conversion error (convertErr, in the
// part's document failedDoc).
type parsedPart struct {
	docs       []*Document
	err        error
	convertErr error
	failedDoc  int
}

// Streams shorter than splitSize are parsed whole; longer ones in parts of
// about partSize.
const (
	splitSize = 1 << 20
	partSize  = 256 << 10
)

// splitStream cuts source before "---" lines into parts of about partSize.
// A stream with directives (a line starting with "%", which belongs to the
// document after it) is not cut.
func splitStream(source []byte) []streamPart {
	if len(source) < splitSize {
		return []streamPart{{source: source}}
	}
	var parts []streamPart
	start, startLine, line := 0, 0, 0
	for offset := 0; offset < len(source); line++ {
		end := bytes.IndexByte(source[offset:], '\n')
		if end < 0 {
			end = len(source)
		} else {
			end += offset + 1
		}
		text := source[offset:end]
		if len(text) > 0 && text[0] == '%' {
			return []streamPart{{source: source}}
		}
		if isDocumentStart(text) && offset-start >= partSize {
			parts = append(parts, streamPart{source: source[start:offset], line: startLine})
			start, startLine = offset, line
		}
		offset = end
	}
	return append(parts, streamPart{source: source[start:], line: startLine})
}

// isDocumentStart reports whether a line is a "---" document marker.
func isDocumentStart(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	return ok && (len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r' || rest[0] == '\n')
}

// parsePart parses and converts the documents of one part.
func parsePart(path string, part streamPart) parsedPart {
	return parsePartWith(path, part, newPartReader(part.source))
}

func parsePartWith(path string, part streamPart, reader *partReader) parsedPart {
	var out parsedPart
	keys := map[string]string{}
	// One span index for the part's documents, emptied for each: a map
	// made per document was a tenth of a 10,000-workload run's allocation.
	spans := map[string]span{}
	var text []byte
	for index := 0; ; index++ {
		root, err := reader.next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			out.err = yamlError(path, reader.source, part.line+reader.line, err)
			return out
		}
		clear(spans)
		// Nothing of root is kept: the reader gives its nodes to the next.
		doc, err := convertDocument(path, index, root, keys, spans, &text)
		if err != nil {
			out.convertErr, out.failedDoc = err, index
			return out
		}
		if part.fields != nil && part.fields.Add(int64(len(doc.fields.entries))) > MaxFileValues {
			out.err = fmt.Errorf("%s: more than %d YAML values, more than a manifest file needs", path, MaxFileValues)
			return out
		}
		if part.line > 0 {
			for i := range doc.fields.entries {
				doc.fields.entries[i].line += int32(part.line)
			}
		}
		out.docs = append(out.docs, doc)
	}
}

// partReader gives the documents of a part one at a time, as parsing
// holds one document's tree at a time (see parsing): read by simpleReader
// until a document it does not read, and from that document's "---" line
// on by yaml.v3, as if the part were cut there.
type partReader struct {
	simple  *simpleReader
	decoder *yaml.Decoder
	// source is what the decoder reads, from line line of the part.
	source []byte
	line   int
}

func newPartReader(source []byte) *partReader {
	p := &partReader{source: source}
	if simple, ok := newSimpleReader(source); ok {
		simple.reuse = true // see parsePartWith
		p.simple = simple
	} else {
		p.decoder = yaml.NewDecoder(bytes.NewReader(source))
	}
	return p
}

// next returns the next document, or io.EOF after the last.
func (p *partReader) next() (*yaml.Node, error) {
	if p.simple != nil {
		doc, ok := p.simple.nextDocument()
		switch {
		case ok && doc == nil:
			p.simple.release()
			return nil, io.EOF
		case ok:
			return doc, nil
		}
		// Cut before the document's "---" line, keeping one empty line
		// before it: yaml.v3 words an error on its input's first line
		// without the line.
		if cut := p.simple.next; cut > 0 {
			p.line = cut - 1
			p.source = append([]byte{'\n'}, p.source[p.simple.lines[cut].start:]...)
		}
		p.simple = nil
		p.decoder = yaml.NewDecoder(bytes.NewReader(p.source))
	}
	var root yaml.Node
	if err := p.decoder.Decode(&root); err != nil {
		return nil, err
	}
	if p.line > 0 {
		shiftLines(&root, p.line)
	}
	return &root, nil
}

// shiftLines moves the nodes of a tree down by lines.
func shiftLines(node *yaml.Node, lines int) {
	node.Line += lines
	for _, child := range node.Content {
		shiftLines(child, lines)
	}
}

// convertDocument converts the parsed document root, the index-th of its
// part, into a Document. keys, spans and the text buffer are the part's
// (see converter).
func convertDocument(path string, index int, root *yaml.Node, keys map[string]string, spans map[string]span, text *[]byte) (*Document, error) {
	start := root
	if len(root.Content) > 0 {
		start = root.Content[0] // the document's first key, not its "---"
	}
	doc := &Document{File: path, Index: int32(index)}
	size := countNodes(root)
	conv := converter{fields: newFieldTable(Position{start.Line, start.Column}, size.fields), budget: min(10*size.nodes+10000, max(size.nodes, MaxDocumentValues)), keys: keys, values: size.expands, spans: spans}
	conv.text = (*text)[:0]
	var err error
	expanded, err := conv.convert(root, 0, true)
	if err != nil {
		return nil, err
	}
	if expanded != nil {
		doc.rareFields().expanded = expanded
	}
	doc.fields = conv.table()
	*text = conv.text
	return doc, nil
}

func (f *File) addDocument(doc *Document) {
	root := &Object{File: f, Doc: doc}
	switch root.kindAt() {
	case kindMapping:
	case kindNull, kindUnread:
		return // an empty document between two "---"
	default:
		f.Skipped = append(f.Skipped, fmt.Sprintf("document %d: not a mapping", doc.Index+1))
		return
	}
	object, reason := newObject(f, doc, "")
	if object == nil {
		f.Skipped = append(f.Skipped, fmt.Sprintf("document %d: %s", doc.Index+1, reason))
		return
	}
	if strings.HasSuffix(object.Kind, "List") && object.kindAt("items") == kindSequence {
		for i := range object.lengthAt("items") {
			base := IndexPath("items", i)
			if (&Object{File: f, Doc: doc, Base: base}).kindAt() != kindMapping {
				f.Skipped = append(f.Skipped, fmt.Sprintf("document %d: %s: not a mapping", doc.Index+1, base))
				continue
			}
			if itemObject, reason := newObject(f, doc, base); itemObject != nil {
				f.Objects = append(f.Objects, itemObject)
			} else {
				f.Skipped = append(f.Skipped, fmt.Sprintf("document %d: %s: %s", doc.Index+1, base, reason))
			}
		}
		return
	}
	f.Objects = append(f.Objects, object)
}

// newObject returns nil and the reason when the mapping at base is not a
// Kubernetes object.
func newObject(f *File, doc *Document, base string) (*Object, string) {
	object := &Object{File: f, Doc: doc, Base: base}
	object.APIVersion, object.Kind = object.stringAt("apiVersion"), object.stringAt("kind")
	if object.APIVersion == "" || object.Kind == "" {
		return nil, "no apiVersion and kind (not a Kubernetes object)"
	}
	object.Name = object.stringAt("metadata", "name")
	if object.Name == "" {
		object.Name = object.stringAt("metadata", "generateName")
	}
	object.Namespace = object.stringAt("metadata", "namespace")
	// Copies, not slices of the document's text: a workload's document is
	// dropped once it is linted (see Workload.Done), its names are not.
	object.APIVersion, object.Kind = strings.Clone(object.APIVersion), strings.Clone(object.Kind)
	object.Name, object.Namespace = strings.Clone(object.Name), strings.Clone(object.Namespace)
	return object, ""
}

// checkText rejects binary files early: YAML parsers accept surprising input,
// and a linter that "passes" a corrupt file is worse than one that stops.
func checkText(source []byte) (line int, err error) {
	if i := bytes.IndexByte(source, 0); i >= 0 {
		return 1 + bytes.Count(source[:i], []byte("\n")), errors.New("binary data (NUL byte), not YAML or JSON")
	}
	if !utf8.Valid(source) {
		valid := source
		for len(valid) > 0 {
			r, size := utf8.DecodeRune(valid)
			if r == utf8.RuneError && size == 1 {
				break
			}
			valid = valid[size:]
		}
		offset := len(source) - len(valid)
		return 1 + bytes.Count(source[:offset], []byte("\n")), errors.New("invalid UTF-8, not YAML or JSON")
	}
	return 0, nil
}

var yamlLine = lazyregexp.New(`^yaml: (?:line (\d+): )?(.*)$`)

// yamlError turns the parser's message into "file:line: message" on one line;
// source starts at the file's line offset (0-based).
func yamlError(path string, source []byte, offset int, err error) error {
	message := strings.Join(strings.Fields(err.Error()), " ")
	if m := yamlLine.FindStringSubmatch(message); m != nil {
		if m[1] != "" {
			line, _ := strconv.Atoi(m[1])
			if isParserError(m[2]) {
				line++ // yaml.v3 reports parser (not scanner) errors with 0-based lines
			}
			if last := lastLine(source); line > last {
				line = last // an error at the end of input that has no final newline
			}
			return fmt.Errorf("%s:%d: invalid YAML: %s", path, offset+line, m[2])
		}
		message = m[2]
	}
	return fmt.Errorf("%s: invalid YAML: %s", path, message)
}

// isParserError recognises the messages of yaml.v3's parser, as opposed to
// its scanner (see parserc.go in go.yaml.in/yaml/v3).
func isParserError(message string) bool {
	for _, prefix := range []string{"did not find expected", "found duplicate %", "found incompatible YAML document", "found undefined tag handle"} {
		if strings.HasPrefix(message, prefix) {
			return true
		}
	}
	return false
}

func lastLine(source []byte) int {
	lines := bytes.Count(source, []byte("\n"))
	if len(source) > 0 && source[len(source)-1] != '\n' {
		lines++
	}
	return max(lines, 1)
}
