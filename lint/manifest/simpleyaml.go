package manifest

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Manifests are written in a small part of YAML: block mappings and
// sequences, flow collections on one line, plain and quoted scalars on one
// line, literal blocks. simpleReader reads that part into the nodes yaml.v3's
// Decoder gives for it, without its scanner, which was most of a large
// run's CPU. A stream with anything else (anchors, tags, multi-line
// scalars, folded blocks, an error) is not read: yaml.v3 reads it, so what
// a stream means and how its errors read stay yaml.v3's.

// simpleReader reads one stream, a document at a time.
type simpleReader struct {
	src   []byte
	lines []simpleLine
	// next is the first line of the next document; end is the line after
	// the document being read.
	next, end int
	// failed is set at the first thing the reader leaves to yaml.v3.
	failed bool
	// slab is where the next nodes are: a stream's nodes live only until
	// its documents are converted, and one allocation per node was most
	// of the reader's.
	slab []yaml.Node
	// reuse gives the slabs of a document to the next: its reader is done
	// with a document when it asks for the next (partReader converts each
	// first). The nodes of a 10,000-workload run were ~40% of its
	// allocation, and collected the more often for it. slabs are the
	// current document's, spare those it may take.
	reuse        bool
	slabs, spare [][]yaml.Node
	// keys holds one copy of each short key.
	keys map[string]string
}

func (r *simpleReader) node() *yaml.Node {
	if len(r.slab) == 0 {
		r.slab = r.newSlab()
	}
	node := &r.slab[0]
	r.slab = r.slab[1:]
	return node
}

// newSlab is room for 128 more nodes, zeroed.
func (r *simpleReader) newSlab() []yaml.Node {
	if !r.reuse {
		return make([]yaml.Node, 128)
	}
	var slab []yaml.Node
	if n := len(r.spare); n > 0 {
		slab, r.spare = r.spare[n-1], r.spare[:n-1]
		clear(slab)
	} else if pooled, ok := spareSlabs.Get().(*[]yaml.Node); ok {
		slab = *pooled
		clear(slab)
	} else {
		slab = make([]yaml.Node, 128)
	}
	r.slabs = append(r.slabs, slab)
	return slab
}

// spareSlabs and spareLines are the slabs and line lists of the streams
// read to their end, for the next stream's reader: new ones for each
// stream were a seventh of the bytes a large run allocated.
var spareSlabs, spareLines sync.Pool

// maxSpareLines bounds the line lists kept for the next reader: one of a
// large stream is not held for streams of a few hundred lines.
const maxSpareLines = 1 << 16

// release gives the reader's slabs and lines to the next reader. The
// reader is at the end of its stream, its documents converted: nothing
// holds a node.
func (r *simpleReader) release() {
	if !r.reuse {
		return
	}
	for _, slab := range append(r.spare, r.slabs...) {
		spareSlabs.Put(&slab)
	}
	if lines := r.lines; cap(lines) <= maxSpareLines {
		spareLines.Put(&lines)
	}
	r.spare, r.slabs, r.slab, r.lines = nil, nil, nil, nil
}

// keyString is the text of a key, shared when short: keys repeat in every
// object of a stream.
func (r *simpleReader) keyString(text []byte) string {
	if len(text) > 32 {
		return string(text)
	}
	if key, ok := r.keys[string(text)]; ok {
		return key
	}
	key := string(text)
	if r.keys == nil {
		r.keys = map[string]string{}
	}
	if len(r.keys) < maxShared {
		r.keys[key] = key
	}
	return key
}

type simpleLine struct {
	start, end int // the line's bytes, without its "\n"
	indent     int // its leading spaces
	// blank is a line of spaces or a comment; ascii says columns are
	// bytes; tab says the line holds a tab.
	blank, ascii, tab bool
}

// maxSimpleKey is the longest key the reader takes, in bytes: YAML
// allows a key of 1024 characters on its line.
const maxSimpleKey = 1000

// maxSimpleDepth is how deeply the reader nests before it leaves the
// stream to yaml.v3 (which has its own bound).
const maxSimpleDepth = 100

