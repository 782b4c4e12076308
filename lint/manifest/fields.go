package manifest

import (
	"strconv"
	"strings"
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
}

// fieldEntry is one field: 32 bytes. Its children are the entries first …
// first+|count|-1: the keys of a mapping (count > 0) or the items of a
// sequence (count < 0), in the order they were written.
type fieldEntry struct {
	key          string // the map key, shared with the document's value
	first, count int32
	line, column int32
}

// children returns the entry's children and whether they are sequence items.
func (e *fieldEntry) children() (first, end int32, items bool) {
	if e.count < 0 {
		return e.first, e.first - e.count, true
	}
	return e.first, e.first + e.count, false
}

func newFieldTable(start Position) fieldTable {
	return fieldTable{entries: []fieldEntry{{line: int32(start.Line), column: int32(start.Column)}}}
}

// addChildren reserves n consecutive entries for the children of parent, the
// items of a sequence or the keys of a mapping, and returns the first.
func (t *fieldTable) addChildren(parent int32, n int, items bool) int32 {
	first := int32(len(t.entries))
	t.entries = append(t.entries, make([]fieldEntry, n)...)
	t.entries[parent].first, t.entries[parent].count = first, int32(n)
	if items {
		t.entries[parent].count = -int32(n)
	}
	return first
}

// trimmed returns the table in a slice of its own length: the converter's
// slice grew by doubling.
func (t fieldTable) trimmed() fieldTable {
	return fieldTable{entries: append([]fieldEntry(nil), t.entries...)}
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
		if t.entries[child].key == key {
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
	key := t.entries[child].key
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
				walk(child, t.appendElement(nil, 0, child))
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
		if key := t.entries[child].key; !strings.ContainsAny(key, ".[]") {
			walk(child, append([]byte(nil), key...))
		}
	}
}
