package manifest

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// fieldTable is where each field of a document was written, kept as a tree
// rather than a map from path strings: a run holds every document of its
// PATHs at once, and a string per field cost more than the document's
// values. Entry 0 is the document itself (the empty path); the children of
// an entry (the keys of a mapping, the items of a sequence) are consecutive
// entries after it, so a path is found by walking its elements, a sequence
// item directly by its index.
type fieldTable struct {
	entries []fieldEntry
	// text holds the document's keys and scalar values end to end, each
	// short one once; entries name theirs by span, so they hold no
	// pointers and the collector never scans them.
	text string
	// retired is set on the empty table of a document that was dropped
	// (see Workload.Done): nothing should read it any more.
	retired bool
}

// fieldEntry is one field and its value: 28 bytes, no pointers.
type fieldEntry struct {
	key span // the map key (empty for a sequence item)
	// data is a scalar's value in the text (the string, or the number, bool
	// as JSON writes it), and a mapping's or a sequence's children in the
	// table: the entries of its keys or items, in the order they were
	// written (see children).
	data         span
	line, column int32
	kind         valueKind
}

// span is where a string is in a fieldTable's text.
type span struct{ start, end uint32 }

// key is the map key of an entry.
func (t *fieldTable) key(entry int32) string {
	return t.str(t.entries[entry].key)
}

// value is the scalar value of an entry, as text.
func (t *fieldTable) value(entry int32) string {
	e := &t.entries[entry]
	if e.hasChildren() {
		return ""
	}
	return t.str(e.data)
}

// valueKind is what an entry's value is, as JSON types go.
type valueKind uint8

const (
	kindUnread valueKind = iota // not converted: the document's value is kept whole (see Document)
	kindNull
	kindBool
	kindInt
	kindFloat
	kindString
	kindMapping
	kindSequence
)

// children returns the entry's children and whether they are sequence items.
func (e *fieldEntry) children() (first, end int32, items bool) {
	if !e.hasChildren() {
		return 0, 0, false
	}
	return int32(e.data.start), int32(e.data.end), e.kind == kindSequence
}

// hasChildren reports whether data spans children, not text.
func (e *fieldEntry) hasChildren() bool { return e.kind == kindMapping || e.kind == kindSequence }

// newFieldTable is a table for a document of about fields fields.
func newFieldTable(start Position, fields int) fieldTable {
	entries := make([]fieldEntry, 1, 1+fields)
	entries[0] = fieldEntry{line: int32(start.Line), column: int32(start.Column)}
	return fieldTable{entries: entries}
}

// addChildren reserves n consecutive entries for the children of parent, the
// items of a sequence or the keys of a mapping (its kind says which), and
// returns the first.
func (t *fieldTable) addChildren(parent int32, n int) int32 {
	first := int32(len(t.entries))
	t.entries = append(t.entries, make([]fieldEntry, n)...)
	t.entries[parent].data = span{uint32(first), uint32(first) + uint32(n)}
	return first
}

// trimmed returns the table in a slice of its own length: the converter's
// slice may have grown by doubling (aliases expand past the estimate).
func (t fieldTable) trimmed() fieldTable {
	if cap(t.entries) != len(t.entries) {
		t.entries = append([]fieldEntry(nil), t.entries...)
	}
	return t
}

func (t *fieldTable) position(entry int32) Position {
	e := &t.entries[entry]
	return Position{Line: int(e.line), Column: int(e.column)}
}

// lookup returns the entry of the field path, written as JoinPath and
// IndexPath write it. A key written twice in one mapping is found where it
// was written last.
func (t *fieldTable) lookup(path string) (int32, bool) {
	if len(t.entries) == 0 {
		if t.retired {
			retiredReads.Add(1)
		}
		return 0, false
	}
	return t.resolve(0, path, path)
}