// maxSimplePart is the largest part of a stream the reader reads: an
// object the API server stores is at most 1.5 MiB.
const maxSimplePart = 2 << 20

// newSimpleReader returns a reader of source, or false when source holds
// what the reader never reads (see splitLines).
func newSimpleReader(source []byte) (*simpleReader, bool) {
	if len(source) > maxSimplePart {
		return nil, false
	}
	r := &simpleReader{src: source}
	return r, r.splitLines()
}

// nextDocument reads the next document as yaml.v3's Decoder would: nil at
// the end of the stream, false when the document is not in the part of
// YAML the reader reads, and then r.next is its first line.
func (r *simpleReader) nextDocument() (*yaml.Node, bool) {
	if r.reuse {
		r.spare, r.slabs, r.slab = append(r.spare, r.slabs...), r.slabs[:0], nil
	}
	for r.next < len(r.lines) {
		i := r.next
		marker := r.isMarker(i)
		start := i
		if marker {
			start = i + 1
		}
		r.end = start
		for r.end < len(r.lines) && !r.isMarker(r.end) {
			r.end++
		}
		doc := r.document(i, marker)
		if r.failed {
			return nil, false
		}
		r.next = r.end
		if doc != nil {
			return doc, true
		}
	}
	return nil, true
}

// splitLines finds the lines and refuses what yaml.v3 would refuse or
// read otherwise: control characters, carriage returns, a byte order mark,
// text that is not UTF-8, directives and "..." document ends. A stream of
// mostly empty lines is refused too: its lines would take more memory
// than yaml.v3 does.
func (r *simpleReader) splitLines() bool {
	src := r.src
	if pooled, ok := spareLines.Get().(*[]simpleLine); ok {
		r.lines = (*pooled)[:0]
	}
	maxLines := len(src)/8 + 1024
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		return false
	}
	for start := 0; start < len(src); {
		line := simpleLine{start: start, ascii: true}
		i := start
		for i < len(src) && src[i] == ' ' {
			i++
		}
		line.indent = i - start
		line.blank = i == len(src) || src[i] == '\n' || src[i] == '#'
		for ; i < len(src) && src[i] != '\n'; i++ {
			c := src[i]
			switch {
			case c == '\t':
				line.tab = true
			case c < 0x20 || c == 0x7f:
				return false
			case c >= 0x80:
				rune, size := utf8.DecodeRune(src[i:])
				if !printableRune(rune) || (rune == utf8.RuneError && size == 1) {
					return false
				}
				line.ascii = false
				i += size - 1
			}
		}
		line.end = i
		if line.indent == 0 && line.end > line.start {
			if c := src[line.start]; c == '%' || (c == '.' && hasPrefixWord(src[line.start:line.end], "...")) {
				return false
			}
		}
		r.lines = append(r.lines, line)
		if len(r.lines) > maxLines {
			return false
		}
		start = i + 1
	}
	return true
}

// printableRune is YAML's printable set beyond ASCII.
func printableRune(r rune) bool {
	return r == 0x85 || (r >= 0xA0 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF) || (r >= 0x10000 && r <= 0x10FFFF)
}

// hasPrefixWord reports whether line starts with word followed by a
// space or its end.
func hasPrefixWord(line []byte, word string) bool {
	return bytes.HasPrefix(line, []byte(word)) && (len(line) == len(word) || line[len(word)] == ' ')
}

func (r *simpleReader) isMarker(i int) bool {
	l := r.lines[i]
	return l.indent == 0 && hasPrefixWord(r.src[l.start:l.end], "---")
}

func (r *simpleReader) fail() { r.failed = true }

