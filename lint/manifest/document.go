package manifest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"go.yaml.in/yaml/v3"
)

// Position is a 1-based line and column in a file.
type Position struct {
	Line   int
	Column int
}

// Document is one YAML document of a file: every field path with its
// position and value, read as plain Go values (map[string]any, []any,
// scalars) on demand.
type Document struct {
	File  string
	Index int32 // 0-based position of the document in its file
	// sleeping says fields were dropped, or their entries packed, until
	// owner, the document's file, wakes (see File.Settle).
	sleeping atomic.Bool
	// plain is the value Plain made from fields, once asked for.
	plain atomic.Pointer[plainValue]
	// fields are where each written field path ("spec.replicas",
	// "spec.containers[0]") has its key (or sequence item) start, as a
	// tree (see fieldTable). Its root, the empty path, is the document.
	fields fieldTable
	// rare is what few documents have (aliases, rendering, composition):
	// a run holds every document of its PATHs, most without any of it.
	rare  *rareFields
	owner *File
	// packed holds the entries while the document sleeps, or for good
	// once awake: then each read unpacks them, or takes the copy a recent
	// read unpacked (see packForReads).
	packed   []byte
	unpacked unpackedTable
}

// plainValue is a document's plain value, as Plain made it.
type plainValue struct{ value any }

// rareFields are the parts of a Document that few documents have.
type rareFields struct {
	// expanded is the document's plain value, kept whole when the document
	// has aliases or merge keys: the fields they expand to are not entries
	// of fields (whose positions are the alias's). Without them, fields hold
	// every value and nothing else is kept: Go maps cost ~300 bytes even
	// with one key.
	expanded any
	// elsewhere names the file of the fields (by entry) that are not in
	// File: only rendered documents have them (see Relocate).
	elsewhere map[int32]string
	// calls are the template lines that called the helper a field was
	// written by (see SetCalls): only rendered documents have them.
	calls map[string]Call
	// borrowed are the compositions whose fields other objects wrote (see
	// Object.Borrow).
	borrowed []borrowing
}

// rareOrNone is the document's rare fields, empty when it has none.
func (d *Document) rareOrNone() *rareFields {
	if d.rare == nil {
		return &noRareFields
	}
	return d.rare
}

// noRareFields are read for a document without rare fields; never written.
var noRareFields rareFields

// rareFields is the document's rare fields, made when it has none yet. It
// is called before the document is read concurrently.
func (d *Document) rareFields() *rareFields {
	if d.rare == nil {
		d.rare = &rareFields{}
	}
	return d.rare
}

// Plain is the document's plain value: map[string]any, []any or a scalar.
func (d *Document) Plain() any {
	if expanded := d.rareOrNone().expanded; expanded != nil {
		return expanded
	}
	fields := d.table()
	if fields.retired {
		retiredReads.Add(1)
	}
	if made := d.plain.Load(); made != nil {
		return made.value
	}
	made := &plainValue{}
	if len(fields.entries) > 0 {
		made.value = fields.plain(0)
	}
	// Two first reads at once both make it; the first one stored is kept.
	d.plain.CompareAndSwap(nil, made)
	return d.plain.Load().value
}

// retire drops what the document holds: its fields, values and where they
// were written.
func (d *Document) retire() {
	if d.owner != nil {
		// Not while the file wakes and gives the document its fields.
		d.owner.sleep.mu.Lock()
		defer d.owner.sleep.mu.Unlock()
		d.sleeping.Store(false)
	}
	d.plain.Store(nil)
	d.rare, d.packed = nil, nil
	d.unpacked.last.Store(nil)
	d.fields = fieldTable{retired: true}
}

// Locate returns the position of path, or of its nearest ancestor present in
// the document when the field itself is absent (a missing memory limit points
// at the container's resources, or at the container).
func (d *Document) Locate(path string) Position {
	_, pos := d.Where(path)
	return pos
}

// Where is Locate with the file the position is in. A field of a
// composition (see Object.Borrow) is placed where it was written.
func (d *Document) Where(path string) (string, Position) {
	if source, ok := d.borrowedSource(path); ok {
		return source.Object.Doc.written(source.Object.FullPath(source.Path))
	}
	return d.written(path)
}

