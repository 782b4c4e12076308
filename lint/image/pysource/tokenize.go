package pysource

import (
	"bytes"
	"errors"
	"fmt"
)

// A hand-written tokenizer, not a library: the maintained pure-Go Python
// parsers (github.com/go-python/gpython v0.2.0) implement the Python 3.4
// grammar and reject f-strings, the walrus operator, match statements and
// PEP 701's nested quotes, all common in today's serving code; tree-sitter
// needs cgo, which the release build does not use. Imports need only the
// token stream, so this follows Lib/tokenize.py's rules for what can hide an
// "import" word (strings, comments, brackets) and where a logical line ends.

// Limits keep a hostile file from costing memory or time: real modules are
// far below them (CPython itself refuses more than 200 nested brackets).
const (
	// MaxSource is the largest source read.
	MaxSource = 2 << 20
	// maxNesting bounds brackets and f-string replacement fields together.
	maxNesting = 200
)

// Kind is a token's kind.
type Kind int

const (
	Name Kind = iota + 1
	Op
	String
	Number
)

// Token is one token of a logical line.
type Token struct {
	Kind Kind
	Text string // the name or operator; strings and numbers are not kept
	Line int    // 1-based
}

// Line is one logical line: the tokens of a statement (or of a compound
// statement's header and the simple statements after its colon), which may
// span physical lines inside brackets or after a backslash.
type Line struct {
	Tokens []Token
	// Indent is the width of the first physical line's indentation; 0 is
	// the module's top level.
	Indent int
	// Start is the 1-based physical line the logical line starts on.
	Start int
}

// ErrTooLarge says a source is over MaxSource.
var ErrTooLarge = fmt.Errorf("larger than %d MiB", MaxSource>>20)

// Tokenize splits Python source into logical lines.
func Tokenize(src []byte) ([]Line, error) {
	if len(src) > MaxSource {
		return nil, ErrTooLarge
	}
	// A UTF-8 byte order mark may start a source file (PEP 263).
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	t := &tokenizer{src: src, line: 1}
	return t.run()
}

type tokenizer struct {
	src   []byte
	pos   int
	line  int
	depth int // open brackets
}

func (t *tokenizer) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", t.line, fmt.Sprintf(format, args...))
}