// document reads the document of lines [i, r.end): i is its "---" line
// when marker is set. A document of nothing before the first marker is
// none; an empty document after a marker is left to yaml.v3.
func (r *simpleReader) document(i int, marker bool) *yaml.Node {
	var root *yaml.Node
	first := i
	if marker {
		l := r.lines[i]
		p := r.skipSpaces(l.start+3, l.end)
		first = i + 1
		if p < l.end && r.src[p] != '#' {
			// "--- {kind: ConfigMap, …}": a flow mapping on the marker line.
			if l.tab || r.src[p] != '{' {
				r.fail()
				return nil
			}
			var q int
			root, q = r.flow(i, p, 0)
			if !r.failed && !r.restIsComment(l, q) {
				r.fail()
			}
		}
	}
	next := r.skipBlank(first)
	if root == nil {
		if next >= r.end {
			if marker {
				r.fail()
			}
			return nil
		}
		l := r.lines[next]
		if l.indent != 0 || !r.isKey(next, l.start) {
			r.fail() // a document that is not a block mapping
			return nil
		}
		root, next = r.mapping(next, l.start, 0, 1)
		next = r.skipBlank(next)
	}
	if r.failed || next < r.end {
		r.fail()
		return nil
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: root.Line, Column: root.Column, Content: []*yaml.Node{root}}
}

// skipBlank returns the first line from i that is not blank, or r.end.
func (r *simpleReader) skipBlank(i int) int {
	for i < r.end && r.lines[i].blank {
		i++
	}
	return i
}

func (r *simpleReader) skipSpaces(p, end int) int {
	for p < end && r.src[p] == ' ' {
		p++
	}
	return p
}

// restIsComment reports whether the line holds only spaces from p, then
// perhaps a comment.
func (r *simpleReader) restIsComment(l simpleLine, p int) bool {
	q := r.skipSpaces(p, l.end)
	return q == l.end || (q > p && r.src[q] == '#')
}

// position is the 1-based line and column of byte p of line i.
func (r *simpleReader) position(i, p int) (int, int) {
	l := r.lines[i]
	if l.ascii {
		return i + 1, p - l.start + 1
	}
	return i + 1, utf8.RuneCount(r.src[l.start:p]) + 1
}

func (r *simpleReader) newNode(kind yaml.Kind, tag string, i, p int) *yaml.Node {
	line, column := r.position(i, p)
	node := r.node()
	node.Kind, node.Tag, node.Line, node.Column = kind, tag, line, column
	return node
}

// isSeqItem reports whether byte p of line i starts a block sequence item.
func (r *simpleReader) isSeqItem(i, p int) bool {
	l := r.lines[i]
	return p < l.end && r.src[p] == '-' && (p+1 == l.end || r.src[p+1] == ' ')
}

// isKey reports whether byte p of line i starts a mapping key: a plain or
// quoted scalar followed by ": " or a ':' that ends the line.
func (r *simpleReader) isKey(i, p int) bool {
	_, q, ok := r.keyText(i, p)
	return ok && q > p
}

// keyText reads the key at byte p of line i: its text, the byte after its
// ':', and whether it is a key the reader takes.
func (r *simpleReader) keyText(i, p int) (text string, after int, ok bool) {
	l := r.lines[i]
	if l.tab || p >= l.end {
		return "", 0, false
	}
	src := r.src
	switch c := src[p]; {
	case c == '"' || c == '\'':
		value, q, quotedOK := r.quoted(i, p)
		if !quotedOK || q >= l.end || src[q] != ':' || (q+1 < l.end && src[q+1] != ' ') || q-p > maxSimpleKey {
			return "", 0, false
		}
		return value, q + 1, true
	case isIndicator(c):
		return "", 0, false
	}
	for q := p; q < l.end; q++ {
		switch src[q] {
		case ':':
			if q+1 == l.end || src[q+1] == ' ' {
				if src[q-1] == ' ' || string(src[p:q]) == "<<" || q-p > maxSimpleKey {
					return "", 0, false // "key :" and merge keys are left to yaml.v3
				}
				return r.keyString(src[p:q]), q + 1, true
			}
		case '#':
			if src[q-1] == ' ' {
				return "", 0, false
			}
		}
	}
	return "", 0, false
}

// isIndicator reports whether a plain scalar may not start with c (or
// the reader leaves such a scalar to yaml.v3).
func isIndicator(c byte) bool {
	return strings.IndexByte("-?:,[]{}#&*!|>'\"%@`", c) >= 0
}

