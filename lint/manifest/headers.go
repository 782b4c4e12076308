package manifest

import (
	"strings"
)

// Header is what a document says it is, and where it is in its stream.
type Header struct {
	APIVersion, Kind, Name, Namespace string
	// Start and End are the document's bytes in the stream.
	Start, End int
}

// ReadHeaders reads each document's header off the text of a stream of
// block-style YAML, as kubectl and Helm write it, without parsing the rest:
// a tenth of a parse. ok is false when a document is in a form it does not
// read (JSON, a quoted or complex key, a tag or anchor where it reads, a
// directive, a metadata: that is neither a block nor a one-line flow
// mapping), and then only Load knows. What it reads is what Load would for
// the documents it reads; a caller that acts on it checks it against Load.
//
// The headers' strings share one copy of the source: a caller keeps a
// clone of what it keeps.
func ReadHeaders(source []byte) (headers []Header, ok bool) {
	text := string(source)
	if otherLineBreak(text) {
		return nil, false
	}
	doc := headerScan{metadataIndent: -1}
	start := 0
	for offset := 0; offset < len(text); {
		end := strings.IndexByte(text[offset:], '\n')
		next := len(text)
		if end >= 0 {
			end += offset
			next = end + 1
		} else {
			end = len(text)
		}
		line := strings.TrimSuffix(text[offset:end], "\r")
		if rest, marker := strings.CutPrefix(line, "---"); marker && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			if !blankOrComment(rest) {
				return nil, false
			}
			if !doc.finish(start, offset, &headers) {
				return nil, false
			}
			doc, start = headerScan{metadataIndent: -1}, next
		} else if !doc.line(line) {
			return nil, false
		}
		offset = next
	}
	if !doc.finish(start, len(text), &headers) {
		return nil, false
	}
	return headers, true
}

// otherLineBreak says text breaks a line where ReadHeaders would not: at
// a carriage return not before a line feed (or the end), or at NEL, LS or
// PS, which YAML 1.1 reads as line breaks too. Such a file is the
// parser's. Each is searched for in the whole text at once, by the
// runtime's byte search, not rune by rune in each line.
func otherLineBreak(text string) bool {
	for rest := text; ; {
		i := strings.IndexByte(rest, '\r')
		if i < 0 {
			break
		}
		if i+1 < len(rest) && rest[i+1] != '\n' {
			return true
		}
		rest = rest[i+1:]
	}
	return strings.Contains(text, "\u0085") || strings.Contains(text, "\u2028") || strings.Contains(text, "\u2029")
}

// headerScan is one document's header as its lines are read.
type headerScan struct {
	header Header
	// seen are the headerKeys read.
	seen    uint8
	content bool
	// inMetadata says the lines read are metadata:'s block, whose keys
	// are metadataIndent spaces in (-1 until its first key).
	inMetadata     bool
	metadataIndent int
	// read says the last line was one of the header's scalars, which a
	// line indented below it would go on.
	read bool
}

// line reads one line of the document; false when it is in a form
// ReadHeaders does not read.
func (s *headerScan) line(line string) bool {
	if blankOrComment(line) {
		return true
	}
	s.content = true
	if line[0] == ' ' {
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if s.read && (!s.inMetadata || indent > s.metadataIndent) {
			return false
		}
		if !s.inMetadata {
			return true // inside another top-level value
		}
		if s.metadataIndent < 0 {
			s.metadataIndent = indent
		}
		switch {
		case indent < s.metadataIndent:
			return false
		case indent > s.metadataIndent:
			return true // a value of metadata's (labels, annotations)
		}
		key, value, ok := headerKeyValue(line[indent:])
		if !ok {
			return false
		}
		return s.metadataField(key, value)
	}
	s.inMetadata, s.read = false, false
	key, value, ok := headerKeyValue(line)
	if !ok {
		return false
	}
	switch key {
	case "apiVersion":
		return s.set(key, value, &s.header.APIVersion)
	case "kind":
		return s.set(key, value, &s.header.Kind)
	case "metadata":
		switch {
		case !s.first(key):
			return false
		case blankOrComment(value):
			s.inMetadata = true
			return true
		}
		ok := s.flowMetadata(value)
		s.read = true // a line below, indented, would go on with it
		return ok
	}
	// Another top-level key: its value may go on over the lines below,
	// indented, or be a flow collection or quoted scalar on this one.
	return !strings.ContainsAny(value, "{[\"'") || balancedFlow(value)
}

// metadataField reads one key of metadata.
func (s *headerScan) metadataField(key, value string) bool {
	s.read = false
	switch key {
	case "name":
		return s.set("metadata.name", value, &s.header.Name)
	case "namespace":
		return s.set("metadata.namespace", value, &s.header.Namespace)
	}
	return true
}

// set reads a plain scalar of the header, seen first under key, into field.
func (s *headerScan) set(key, value string, field *string) bool {
	text, ok := plainScalar(value)
	if !ok || !s.first(key) {
		return false
	}
	*field, s.read = text, true
	return true
}