// resolve finds rest, the part of path after the elements leading to entry,
// under entry.
func (t *fieldTable) resolve(entry int32, path, rest string) (int32, bool) {
	if rest == "" {
		return entry, true
	}
	e := &t.entries[entry]
	if rest[0] == '[' {
		end := strings.IndexByte(rest, ']')
		if len(rest) > 1 && rest[1] == '"' {
			quoted, err := strconv.QuotedPrefix(rest[1:])
			if err != nil || len(rest) < len(quoted)+2 || rest[1+len(quoted)] != ']' {
				return 0, false
			}
			key, _ := strconv.Unquote(quoted)
			if !strings.ContainsAny(key, ".[]") || strconv.Quote(key) != quoted {
				return 0, false // JoinPath does not write it so
			}
			return t.resolveKey(e, key, path, rest[len(quoted)+2:])
		}
		if end < 0 {
			return 0, false
		}
		digits := rest[1:end]
		index, err := strconv.Atoi(digits)
		first, last, items := e.children()
		if err != nil || !items || index < 0 || strconv.Itoa(index) != digits || index >= int(last-first) {
			return 0, false
		}
		return t.resolve(first+int32(index), path, rest[end+1:])
	}
	if len(rest) < len(path) { // a key after another element
		if rest[0] != '.' {
			return 0, false
		}
		rest = rest[1:]
	}
	end := strings.IndexAny(rest, ".[")
	if end < 0 {
		end = len(rest)
	}
	key := rest[:end]
	if (key == "" && len(rest) == len(path)) || strings.IndexByte(key, ']') >= 0 {
		return 0, false
	}
	return t.resolveKey(e, key, path, rest[end:])
}

// resolveKey finds rest under the key of e's mapping, the last written
// first.
func (t *fieldTable) resolveKey(e *fieldEntry, key, path, rest string) (int32, bool) {
	first, end, items := e.children()
	if items {
		return 0, false
	}
	for child := end - 1; child >= first; child-- {
		if t.key(child) == key {
			if found, ok := t.resolve(child, path, rest); ok {
				return found, true
			}
		}
	}
	return 0, false
}

// appendElement appends the element of child, a child of parent, to path
// (the path of parent) as JoinPath and IndexPath do.
func (t *fieldTable) appendElement(path []byte, parent, child int32) []byte {
	first, _, items := t.entries[parent].children()
	key := t.key(child)
	switch {
	case items:
		path = append(path, '[')
		path = strconv.AppendInt(path, int64(child-first), 10)
		return append(path, ']')
	case strings.ContainsAny(key, ".[]"):
		path = append(path, '[')
		path = strconv.AppendQuote(path, key)
		return append(path, ']')
	case len(path) == 0:
		return append(path, key...)
	default:
		path = append(path, '.')
		return append(path, key...)
	}
}

// paths returns the path and the parent (-1 for the document) of every
// entry. A parent comes before its children.
func (t *fieldTable) paths() (paths []string, parents []int32) {
	paths, parents = make([]string, len(t.entries)), make([]int32, len(t.entries))
	if len(parents) > 0 {
		parents[0] = -1
	}
	var buf []byte
	for entry := range t.entries {
		first, end, _ := t.entries[entry].children()
		for child := first; child < end; child++ {
			buf = t.appendElement(append(buf[:0], paths[entry]...), int32(entry), child)
			paths[child], parents[child] = string(buf), int32(entry)
		}
	}
	return paths, parents
}

// under calls visit for every written path that starts with prefix and a
// dot (every path but the empty one when prefix is empty), with the rest of
// the path after them; rest is only valid during the call.
func (t *fieldTable) under(prefix string, visit func(entry int32, rest []byte)) {
	// One buffer holds every path: a child's path extends its parent's in
	// place, and visit does not keep rest.
	buffer := make([]byte, 0, 128)
	var walk func(entry int32, rest []byte)
	walk = func(entry int32, rest []byte) {
		visit(entry, rest)
		first, end, _ := t.entries[entry].children()
		for child := first; child < end; child++ {
			walk(child, t.appendElement(rest, entry, child))
		}
	}
	if prefix == "" {
		if len(t.entries) > 0 {
			first, end, _ := t.entries[0].children()
			for child := first; child < end; child++ {
				walk(child, t.appendElement(buffer[:0], 0, child))
			}
		}
		return
	}
	entry, ok := t.lookup(prefix)
	if !ok {
		return
	}
	first, end, items := t.entries[entry].children()
	for child := first; child < end && !items; child++ {
		if key := t.key(child); !strings.ContainsAny(key, ".[]") {
			walk(child, append(buffer[:0], key...))
		}
	}
}