// plainStart reports whether byte p of line i may start a plain scalar
// the reader takes: not an indicator, but a "-" before a letter, digit,
// "-", "." or "_" ("--port", "-1").
func (r *simpleReader) plainStart(i, p int) bool {
	c := r.src[p]
	if !isIndicator(c) {
		return true
	}
	if c != '-' || p+1 >= r.lines[i].end {
		return false
	}
	next := r.src[p+1]
	return next >= 'a' && next <= 'z' || next >= 'A' && next <= 'Z' || next >= '0' && next <= '9' || next == '-' || next == '.' || next == '_'
}

// mapping reads a block mapping whose first key is at byte p of line i and
// whose keys are indented by indent spaces. It returns the line after it.
func (r *simpleReader) mapping(i, p, indent, depth int) (*yaml.Node, int) {
	if depth > maxSimpleDepth {
		r.fail()
		return nil, i
	}
	node := r.newNode(yaml.MappingNode, "!!map", i, p)
	for first := true; !r.failed; first = false {
		if !first {
			i = r.skipBlank(i)
			if i >= r.end || r.lines[i].indent < indent {
				break
			}
			if r.lines[i].indent > indent {
				r.fail()
				break
			}
			p = r.lines[i].start + indent
		}
		text, after, ok := r.keyText(i, p)
		if !ok {
			r.fail()
			break
		}
		key := r.newNode(yaml.ScalarNode, "", i, p)
		key.Value = text
		if c := r.src[p]; c == '"' {
			key.Style, key.Tag = yaml.DoubleQuotedStyle, "!!str"
		} else if c == '\'' {
			key.Style, key.Tag = yaml.SingleQuotedStyle, "!!str"
		} else {
			key.Tag = plainTag(text)
		}
		var value *yaml.Node
		value, i = r.value(i, after, indent, depth)
		node.Content = append(node.Content, key, value)
	}
	return node, i
}

// plainTag is the tag yaml.v3 resolves a plain scalar to. yaml.v3 looks
// further only at a scalar that starts with one of resolvedFirst (see its
// resolve.go); any other is a string.
func plainTag(text string) string {
	if text != "" && strings.IndexByte(resolvedFirst, text[0]) < 0 {
		return "!!str"
	}
	// A number or timestamp holds none but these bytes; a quantity
	// ("16Gi", "500m") or a port ("8080/TCP") is a string, which yaml.v3
	// finds only after failed parses that allocate their errors.
	if text != "" && strings.IndexByte("+-0123456789", text[0]) >= 0 && !onlyBytes(text, numberOrTimeBytes) &&
		!strings.HasSuffix(text, ".inf") && !strings.HasSuffix(text, ".Inf") && !strings.HasSuffix(text, ".INF") {
		return "!!str"
	}
	return (&yaml.Node{Kind: yaml.ScalarNode, Value: text}).ShortTag()
}

const resolvedFirst = "+-0123456789yYnNtTfFoO~."

// onlyBytes says whether every byte of text is one of set's.
func onlyBytes(text, set string) bool {
	for i := 0; i < len(text); i++ {
		if strings.IndexByte(set, text[i]) < 0 {
			return false
		}
	}
	return true
}

// numberOrTimeBytes are the bytes of the integers (any base, with
// underscores), floats and timestamps yaml.v3 reads.
const numberOrTimeBytes = "0123456789+-_.:eExXoObBaAcCdDfFtTzZ \t"

// value reads the value of a key whose ':' ends before byte p of line i,
// in a mapping indented by indent. It returns the line after it.
func (r *simpleReader) value(i, p, indent, depth int) (*yaml.Node, int) {
	l := r.lines[i]
	p = r.skipSpaces(p, l.end)
	if p < l.end && r.src[p] != '#' {
		return r.inline(i, p, indent, depth)
	}
	// The value is on the lines below: more indented, or a sequence at
	// the key's own indent.
	next := r.skipBlank(i + 1)
	if next < r.end {
		below := r.lines[next]
		if below.indent > indent {
			return r.block(next, depth+1)
		}
		if below.indent == indent && r.isSeqItem(next, below.start+indent) {
			return r.sequence(next, indent, depth+1)
		}
	}
	node := r.node()
	node.Kind, node.Tag = yaml.ScalarNode, "!!null"
	return node, i + 1
}