// written is Where in the document's own fields.
func (d *Document) written(path string) (string, Position) {
	fields := d.table()
	for p := path; ; p = parentPath(p) {
		if entry, ok := fields.lookup(p); ok {
			if file, ok := d.rareOrNone().elsewhere[entry]; ok {
				return file, fields.position(entry)
			}
			return d.File, fields.position(entry)
		}
		if p == "" {
			return d.File, Position{}
		}
	}
}

// Has reports whether the exact path was written in the document.
func (d *Document) Has(path string) bool {
	_, ok := d.table().lookup(path)
	return ok
}

// parentPath drops the last element of a field path:
// "a.b[0].c" → "a.b[0]" → "a.b" → "a" → "".
func parentPath(path string) string {
	if strings.HasSuffix(path, "]") {
		if i := strings.LastIndexByte(path, '['); i >= 0 {
			return path[:i]
		}
	}
	if i := strings.LastIndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return ""
}

// JoinPath appends a map key to a field path. Keys holding dots or brackets
// (annotation names, nvidia.com/gpu) are quoted so paths stay unambiguous.
func JoinPath(path, key string) string {
	if strings.ContainsAny(key, ".[]") {
		key = "[" + strconv.Quote(key) + "]"
		return path + key
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// IndexPath appends a sequence index to a field path.
func IndexPath(path string, index int) string {
	return path + "[" + strconv.Itoa(index) + "]"
}

// converter records every field of a yaml.v3 node tree, where it was
// written and its value, and with values set builds the plain value too.
// Aliases are expanded, so it keeps a budget: a small document whose
// aliases expand to millions of nodes (an alias bomb) is an error.
type converter struct {
	fields fieldTable
	budget int
	// values builds the plain value (documents with aliases or merge keys).
	values bool
	// keys holds one copy of the map keys and short values of the file
	// (see share).
	keys map[string]string
	// text is the field table's text as it grows, in a buffer the part's
	// documents share (the table keeps a copy of its length); spans are
	// where each short string already is in it.
	text  []byte
	spans map[string]span
}

// convert converts node, the value of the field entry at; record false (at
// -1) converts what an alias expands to, whose fields point at the alias.
func (c *converter) convert(node *yaml.Node, at int32, record bool) (any, error) {
	c.budget--
	if c.budget < 0 {
		return nil, fmt.Errorf("line %d: aliases expand to too many values (alias bomb?)", node.Line)
	}
	switch node.Kind {
	case yaml.DocumentNode:
		if len(node.Content) == 0 {
			return nil, nil
		}
		return c.convert(node.Content[0], at, record)
	case yaml.AliasNode:
		// Paths under an alias point at the alias itself, where the user wrote it.
		return c.convert(node.Alias, -1, false)
	case yaml.MappingNode:
		if record {
			c.fields.entries[at].kind = kindMapping
		}
		return c.convertMapping(node, at, record)
	case yaml.SequenceNode:
		first := int32(-1)
		if record {
			c.fields.entries[at].kind = kindSequence
			first = c.fields.addChildren(at, len(node.Content))
		}
		var items []any
		if c.values {
			items = make([]any, 0, len(node.Content))
		}
		for i, item := range node.Content {
			entry := int32(-1)
			if record {
				entry = first + int32(i)
				c.fields.entries[entry] = fieldEntry{line: int32(item.Line), column: int32(item.Column)}
			}
			value, err := c.convert(item, entry, record)
			if err != nil {
				return nil, err
			}
			if c.values {
				items = append(items, value)
			}
		}
		if !c.values {
			return nil, nil
		}
		return items, nil
	case yaml.ScalarNode:
		kind, text, value, err := c.scalar(node)
		if err != nil {
			return nil, err
		}
		if record {
			c.fields.entries[at].kind, c.fields.entries[at].data = kind, c.span(text)
		}
		return value, nil
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", node.Line)
}

// scalar is a scalar's kind, its value as text (see fieldEntry) and as a
// plain value: the YAML types mapped onto what encoding/json produces, so
// the value can be encoded and decoded into k8s.io/api types.
func (c *converter) scalar(node *yaml.Node) (valueKind, string, any, error) {
	if tag := node.ShortTag(); tag == "!!str" || tag == "!!timestamp" || tag == "!!binary" {
		text := c.share(node.Value)
		return kindString, text, text, nil
	}
	if kind, text, value, ok := quickScalar(node); ok {
		return kind, text, value, nil
	}
	var value any
	if err := node.Decode(&value); err != nil {
		return 0, "", nil, fmt.Errorf("line %d: %w", node.Line, err)
	}
	switch v := jsonScalar(value, node.Value).(type) {
	case nil:
		return kindNull, "", nil, nil
	case bool:
		return kindBool, strconv.FormatBool(v), v, nil
	case int64:
		return kindInt, strconv.FormatInt(v, 10), v, nil
	case float64:
		return kindFloat, strconv.FormatFloat(v, 'g', -1, 64), v, nil
	case string:
		text := c.share(v)
		return kindString, text, text, nil
	}
	return 0, "", nil, fmt.Errorf("line %d: unsupported YAML scalar", node.Line)
}

// quickScalar is scalar for the plain decimals, booleans and nulls most
// non-string values of a manifest are, as yaml.v3's decode of them gives
// them, without a decoder for each (a tenth of a run's allocations); ok is
// false for any other.
func quickScalar(node *yaml.Node) (kind valueKind, text string, value any, ok bool) {
	switch node.Tag {
	case "!!null":
		if _, null := yamlNulls[node.Value]; null {
			return kindNull, "", nil, true
		}
	case "!!bool":
		if b, known := yamlBools[node.Value]; known {
			return kindBool, strconv.FormatBool(b), b, true
		}
	case "!!int":
		if v, decimal := plainDecimal(node.Value); decimal {
			return kindInt, strconv.FormatInt(v, 10), v, true
		}
	}
	return 0, "", nil, false
}

// yamlNulls and yamlBools are the texts yaml.v3 decodes as null and as
// booleans (its resolve.go).
var (
	yamlNulls = map[string]struct{}{"": {}, "~": {}, "null": {}, "Null": {}, "NULL": {}}
	yamlBools = map[string]bool{"true": true, "True": true, "TRUE": true, "false": false, "False": false, "FALSE": false}
)

// plainDecimal reads an int64 written in decimal digits with an optional
// "-", no leading zero, as JSON writes an integer: yaml.v3 reads a leading
// zero as octal and allows underscores, which are left to it.
func plainDecimal(text string) (int64, bool) {
	digits := strings.TrimPrefix(text, "-")
	if digits == "" || len(digits) > 19 || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(text, 10, 64)
	return v, err == nil
}

// maxShared bounds the strings a file shares: keys and short values repeat
// in every object, a file of a million distinct keys is not worth a table.
const maxShared = 4096

// share returns the file's one copy of a key or short value, for the plain
// values the converter builds (the field table keeps its own, see span).
func (c *converter) share(s string) string {
	if !c.values {
		return s
	}
	if shared, ok := c.keys[s]; ok {
		return shared
	}
	if c.keys != nil && len(c.keys) < maxShared && len(s) <= 32 {
		c.keys[s] = s
	}
	return s
}

// span adds s to the table's text, once if it is short, and says where.
func (c *converter) span(s string) span {
	if len(s) <= 32 {
		_, shared := sharedText()
		if at, ok := shared[s]; ok {
			return at
		}
	}
	if found, ok := c.spans[s]; ok {
		return found
	}
	at := span{start: uint32(len(c.text)), end: uint32(len(c.text) + len(s))}
	c.text = append(c.text, s...)
	if len(c.spans) < maxShared && len(s) <= 32 {
		if c.spans == nil {
			c.spans = map[string]span{}
		}
		c.spans[s] = at
	}
	return at
}

// table is the field table converted, with its text.
func (c *converter) table() fieldTable {
	table := c.fields.trimmed()
	table.text = string(c.text)
	return table
}

func isMergeKey(key *yaml.Node) bool { return key.Kind == yaml.ScalarNode && key.Tag == "!!merge" }

func (c *converter) convertMapping(node *yaml.Node, at int32, record bool) (any, error) {
	// The entries of the mapping's keys sit side by side; the keys up to
	// the first that is not a scalar (an error below) are recorded.
	next := int32(-1)
	if record {
		keys := 0
		for i := 0; i+1 < len(node.Content) && node.Content[i].Kind == yaml.ScalarNode; i += 2 {
			if !isMergeKey(node.Content[i]) {
				keys++
			}
		}
		next = c.fields.addChildren(at, keys)
	}
	var fields map[string]any
	if c.values {
		fields = make(map[string]any, len(node.Content)/2)
	}
	for i := 0; i+1 < len(node.Content); i += 2 {
		keyNode, valueNode := node.Content[i], node.Content[i+1]
		if isMergeKey(keyNode) {
			// "<<: *defaults" merges the aliased mapping's fields.
			merged, err := c.convert(valueNode, -1, false)
			if err != nil {
				return nil, err
			}
			if m, ok := merged.(map[string]any); ok {
				for k, v := range m {
					if _, exists := fields[k]; !exists {
						fields[k] = v
					}
				}
			}
			continue
		}
		if keyNode.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: mapping key is not a scalar", keyNode.Line)
		}
		key := c.share(keyNode.Value)
		entry := int32(-1)
		if record {
			entry = next
			next++
			c.fields.entries[entry] = fieldEntry{key: c.span(key), line: int32(keyNode.Line), column: int32(keyNode.Column)}
		}
		value, err := c.convert(valueNode, entry, record)
		if err != nil {
			return nil, err
		}
		if c.values {
			fields[key] = value
		}
	}
	if !c.values {
		return nil, nil
	}
	return fields, nil
}

// jsonScalar maps YAML scalar types onto what encoding/json produces, so the
// value can be re-encoded and decoded into k8s.io/api types.
func jsonScalar(value any, text string) any {
	switch v := value.(type) {
	case int:
		return int64(v)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return text // JSON has no NaN or Inf
		}
		return v
	case nil, string, bool, int64:
		return v
	default:
		return text
	}
}

// treeSize is what countNodes finds in a parsed tree.
type treeSize struct {
	nodes int
	// fields bounds the entries of its field table: the keys of its
	// mappings and the items of its sequences.
	fields int
	// expands says whether it has aliases or merge keys (see Document.expanded).
	expands bool
}

// countNodes measures a parsed tree: the conversion budget is bounded by
// its size, and the field table is allocated once.
func countNodes(node *yaml.Node) treeSize {
	size := treeSize{nodes: 1, expands: node.Kind == yaml.AliasNode || isMergeKey(node)}
	switch node.Kind {
	case yaml.MappingNode:
		size.fields = len(node.Content) / 2
	case yaml.SequenceNode:
		size.fields = len(node.Content)
	}
	for _, child := range node.Content {
		inner := countNodes(child)
		size.nodes, size.fields = size.nodes+inner.nodes, size.fields+inner.fields
		size.expands = size.expands || inner.expands
	}
	return size
}

// find returns the first written path (by position) under prefix whose keys
// after prefix, ignoring sequence indexes, are field ("volumes.fc.lun" under
// "spec" finds "spec.volumes[0].fc.lun"). The prefix itself may hold indexes
// ("spec.workerGroupSpecs[1].template.spec"): only paths under that item count.
func (d *Document) find(prefix, field string) (string, bool) {
	fields := d.table()
	if field == "" {
		_, ok := fields.lookup(prefix)
		return prefix, ok
	}
	best, bestLine, found := "", int32(0), false
	fields.under(prefix, func(entry int32, rest []byte) {
		if !strippedEqual(rest, field) {
			return
		}
		line := fields.entries[entry].line
		if !found || line < bestLine || (line == bestLine && string(rest) < best) {
			best, bestLine, found = string(rest), line, true
		}
	})
	if found && prefix != "" {
		best = prefix + "." + best
	}
	return best, found
}

// strippedEqual reports whether path without its bracketed parts (sequence
// indexes, quoted keys) is field.
func strippedEqual(path []byte, field string) bool {
	depth, n := 0, 0
	for _, c := range path {
		switch {
		case c == '[':
			depth++
		case c == ']':
			depth--
		case depth == 0:
			if n >= len(field) || field[n] != c {
				return false
			}
			n++
		}
	}
	return n == len(field)
}