// flowMetadata reads a one-line `metadata: {name: x, namespace: y, …}`.
func (s *headerScan) flowMetadata(value string) bool {
	value = strings.TrimSpace(value)
	if strings.ContainsAny(value, "\"'#&*!") || !strings.HasPrefix(value, "{") || !strings.HasSuffix(value, "}") ||
		!balancedFlow(value) {
		return false
	}
	inner := value[1 : len(value)-1]
	depth, from := 0, 0
	for i := 0; i <= len(inner); i++ {
		if i < len(inner) {
			switch inner[i] {
			case '{', '[':
				depth++
				continue
			case '}', ']':
				depth--
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		entry := strings.TrimSpace(inner[from:i])
		from = i + 1
		if entry == "" {
			continue
		}
		key, rest, found := strings.Cut(entry, ": ")
		if !found || !plainKey(strings.TrimSpace(key)) {
			return false
		}
		if !s.metadataField(strings.TrimSpace(key), rest) {
			return false
		}
	}
	return true
}

// headerKeys are the keys a header is read from, each a bit of
// headerScan.seen.
var headerKeys = map[string]uint8{"apiVersion": 1, "kind": 2, "metadata": 4, "metadata.name": 8, "metadata.namespace": 16}

// first says key was not seen in the document before: a second one is
// for Load to judge.
func (s *headerScan) first(key string) bool {
	bit := headerKeys[key]
	if s.seen&bit != 0 {
		return false
	}
	s.seen |= bit
	return true
}

// finish adds the document's header, if it has content; false when it
// says nothing of what it is.
func (s *headerScan) finish(start, end int, headers *[]Header) bool {
	if !s.content {
		return true
	}
	if s.header.Kind == "" || s.header.APIVersion == "" {
		return false
	}
	s.header.Start, s.header.End = start, end
	*headers = append(*headers, s.header)
	return true
}

// headerKeyValue splits `key: value` (or `key:`) with a plain key.
func headerKeyValue(line string) (key, value string, ok bool) {
	key, value, found := strings.Cut(line, ":")
	if !found || !plainKey(key) || (value != "" && value[0] != ' ' && value[0] != '\t') {
		return "", "", false
	}
	return key, value, true
}

// plainKey is a key of letters, digits, '_', '-', '.' and '/'.
func plainKey(key string) bool {
	if key == "" {
		return false
	}
	for _, r := range key {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' || r == '.' || r == '/') {
			return false
		}
	}
	return true
}

// plainScalar is a value that is a string as YAML reads it, plain or
// quoted with nothing to unescape, with a comment after it dropped; false
// for anything else (a tag, an anchor, a block, a flow collection, empty,
// null, a value a YAML 1.1 reader would take for a number or a bool).
func plainScalar(value string) (string, bool) {
	if quoted := strings.TrimLeft(value, " "); quoted != "" && (quoted[0] == '"' || quoted[0] == '\'') {
		return quotedScalar(quoted)
	}
	if i := strings.Index(value, " #"); i >= 0 {
		value = value[:i]
	}
	value = strings.TrimSpace(value)
	if value == "" || strings.ContainsAny(value[:1], "\"'&*!|>{}[]%@`#,?-:") || strings.Contains(value, ": ") ||
		strings.ContainsAny(value, "\t") || strings.HasSuffix(value, ":") {
		return "", false
	}
	// A name starts with a letter; a number, a bool or null is left to Load.
	switch strings.ToLower(value) {
	case "null", "true", "false", "yes", "no", "on", "off", "y", "n", "~":
		return "", false
	}
	if c := value[0]; '0' <= c && c <= '9' || c == '.' || c == '+' {
		return "", false
	}
	return value, true
}

// quotedScalar is a quoted value with nothing to unescape ("name",
// 'name'), and a comment after it dropped; false for anything else.
func quotedScalar(value string) (string, bool) {
	end := strings.IndexByte(value[1:], value[0]) + 1
	if end <= 1 {
		return "", false
	}
	text, rest := value[1:end], value[end+1:]
	if strings.ContainsFunc(text, func(r rune) bool { return r == '\\' || r < ' ' || r == 0x7f }) ||
		(rest != "" && rest[0] != ' ' && rest[0] != '\t') || !blankOrComment(rest) {
		return "", false
	}
	return text, true
}

// blankOrComment says a line holds nothing but spaces and a comment.
func blankOrComment(line string) bool {
	line = strings.TrimLeft(line, " \t")
	return line == "" || line[0] == '#'
}

// balancedFlow says the brackets and quotes of a value close on its line.
func balancedFlow(value string) bool {
	depth := 0
	var quote byte
	for i := 0; i < len(value); i++ {
		c := value[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth < 0 {
				return false
			}
		case c == '#' && i > 0 && value[i-1] == ' ' && depth == 0:
			return true
		}
	}
	return depth == 0 && quote == 0
}