// block reads the mapping or sequence that starts line i.
func (r *simpleReader) block(i, depth int) (*yaml.Node, int) {
	l := r.lines[i]
	p := l.start + l.indent
	switch {
	case r.isSeqItem(i, p):
		return r.sequence(i, l.indent, depth)
	case r.isKey(i, p):
		return r.mapping(i, p, l.indent, depth)
	}
	r.fail() // a scalar on lines of its own
	return nil, i
}

// sequence reads a block sequence whose items start with "-" indented by
// indent spaces, from line i.
func (r *simpleReader) sequence(i, indent, depth int) (*yaml.Node, int) {
	if depth > maxSimpleDepth {
		r.fail()
		return nil, i
	}
	node := r.newNode(yaml.SequenceNode, "!!seq", i, r.lines[i].start+indent)
	for !r.failed {
		i = r.skipBlank(i)
		if i >= r.end || r.lines[i].indent < indent {
			break
		}
		l := r.lines[i]
		if l.indent > indent || l.tab {
			r.fail()
			break
		}
		if !r.isSeqItem(i, l.start+indent) {
			break // the next key of the mapping the sequence is the value of
		}
		p := r.skipSpaces(l.start+indent+1, l.end)
		var item *yaml.Node
		switch {
		case p == l.end || r.src[p] == '#':
			next := r.skipBlank(i + 1)
			if next >= r.end || r.lines[next].indent <= indent {
				r.fail() // an empty item
				return nil, i
			}
			item, i = r.block(next, depth+1)
		case r.isSeqItem(i, p):
			r.fail() // "- - item"
			return nil, i
		case r.isKey(i, p):
			item, i = r.mapping(i, p, p-l.start, depth+1)
		default:
			item, i = r.inline(i, p, indent, depth+1)
		}
		node.Content = append(node.Content, item)
	}
	return node, i
}

// inline reads a value that starts at byte p of line i: a scalar or flow
// collection on the line, or a literal block below it. Nothing may follow
// on the lines more indented than indent, the indent of the collection
// holding it. It returns the line after the value.
func (r *simpleReader) inline(i, p, indent, depth int) (*yaml.Node, int) {
	l := r.lines[i]
	if l.tab {
		r.fail()
		return nil, i
	}
	src := r.src
	var node *yaml.Node
	next := i + 1
	switch c := src[p]; {
	case c == '{' || c == '[':
		var q int
		node, q = r.flow(i, p, depth)
		if !r.failed && !r.restIsComment(l, q) {
			r.fail()
		}
	case c == '"' || c == '\'':
		value, q, ok := r.quoted(i, p)
		if !ok || !r.restIsComment(l, q) {
			r.fail()
			return nil, i
		}
		node = r.newNode(yaml.ScalarNode, "!!str", i, p)
		node.Value = value
		node.Style = yaml.SingleQuotedStyle
		if c == '"' {
			node.Style = yaml.DoubleQuotedStyle
		}
	case c == '|':
		node, next = r.literal(i, p, indent)
	case !r.plainStart(i, p):
		r.fail()
	default:
		end := l.end
		for q := p; q < l.end; q++ {
			if src[q] == '#' && src[q-1] == ' ' {
				end = q
				break
			}
			if src[q] == ':' && (q+1 == l.end || src[q+1] == ' ') {
				r.fail() // "key: a: b" is an error
				return nil, i
			}
		}
		for end > p && src[end-1] == ' ' {
			end--
		}
		node = r.newNode(yaml.ScalarNode, "", i, p)
		node.Value = string(src[p:end])
		node.Tag = plainTag(node.Value)
		if node.Value == "<<" {
			r.fail() // yaml.v3 tags it a merge key wherever it is
		}
	}
	if r.failed {
		return nil, i
	}
	// A line more indented than the collection would continue the scalar.
	if after := r.skipBlank(next); after < r.end && r.lines[after].indent > indent {
		r.fail()
	}
	return node, next
}

