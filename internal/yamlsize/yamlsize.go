// Package yamlsize measures a YAML stream before it is parsed: how many
// documents it holds and, for each, at least as many values as a parser
// makes of it. A parser holds a document whole as a tree of ~200 bytes a
// value, so a bound on the values bounds what parsing may cost.
package yamlsize

import "bytes"

// Size is what a stream holds.
type Size struct {
	// Documents counts the documents, as a parser counts them: every
	// "---", and content before the first or after a "...".
	Documents int
	// Largest is the values of the document with the most, and Document
	// its index (0-based). Values are scalars, mappings, sequences,
	// aliases and the nulls a key or item without a value stands for; the
	// count may be up to twice what a parser makes (a block mapping's line
	// counts as one more), never fewer.
	Largest, Document int
	// Total is the values of all documents.
	Total int
}

// Measure scans a YAML stream once, without parsing it.
func Measure(source []byte) Size {
	var m measurer
	m.measure(source)
	return m.size
}

// measurer counts the values of a stream a line at a time. It follows
// what decides where values start (indicators, quotes, block scalars,
// comments, flow collections) but not the grammar: text a parser rejects
// is counted too, and what cannot be told apart is counted as the larger.
type measurer struct {
	size    Size
	open    bool // the current document is counted
	current int  // its values

	// A quoted scalar may span lines: quote is its quote character.
	quote byte
	// A block scalar's lines are one value: blockParent is the indentation
	// of the line that started it, blockIndent that of its first line
	// (-1 until one is seen); block says one is open.
	block                    bool
	blockParent, blockIndent int
	// flow holds the open flow collections, innermost last.
	flow []flowLevel
	// pending is an indicator (':', '-', '?', ',') whose value has not
	// started yet: a null unless one does.
	pending bool
	// A block collection starts on a line more indented than the one
	// before, on a "- " line under a key at the same indentation, or after
	// a "- " or "? " on its line: lastIndent and lastDash are of the
	// document's last content line in block context, lineDash says the
	// line has had a "- " or "? ".
	lastIndent         int
	lastDash, lineDash bool
}

func (m *measurer) measure(source []byte) {
	start := 0
	if bytes.HasPrefix(source, []byte("\ufeff")) {
		start = 3 // a byte order mark
	}
	for i := start; i < len(source); {
		for i < len(source) && !breakStart[source[i]] {
			i++
		}
		if i == len(source) {
			break
		}
		n := lineBreak(source[i:])
		if n == 0 {
			i++
			continue
		}
		m.line(source[start:i])
		i += n
		start = i
	}
	if start < len(source) {
		m.line(source[start:])
	}
	m.flushPending()
}

// breakStart and plain are tables of the bytes that may start a line
// break, and of those that may end a plain scalar or start something
// else in one: the bytes between are skipped at once.
var breakStart, plain [256]bool

func init() {
	for _, c := range []byte{'\n', '\r', 0xc2, 0xe2} {
		breakStart[c] = true
	}
	for _, c := range []byte{' ', '\t', '#', ':', '-', '?', ',', '[', ']', '{', '}'} {
		plain[c] = true
	}
}

// lineBreak is the length of the line break text starts with, 0 when it
// starts with none: the parser breaks lines at CR, LF, CR LF, and the
// Unicode NEL, LS and PS.
func lineBreak(text []byte) int {
	switch {
	case text[0] == '\r' && len(text) > 1 && text[1] == '\n':
		return 2
	case text[0] == '\n' || text[0] == '\r':
		return 1
	case text[0] == 0xc2 && len(text) > 1 && text[1] == 0x85:
		return 2
	case text[0] == 0xe2 && len(text) > 2 && text[1] == 0x80 && (text[2] == 0xa8 || text[2] == 0xa9):
		return 3
	}
	return 0
}

// count adds n values to the current document, opening it first when it
// is an implicit one.
func (m *measurer) count(n int) {
	if !m.open {
		m.startDocument()
	}
	m.current += n
	m.size.Total += n
	if m.current > m.size.Largest {
		m.size.Largest, m.size.Document = m.current, m.size.Documents-1
	}
}

func (m *measurer) startDocument() {
	m.size.Documents++
	m.open, m.current = true, 0
	m.lastIndent, m.lastDash = -2, false
	m.count(1) // the root, a null when nothing follows
	m.quote, m.block, m.flow, m.pending = 0, false, m.flow[:0], false
}

// marker reports whether a line is a document marker: "---" or "..."
// followed by a blank or the end of the line. No content may start so,
// not even inside a quoted or block scalar.
func marker(line []byte, c byte) bool {
	return len(line) >= 3 && line[0] == c && line[1] == c && line[2] == c && (len(line) == 3 || blank(line[3]))
}

func blank(c byte) bool { return c == ' ' || c == '\t' }

func (m *measurer) line(line []byte) {
	switch {
	case marker(line, '-'):
		m.flushPending()
		m.open = false
		m.startDocument()
		rest := line[3:]
		for len(rest) > 0 && blank(rest[0]) {
			rest = rest[1:]
		}
		m.content(rest, -1)
		return
	case marker(line, '.'):
		m.flushPending()
		m.open, m.quote, m.block = false, 0, false
		return
	}
	indent := 0
	for indent < len(line) && line[indent] == ' ' {
		indent++
	}
	rest := line[indent:]
	empty := len(rest) == 0
	if m.block {
		if empty {
			return
		}
		if m.blockIndent < 0 && indent > m.blockParent {
			m.blockIndent = indent
		}
		if m.blockIndent >= 0 && indent >= m.blockIndent {
			return
		}
		m.block = false
	}
	if m.quote != 0 {
		m.scan(rest, indent)
		return
	}
	body := bytes.TrimLeft(rest, " \t")
	if len(body) == 0 || body[0] == '#' || (body[0] == '%' && indent == 0 && !m.open) {
		return // blank, a comment, a directive
	}
	m.content(body, indent)
}