func (t *tokenizer) run() ([]Line, error) {
	var lines []Line
	var current *Line
	atLineStart := true
	indent := 0
	for t.pos < len(t.src) {
		c := t.src[t.pos]
		if atLineStart {
			// Measure the indentation of a physical line that starts a
			// logical one; blank and comment-only lines do not count.
			indent = 0
			for t.pos < len(t.src) && (t.src[t.pos] == ' ' || t.src[t.pos] == '\t' || t.src[t.pos] == '\f') {
				indent++
				t.pos++
			}
			atLineStart = false
			continue
		}
		switch {
		case c == '\n':
			t.pos++
			t.line++
			if t.depth == 0 {
				if current != nil {
					lines = append(lines, *current)
					current = nil
				}
				atLineStart = true
			}
		case c == '\r':
			t.pos++
			if t.pos < len(t.src) && t.src[t.pos] == '\n' {
				continue
			}
			t.line++
			if t.depth == 0 {
				if current != nil {
					lines = append(lines, *current)
					current = nil
				}
				atLineStart = true
			}
		case c == ' ' || c == '\t' || c == '\f':
			t.pos++
		case c == '#':
			for t.pos < len(t.src) && t.src[t.pos] != '\n' && t.src[t.pos] != '\r' {
				t.pos++
			}
		case c == '\\':
			// A line continuation: the next physical line goes on this
			// logical one.
			t.pos++
			if t.pos < len(t.src) && t.src[t.pos] == '\r' {
				t.pos++
			}
			if t.pos >= len(t.src) || t.src[t.pos] != '\n' {
				if t.pos >= len(t.src) {
					return nil, t.errorf("unexpected end of file after a line continuation")
				}
				if t.src[t.pos-1] != '\r' {
					return nil, t.errorf("unexpected character after a line continuation")
				}
				t.line++
				continue
			}
			t.pos++
			t.line++
		default:
			token, err := t.next()
			if err != nil {
				return nil, err
			}
			if current == nil {
				current = &Line{Indent: indent, Start: token.Line}
			}
			current.Tokens = append(current.Tokens, token)
		}
	}
	if t.depth > 0 {
		return nil, t.errorf("unexpected end of file inside brackets")
	}
	if current != nil {
		lines = append(lines, *current)
	}
	return lines, nil
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isNameChar(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

// next reads the token at pos: a name, a string (with its prefix), a
// number or an operator.
func (t *tokenizer) next() (Token, error) {
	start, line := t.pos, t.line
	c := t.src[t.pos]
	switch {
	case isNameStart(c):
		for t.pos < len(t.src) && isNameChar(t.src[t.pos]) {
			t.pos++
		}
		word := string(t.src[start:t.pos])
		if t.pos < len(t.src) && (t.src[t.pos] == '\'' || t.src[t.pos] == '"') {
			if prefix, ok := stringPrefix(word); ok {
				if err := t.readString(prefix, 0); err != nil {
					return Token{}, err
				}
				return Token{Kind: String, Line: line}, nil
			}
		}
		return Token{Kind: Name, Text: word, Line: line}, nil
	case c == '\'' || c == '"':
		if err := t.readString(stringFlags{}, 0); err != nil {
			return Token{}, err
		}
		return Token{Kind: String, Line: line}, nil
	case c >= '0' && c <= '9' || c == '.' && t.pos+1 < len(t.src) && t.src[t.pos+1] >= '0' && t.src[t.pos+1] <= '9':
		t.readNumber()
		return Token{Kind: Number, Line: line}, nil
	}
	op, err := t.readOperator()
	if err != nil {
		return Token{}, err
	}
	return Token{Kind: Op, Text: op, Line: line}, nil
}

// stringFlags are what a string's prefix changes in how it is read.
type stringFlags struct {
	raw, formatted bool
}

// stringPrefix reads a string prefix, any case: r, u, b, f, t (3.14) and
// the pairs br, fr, tr in either order (Lib/tokenize.py's
// _all_string_prefixes).
func stringPrefix(word string) (stringFlags, bool) {
	lower := make([]byte, len(word))
	for i := 0; i < len(word); i++ {
		lower[i] = word[i] | 0x20
	}
	switch string(lower) {
	case "r":
		return stringFlags{raw: true}, true
	case "u", "b":
		return stringFlags{}, true
	case "f", "t":
		return stringFlags{formatted: true}, true
	case "br", "rb":
		return stringFlags{raw: true}, true
	case "fr", "rf", "tr", "rt":
		return stringFlags{raw: true, formatted: true}, true
	}
	return stringFlags{}, false
}

// readString reads a string literal starting at its opening quote. In an
// f-string the replacement fields are read as code, so a nested string
// with the same quotes (PEP 701) does not end the outer one.
func (t *tokenizer) readString(flags stringFlags, nesting int) error {
	quote := t.src[t.pos]
	triple := t.pos+2 < len(t.src) && t.src[t.pos+1] == quote && t.src[t.pos+2] == quote
	startLine := t.line
	if triple {
		t.pos += 3
	} else {
		t.pos++
	}
	for t.pos < len(t.src) {
		c := t.src[t.pos]
		switch {
		case c == '\\':
			// Even in a raw string a backslash keeps the next quote from
			// ending the literal.
			t.pos++
			if t.pos < len(t.src) {
				if t.src[t.pos] == '\n' {
					t.line++
				}
				t.pos++
			}
		case c == quote:
			if !triple {
				t.pos++
				return nil
			}
			if t.pos+2 < len(t.src) && t.src[t.pos+1] == quote && t.src[t.pos+2] == quote {
				t.pos += 3
				return nil
			}
			t.pos++
		case c == '\n' || c == '\r':
			if !triple {
				return t.errorf("unterminated string literal (started on line %d)", startLine)
			}
			if c == '\n' {
				t.line++
			}
			t.pos++
		case flags.formatted && c == '{':
			if t.pos+1 < len(t.src) && t.src[t.pos+1] == '{' {
				t.pos += 2
				continue
			}
			t.pos++
			if err := t.readReplacementField(nesting + 1); err != nil {
				return err
			}
		default:
			t.pos++
		}
	}
	return t.errorf("unterminated string literal (started on line %d)", startLine)
}

// readReplacementField reads an f-string's {expression!conversion:spec}
// after its opening brace, up to and including the closing one.
func (t *tokenizer) readReplacementField(nesting int) error {
	if nesting > maxNesting {
		return t.errorf("more than %d nested brackets or f-string fields", maxNesting)
	}
	depth := 0
	for t.pos < len(t.src) {
		c := t.src[t.pos]
		switch {
		case c == '\'' || c == '"':
			if err := t.readString(stringFlags{}, nesting); err != nil {
				return err
			}
			continue
		case isNameStart(c):
			startName := t.pos
			for t.pos < len(t.src) && isNameChar(t.src[t.pos]) {
				t.pos++
			}
			if t.pos < len(t.src) && (t.src[t.pos] == '\'' || t.src[t.pos] == '"') {
				if prefix, ok := stringPrefix(string(t.src[startName:t.pos])); ok {
					if err := t.readString(prefix, nesting); err != nil {
						return err
					}
				}
			}
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
			if nesting+depth > maxNesting {
				return t.errorf("more than %d nested brackets or f-string fields", maxNesting)
			}
		case c == ')' || c == ']':
			depth--
		case c == '}':
			if depth == 0 {
				t.pos++
				return nil
			}
			depth--
		case c == '\n':
			t.line++
		case c == ':' && depth == 0 && !(t.pos+1 < len(t.src) && t.src[t.pos+1] == '='):
			// The format spec: literal text with nested fields.
			t.pos++
			return t.readFormatSpec(nesting)
		case c == '#':
			return t.errorf("f-string expression part cannot include '#'")
		}
		t.pos++
	}
	return t.errorf("unterminated f-string replacement field")
}

// readFormatSpec reads an f-string field's format spec up to the field's
// closing brace; a nested {field} is code again.
func (t *tokenizer) readFormatSpec(nesting int) error {
	for t.pos < len(t.src) {
		switch c := t.src[t.pos]; c {
		case '{':
			t.pos++
			if err := t.readReplacementField(nesting + 1); err != nil {
				return err
			}
			continue
		case '}':
			t.pos++
			return nil
		case '\n':
			t.line++
		}
		t.pos++
	}
	return t.errorf("unterminated f-string format spec")
}

func (t *tokenizer) readNumber() {
	for t.pos < len(t.src) {
		c := t.src[t.pos]
		switch {
		case isNameChar(c) || c == '.':
			t.pos++
		case (c == '+' || c == '-') && (t.src[t.pos-1]|0x20) == 'e' && !isHex(t.src[:t.pos]):
			t.pos++
		default:
			return
		}
	}
}

// isHex says the number being read is hexadecimal, where e is a digit.
func isHex(number []byte) bool {
	for i := len(number) - 1; i > 0; i-- {
		if !isNameChar(number[i]) && number[i] != '.' {
			number = number[i+1:]
			break
		}
	}
	return len(number) > 1 && number[0] == '0' && (number[1]|0x20) == 'x'
}

// operators are Python's, longest first so "**=" wins over "**".
var operators = []string{
	"**=", "//=", ">>=", "<<=", "...", "!=", "%=", "&=", "**", "*=", "+=", "-=", "->", "//", "/=", ":=", "<<", "<=",
	"==", ">=", ">>", "@=", "^=", "|=", "!", "%", "&", "(", ")", "*", "+", ",", "-", ".", "/", ":", ";", "<", "=", ">",
	"@", "[", "]", "^", "{", "|", "}", "~",
}

var errClosing = errors.New("closing bracket without an opening one")

func (t *tokenizer) readOperator() (string, error) {
	for _, op := range operators {
		if len(t.src)-t.pos < len(op) || string(t.src[t.pos:t.pos+len(op)]) != op {
			continue
		}
		switch op {
		case "(", "[", "{":
			if t.depth++; t.depth > maxNesting {
				return "", t.errorf("more than %d nested brackets", maxNesting)
			}
		case ")", "]", "}":
			if t.depth == 0 {
				return "", t.errorf("%v", errClosing)
			}
			t.depth--
		}
		t.pos += len(op)
		return op, nil
	}
	return "", t.errorf("invalid character %q", t.src[t.pos])
}