// quoted reads the quoted scalar at byte p of line i: its value, the byte
// after its closing quote, and whether it ends on the line and has only
// the escapes the reader knows.
func (r *simpleReader) quoted(i, p int) (string, int, bool) {
	l := r.lines[i]
	src := r.src
	quote := src[p]
	var value []byte
	for q := p + 1; q < l.end; q++ {
		c := src[q]
		switch {
		case c == quote && quote == '\'' && q+1 < l.end && src[q+1] == '\'':
			value = append(value, '\'')
			q++
		case c == quote:
			return string(value), q + 1, true
		case c == '\\' && quote == '"':
			if q+1 == l.end {
				return "", 0, false // a line continuation
			}
			q++
			switch e := src[q]; e {
			case '\\', '"':
				value = append(value, e)
			case 'n':
				value = append(value, '\n')
			case 't':
				value = append(value, '\t')
			case 'r':
				value = append(value, '\r')
			case '0':
				value = append(value, 0)
			case 'x', 'u', 'U':
				digits := 2 // \xXX
				if e == 'u' {
					digits = 4
				} else if e == 'U' {
					digits = 8
				}
				if q+digits >= l.end {
					return "", 0, false
				}
				code, err := strconv.ParseUint(string(src[q+1:q+1+digits]), 16, 32)
				if err != nil || code > utf8.MaxRune || (code >= 0xD800 && code <= 0xDFFF) {
					return "", 0, false
				}
				value = utf8.AppendRune(value, rune(code))
				q += digits
			default:
				return "", 0, false
			}
		default:
			value = append(value, c)
		}
	}
	return "", 0, false
}

// literal reads the literal block whose "|" is at byte p of line i, in a
// collection indented by indent, and returns the line after it.
func (r *simpleReader) literal(i, p, indent int) (*yaml.Node, int) {
	l := r.lines[i]
	src := r.src
	chomp := byte(0)
	q := p + 1
	if q < l.end && (src[q] == '-' || src[q] == '+') {
		chomp = src[q]
		q++
	}
	if q < l.end && (src[q] != ' ' || !r.restIsComment(l, q)) {
		r.fail() // an indentation indicator, or text after the header
		return nil, i
	}
	// The first line with text sets the block's indent; empty lines
	// before it may not be longer.
	first, longest := i+1, 0
	for ; first < r.end && r.spacesOnly(first); first++ {
		longest = max(longest, r.lines[first].end-r.lines[first].start)
	}
	if first >= r.end || r.lines[first].indent <= indent || longest > r.lines[first].indent {
		r.fail()
		return nil, i
	}
	block := r.lines[first].indent
	var value []byte
	for range first - (i + 1) {
		value = append(value, '\n')
	}
	empty, next := 0, first
	for ; next < r.end; next++ {
		line := r.lines[next]
		if line.tab {
			r.fail() // yaml.v3 refuses a tab in some blocks' indentation
			return nil, i
		}
		if r.spacesOnly(next) {
			if line.end-line.start > block {
				r.fail() // spaces past the indent are text
				return nil, i
			}
			empty++
			continue
		}
		if line.indent < block {
			break
		}
		for ; empty > 0; empty-- {
			value = append(value, '\n')
		}
		value = append(value, src[line.start+block:line.end]...)
		if line.end < len(src) {
			value = append(value, '\n') // not when the stream ends without one
		}
	}
	switch chomp {
	case '-':
		value = bytes.TrimSuffix(value, []byte("\n"))
	case '+':
		if r.lines[next-1].end == len(src) {
			r.fail() // kept empty lines that the stream ends in
			return nil, i
		}
		for ; empty > 0; empty-- {
			value = append(value, '\n')
		}
	}
	node := r.newNode(yaml.ScalarNode, "!!str", i, p)
	node.Style, node.Value = yaml.LiteralStyle, string(value)
	return node, next
}