// content counts the values of a line's content, after its indentation
// (indent -1 for the content after a "---").
func (m *measurer) content(rest []byte, indent int) {
	m.lineDash = false
	if !m.open && len(rest) > 0 && rest[0] != '#' {
		m.startDocument()
	}
	if len(m.flow) == 0 && len(rest) > 0 && rest[0] != '#' {
		m.flushPending()
		dash := (rest[0] == '-' || rest[0] == '?') && (len(rest) == 1 || blank(rest[1]))
		if indent > m.lastIndent || dash && !m.lastDash && indent == m.lastIndent {
			m.count(1) // a block mapping or sequence starts here
		}
		m.lastIndent, m.lastDash = indent, dash
	}
	m.scan(rest, indent)
}

// flushPending counts the null an indicator left without a value.
func (m *measurer) flushPending() {
	if m.pending {
		m.pending = false
		m.count(1)
	}
}

// flowLevel is an open flow collection. In a mapping, key says the next
// value is a key, and keyOpen that a key has had no ':' yet: its value is
// a null unless one follows.
type flowLevel struct {
	mapping, key, keyOpen bool
}

// node counts a value that starts: a scalar, an alias, a collection or a
// block scalar.
func (m *measurer) node() {
	m.pending = false
	if len(m.flow) > 0 {
		if top := &m.flow[len(m.flow)-1]; top.mapping && top.key {
			top.key, top.keyOpen = false, true
		}
	}
	m.count(1)
}

// closeKey counts the null value of a flow mapping's key without a ':'.
func (m *measurer) closeKey() {
	if top := &m.flow[len(m.flow)-1]; top.keyOpen {
		top.keyOpen = false
		m.count(1)
	}
}

// scan counts the values that start in the rest of a line. atStart says
// a value may start at the next character: after indentation, an
// indicator and a blank, a flow indicator, a tag or an anchor.
func (m *measurer) scan(rest []byte, indent int) {
	atStart := true
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if m.quote != 0 {
			switch {
			case m.quote == '"' && c == '\\':
				i++
			case c == m.quote && m.quote == '\'' && i+1 < len(rest) && rest[i+1] == '\'':
				i++
			case c == m.quote:
				m.quote = 0
				atStart = false
				// A ':' right after a quoted key is an indicator even
				// without a blank after it ("a":1).
				if i+1 < len(rest) && rest[i+1] == ':' {
					m.indicator(':')
					i++
					atStart = true
				}
			}
			continue
		}
		if !atStart && !plain[c] {
			continue // inside a plain scalar
		}
		next := byte(' ')
		if i+1 < len(rest) {
			next = rest[i+1]
		}
		inFlow := len(m.flow) > 0
		switch {
		case blank(c):
			continue
		case c == '#' && (i == 0 || blank(rest[i-1])):
			return
		case (c == '-' || c == '?' || c == ':') && (blank(next) || i+1 == len(rest) || inFlow && (next == ',' || next == ']' || next == '}')):
			if c == '-' && !atStart {
				continue // inside a plain scalar
			}
			m.indicator(c)
			atStart = true
		case c == ',' && inFlow:
			m.indicator(c)
			atStart = true
		case c == '[' || c == '{':
			if !atStart && !inFlow {
				continue
			}
			m.node()
			m.flow = append(m.flow, flowLevel{mapping: c == '{', key: c == '{'})
			atStart = true
		case (c == ']' || c == '}') && inFlow:
			m.flushPending()
			m.closeKey()
			m.flow = m.flow[:len(m.flow)-1]
			atStart = false
		case !atStart:
			// inside a plain scalar, an alias, or after a closing bracket
		case c == '&' || c == '!':
			// A property (anchor or tag): the value follows it. It ends at
			// a ':' too, which may be an indicator (an anchored empty key).
			for i+1 < len(rest) && !blank(rest[i+1]) && rest[i+1] != ':' && !(inFlow && (rest[i+1] == ',' || rest[i+1] == ']' || rest[i+1] == '}')) {
				i++
			}
		case c == '"' || c == '\'':
			m.node()
			m.quote = c
		case (c == '|' || c == '>') && !inFlow:
			m.node()
			m.block, m.blockParent, m.blockIndent = true, indent, -1
			return // the header's indicators and comment
		default:
			m.node() // a plain scalar or an alias
			atStart = false
		}
	}
}

// indicator counts what ':', '-', '?' or ',' stands for: in a flow
// sequence, "a: b" is a mapping of its own; in a flow mapping, ',' starts
// the next key.
func (m *measurer) indicator(c byte) {
	m.flushPending()
	if len(m.flow) > 0 {
		top := &m.flow[len(m.flow)-1]
		switch {
		case c == ':' && !top.mapping:
			m.count(1)
		case c == ':':
			top.key, top.keyOpen = false, false
		case c == ',':
			m.closeKey()
			top.key = top.mapping
			return // a trailing ',' stands for no value
		}
	}
	switch {
	case len(m.flow) > 0:
	case c == '-' || c == '?':
		if m.lineDash {
			m.count(1) // "- - a": a sequence in the item
		}
		m.lineDash = true
	case c == ':' && m.lineDash:
		m.count(1) // "- a: b": a mapping in the item
	}
	if c == '?' {
		m.count(1) // the value of an explicit key, null when no ':' follows
	}
	m.pending = true
}
