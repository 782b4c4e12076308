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

type fieldEntry struct {
	key          string // the map key, shared with the document's value
	parent       int32  // -1 for the document
	index        int32  // the sequence index; -1 for a map key
	first, count int32  // the children: entries first … first+count-1
	line, column int32
}

func newFieldTable(start Position) fieldTable {
	return fieldTable{entries: []fieldEntry{{parent: -1, index: -1, line: int32(start.Line), column: int32(start.Column)}}}
}

// addChildren reserves n consecutive entries for the children of parent and
// returns the first.
func (t *fieldTable) addChildren(parent int32, n int) int32 {
	first := int32(len(t.entries))
	t.entries = append(t.entries, make([]fieldEntry, n)...)
	t.entries[parent].first, t.entries[parent].count = first, int32(n)
	return first
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
		if err != nil || index < 0 || strconv.Itoa(index) != digits || index >= int(e.count) {
			return 0, false
		}
		child := e.first + int32(index)
		if t.entries[child].index != int32(index) {
			return 0, false // a mapping's key, not an item
		}
		return t.resolve(child, path, rest[end+1:])
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
	for child := e.first + e.count - 1; child >= e.first; child-- {
		if c := &t.entries[child]; c.index < 0 && c.key == key {
			if found, ok := t.resolve(child, path, rest); ok {
				return found, true
			}
		}
	}
	return 0, false
}

// appendElement appends the entry's element to path (the path of its
// parent) as JoinPath and IndexPath do.
func (t *fieldTable) appendElement(path []byte, entry int32) []byte {
	e := &t.entries[entry]
	switch {
	case e.index >= 0:
		path = append(path, '[')
		path = strconv.AppendInt(path, int64(e.index), 10)
		return append(path, ']')
	case strings.ContainsAny(e.key, ".[]"):
		path = append(path, '[')
		path = strconv.AppendQuote(path, e.key)
		return append(path, ']')
	case len(path) == 0:
		return append(path, e.key...)
	default:
		path = append(path, '.')
		return append(path, e.key...)
	}
}

// paths returns the path of every entry.
func (t *fieldTable) paths() []string {
	paths := make([]string, len(t.entries))
	var buf []byte
	for i := 1; i < len(t.entries); i++ {
		buf = t.appendElement(append(buf[:0], paths[t.entries[i].parent]...), int32(i))
		paths[i] = string(buf)
	}
	return paths
}

// under calls visit for every written path that starts with prefix and a
// dot (every path but the empty one when prefix is empty), with the rest of
// the path after them; rest is only valid during the call.
func (t *fieldTable) under(prefix string, visit func(entry int32, rest []byte)) {
	var walk func(entry int32, rest []byte)
	walk = func(entry int32, rest []byte) {
		visit(entry, rest)
		e := t.entries[entry]
		for child := e.first; child < e.first+e.count; child++ {
			walk(child, t.appendElement(rest, child))
		}
	}
	if prefix == "" {
		if len(t.entries) > 0 {
			root := t.entries[0]
			for child := root.first; child < root.first+root.count; child++ {
				walk(child, t.appendElement(nil, child))
			}
		}
		return
	}
	entry, ok := t.lookup(prefix)
	if !ok {
		return
	}
	e := t.entries[entry]
	for child := e.first; child < e.first+e.count; child++ {
		if c := &t.entries[child]; c.index < 0 && !strings.ContainsAny(c.key, ".[]") {
			walk(child, append([]byte(nil), c.key...))
		}
	}
}