// plain builds the plain value of an entry: map[string]any, []any, string,
// int64, float64, bool or nil, as the converter would have; a key written
// twice holds its last value.
func (t *fieldTable) plain(entry int32) any {
	e := &t.entries[entry]
	switch e.kind {
	case kindMapping:
		first, end, _ := e.children()
		fields := make(map[string]any, end-first)
		for child := first; child < end; child++ {
			fields[t.key(child)] = t.plain(child)
		}
		return fields
	case kindSequence:
		first, end, _ := e.children()
		items := make([]any, 0, end-first)
		for child := first; child < end; child++ {
			items = append(items, t.plain(child))
		}
		return items
	case kindString:
		return t.value(entry)
	case kindBool:
		return t.value(entry) == "true"
	case kindInt:
		n, _ := strconv.ParseInt(t.value(entry), 10, 64)
		return n
	case kindFloat:
		f, _ := strconv.ParseFloat(t.value(entry), 64)
		return f
	}
	return nil
}

// appendJSON appends the entry's value as JSON, as encoding/json writes its
// plain value: keys sorted, a key written twice once with its last value.
func (t *fieldTable) appendJSON(dst []byte, entry int32) []byte {
	e := &t.entries[entry]
	switch e.kind {
	case kindMapping:
		dst = append(dst, '{')
		for i, child := range t.sortedKeys(entry) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst, _ = jsontext.AppendQuote(dst, t.key(child))
			dst = append(dst, ':')
			dst = t.appendJSON(dst, child)
		}
		return append(dst, '}')
	case kindSequence:
		dst = append(dst, '[')
		first, end, _ := e.children()
		for child := first; child < end; child++ {
			if child > first {
				dst = append(dst, ',')
			}
			dst = t.appendJSON(dst, child)
		}
		return append(dst, ']')
	case kindString:
		dst, _ = jsontext.AppendQuote(dst, t.value(entry))
		return dst
	case kindBool, kindInt:
		return append(dst, t.value(entry)...)
	case kindFloat:
		f, _ := strconv.ParseFloat(t.value(entry), 64)
		encoded, _ := json.Marshal(f) // encoding/json's own float format
		return append(dst, encoded...)
	}
	return append(dst, "null"...)
}

// sortedKeys are the children of a mapping entry in key order, each key
// once: the child written last.
func (t *fieldTable) sortedKeys(entry int32) []int32 {
	first, end, _ := t.entries[entry].children()
	children := make([]int32, 0, end-first)
	for child := first; child < end; child++ {
		children = append(children, child)
	}
	// Stable, so of a key written twice the last is last; then drop the others.
	slices.SortStableFunc(children, func(a, b int32) int { return strings.Compare(t.key(a), t.key(b)) })
	kept := children[:0]
	for i, child := range children {
		if i+1 < len(children) && t.key(children[i+1]) == t.key(child) {
			continue
		}
		kept = append(kept, child)
	}
	return kept
}

// field is the child of a mapping entry under key, the last written.
func (t *fieldTable) field(entry int32, key string) (int32, bool) {
	first, end, items := t.entries[entry].children()
	if items {
		return 0, false
	}
	for child := end - 1; child >= first; child-- {
		if t.key(child) == key {
			return child, true
		}
	}
	return 0, false
}

// keyEntry is the entry under a mapping entry that Object.Lookup's key
// names: the field called key, else for "containers[0]" or "matrix[1][2]"
// the item its indexes name.
func (t *fieldTable) keyEntry(entry int32, key string) (int32, bool) {
	if child, ok := t.field(entry, key); ok {
		return child, true
	}
	name, indexes, ok := indexedKey(key)
	if !ok {
		return 0, false
	}
	child, ok := t.field(entry, name)
	if !ok {
		return 0, false
	}
	for _, i := range indexes {
		if child, ok = t.item(child, i); !ok {
			return 0, false
		}
	}
	return child, true
}

// item is the index'th item of a sequence entry.
func (t *fieldTable) item(entry int32, index int) (int32, bool) {
	first, end, items := t.entries[entry].children()
	if !items || index < 0 || index >= int(end-first) {
		return 0, false
	}
	return first + int32(index), true
}

// anyString reports whether a string value under entry (itself included)
// matches.
func (t *fieldTable) anyString(entry int32, match func(string) bool) bool {
	e := &t.entries[entry]
	switch e.kind {
	case kindString:
		return match(t.value(entry))
	case kindMapping, kindSequence:
		first, end, _ := e.children()
		for child := first; child < end; child++ {
			if t.anyString(child, match) {
				return true
			}
		}
	}
	return false
}
