package manifest

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Position is a 1-based line and column in a file.
type Position struct {
	Line   int
	Column int
}

// Document is one YAML document of a file, converted to plain Go values
// (map[string]any, []any, scalars) with the position of every field path.
type Document struct {
	File  string
	Index int // 0-based position of the document in its file
	Value any
	// fields are where each written field path ("spec.replicas",
	// "spec.containers[0]") has its key (or sequence item) start, as a
	// tree (see fieldTable). Its root, the empty path, is the document.
	fields fieldTable
	// elsewhere names the file of the fields (by entry) that are not in
	// File: only rendered documents have them (see Relocate).
	elsewhere map[int32]string
	// calls are the template lines that called the helper a field was
	// written by (see SetCalls): only rendered documents have them.
	calls map[string]Call
}

// Locate returns the position of path, or of its nearest ancestor present in
// the document when the field itself is absent (a missing memory limit points
// at the container's resources, or at the container).
func (d *Document) Locate(path string) Position {
	_, pos := d.Where(path)
	return pos
}

// Where is Locate with the file the position is in.
func (d *Document) Where(path string) (string, Position) {
	for p := path; ; p = parentPath(p) {
		if entry, ok := d.fields.lookup(p); ok {
			if file, ok := d.elsewhere[entry]; ok {
				return file, d.fields.position(entry)
			}
			return d.File, d.fields.position(entry)
		}
		if p == "" {
			return d.File, Position{}
		}
	}
}

// Has reports whether the exact path was written in the document.
func (d *Document) Has(path string) bool {
	_, ok := d.fields.lookup(path)
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

// converter turns a yaml.v3 node tree into plain values while recording
// where each field was written. Aliases are expanded, so it keeps a budget:
// a small document whose aliases expand to millions of nodes (an alias
// bomb) is an error.
type converter struct {
	fields fieldTable
	budget int
	// keys holds one copy of the map keys and short values of the file
	// (see share).
	keys map[string]string
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
		return c.convertMapping(node, at, record)
	case yaml.SequenceNode:
		first := int32(-1)
		if record {
			first = c.fields.addChildren(at, len(node.Content), true)
		}
		items := make([]any, 0, len(node.Content))
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
			items = append(items, value)
		}
		return items, nil
	case yaml.ScalarNode:
		if tag := node.ShortTag(); tag == "!!str" || tag == "!!timestamp" || tag == "!!binary" {
			return c.share(node.Value), nil
		}
		var value any
		if err := node.Decode(&value); err != nil {
			return nil, fmt.Errorf("line %d: %w", node.Line, err)
		}
		return jsonScalar(value, node.Value), nil
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", node.Line)
}

// maxShared bounds the strings a file shares: keys and short values repeat
// in every object, a file of a million distinct keys is not worth a table.
const maxShared = 4096

// share returns the file's one copy of a key or short value.
func (c *converter) share(s string) string {
	if shared, ok := c.keys[s]; ok {
		return shared
	}
	if c.keys != nil && len(c.keys) < maxShared && len(s) <= 32 {
		c.keys[s] = s
	}
	return s
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
		next = c.fields.addChildren(at, keys, false)
	}
	fields := make(map[string]any, len(node.Content)/2)
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
			c.fields.entries[entry] = fieldEntry{key: key, line: int32(keyNode.Line), column: int32(keyNode.Column)}
		}
		value, err := c.convert(valueNode, entry, record)
		if err != nil {
			return nil, err
		}
		fields[key] = value
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

// countNodes bounds the conversion budget by the size of the parsed tree.
func countNodes(node *yaml.Node) int {
	n := 1
	for _, child := range node.Content {
		n += countNodes(child)
	}
	return n
}

// find returns the first written path (by position) under prefix whose keys
// after prefix, ignoring sequence indexes, are field ("volumes.fc.lun" under
// "spec" finds "spec.volumes[0].fc.lun"). The prefix itself may hold indexes
// ("spec.workerGroupSpecs[1].template.spec"): only paths under that item count.
func (d *Document) find(prefix, field string) (string, bool) {
	if field == "" {
		_, ok := d.fields.lookup(prefix)
		return prefix, ok
	}
	best, bestLine, found := "", int32(0), false
	d.fields.under(prefix, func(entry int32, rest []byte) {
		if !strippedEqual(rest, field) {
			return
		}
		line := d.fields.entries[entry].line
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