// spacesOnly reports whether line i holds nothing but spaces.
func (r *simpleReader) spacesOnly(i int) bool {
	l := r.lines[i]
	return l.indent == l.end-l.start
}

// flow reads the flow collection that opens at byte p of line i and ends
// on it; it returns the byte after its closing bracket.
func (r *simpleReader) flow(i, p, depth int) (*yaml.Node, int) {
	if depth > maxSimpleDepth {
		r.fail()
		return nil, p
	}
	l := r.lines[i]
	src := r.src
	closing, kind, tag := byte(']'), yaml.SequenceNode, "!!seq"
	if src[p] == '{' {
		closing, kind, tag = '}', yaml.MappingNode, "!!map"
	}
	node := r.newNode(kind, tag, i, p)
	node.Style = yaml.FlowStyle
	q := r.skipSpaces(p+1, l.end)
	if q < l.end && src[q] == closing {
		return node, q + 1
	}
	for !r.failed {
		var entry *yaml.Node
		keyStart := q
		entry, q = r.flowScalarOrCollection(i, q, depth)
		if r.failed {
			break
		}
		q = r.skipSpaces(q, l.end)
		if kind == yaml.MappingNode {
			if entry.Kind != yaml.ScalarNode || q+1 >= l.end || src[q] != ':' || src[q+1] != ' ' ||
				entry.Style == 0 && entry.Value == "<<" || q-keyStart > maxSimpleKey {
				r.fail()
				break
			}
			var value *yaml.Node
			value, q = r.flowScalarOrCollection(i, r.skipSpaces(q+1, l.end), depth)
			if r.failed {
				break
			}
			node.Content = append(node.Content, entry, value)
			q = r.skipSpaces(q, l.end)
		} else {
			node.Content = append(node.Content, entry)
		}
		switch {
		case q < l.end && src[q] == ',':
			q = r.skipSpaces(q+1, l.end)
			if q >= l.end || src[q] == closing {
				r.fail() // a trailing comma
			}
		case q < l.end && src[q] == closing:
			return node, q + 1
		default:
			r.fail()
		}
	}
	return nil, q
}

// flowScalarOrCollection reads the scalar or collection at byte p of line
// i inside a flow collection, and returns the byte after it.
func (r *simpleReader) flowScalarOrCollection(i, p, depth int) (*yaml.Node, int) {
	l := r.lines[i]
	src := r.src
	if p >= l.end {
		r.fail()
		return nil, p
	}
	switch c := src[p]; {
	case c == '{' || c == '[':
		return r.flow(i, p, depth+1)
	case c == '"' || c == '\'':
		value, q, ok := r.quoted(i, p)
		if !ok {
			r.fail()
			return nil, p
		}
		node := r.newNode(yaml.ScalarNode, "!!str", i, p)
		node.Value = value
		node.Style = yaml.SingleQuotedStyle
		if c == '"' {
			node.Style = yaml.DoubleQuotedStyle
		}
		return node, q
	case !r.plainStart(i, p):
		r.fail()
		return nil, p
	}
	q := p
	for ; q < l.end; q++ {
		c := src[q]
		if c == ',' || c == '[' || c == ']' || c == '{' || c == '}' {
			break
		}
		if c == ':' {
			if q+1 < l.end && src[q+1] == ' ' {
				break
			}
			r.fail() // "a:b" in a flow collection is read in more than one way
			return nil, p
		}
		if c == '?' || c == '#' && src[q-1] == ' ' {
			r.fail() // yaml.v3 ends a plain scalar at "?" in a flow collection
			return nil, p
		}
	}
	end := q
	for end > p && src[end-1] == ' ' {
		end--
	}
	node := r.newNode(yaml.ScalarNode, "", i, p)
	node.Value = string(src[p:end])
	node.Tag = plainTag(node.Value)
	if node.Value == "<<" {
		r.fail()
	}
	return node, q
}
