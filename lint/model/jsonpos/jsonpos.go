// Package jsonpos parses a JSON document into values that keep the line
// each starts on, so that findings about a server's JSON config file
// (OVMS config.json, MLServer model-settings.json) point at the entry a
// user edits. Parsing is strict JSON and bounded in size and depth.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Kind is the type of a JSON value.
type Kind int

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	switch k {
	case Bool:
		return "a boolean"
	case Number:
		return "a number"
	case String:
		return "a string"
	case Array:
		return "an array"
	case Object:
		return "an object"
	}
	return "null"
}

// Value is one JSON value and the 1-based line it starts on.
type Value struct {
	Kind Kind
	Line int
	// Text is a string's value, or a number as written.
	Text string
	Bool bool
	// Members are an object's members in file order (duplicates kept);
	// Items an array's elements.
	Members []Member
	Items   []*Value
}

// Member is one key of an object and its value.
type Member struct {
	Key     string
	KeyLine int
	Value   *Value
}

// Get returns the value of the first member named key, nil when there is
// none or v is not an object.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for _, member := range v.Members {
		if member.Key == key {
			return member.Value
		}
	}
	return nil
}

// List returns an array's elements; nil for any other value (nil too).
func (v *Value) List() []*Value {
	if v == nil || v.Kind != Array {
		return nil
	}
	return v.Items
}

// Literal returns a string's or a number's Text; "" for any other value
// (nil too).
func (v *Value) Literal() string {
	if v == nil || v.Kind != String && v.Kind != Number {
		return ""
	}
	return v.Text
}

// GetLast returns the value of the last member named key: what a parser
// that keeps the last of duplicate keys (Python's json) reads.
func (v *Value) GetLast(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// Limits of one document.
const (
	// MaxSize bounds the bytes parsed; servers' JSON configs are a few KiB.
	MaxSize = 4 << 20
	// MaxDepth bounds the nesting of arrays and objects.
	MaxDepth = 64
)

// Error is a document that is not valid JSON, with the line it fails on
// (0 when the failure is not at a place, as for an empty document).
type Error struct {
	Line   int
	Reason string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Reason)
	}
	return e.Reason
}

// Parse reads one JSON document. Anything but whitespace after it is an
// error, as it is for strict parsers (rapidjson, Python's json).
func Parse(data []byte) (*Value, error) {
	if len(data) > MaxSize {
		return nil, &Error{Reason: fmt.Sprintf("%d bytes, more than the %d read", len(data), MaxSize)}
	}
	p := &parser{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	for i, c := range data {
		if c == '\n' {
			p.newlines = append(p.newlines, i)
		}
	}
	value, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, &Error{Line: p.lineAt(p.start()), Reason: "data after the end of the document"}
	}
	return value, nil
}

type parser struct {
	data     []byte
	dec      *json.Decoder
	newlines []int
}

// start is the offset of the next token: past whitespace and the
// separators the decoder consumes with it.
func (p *parser) start() int {
	offset := int(p.dec.InputOffset())
	for offset < len(p.data) {
		switch p.data[offset] {
		case ' ', '\t', '\r', '\n', ',', ':':
			offset++
			continue
		}
		break
	}
	return offset
}

func (p *parser) lineAt(offset int) int {
	return sort.SearchInts(p.newlines, offset) + 1
}

func (p *parser) fail(offset int, err error) error {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		// The offset is after the byte that failed, or where the
		// decoder's scan stood; the token's start is the better place.
		if at := int(syntax.Offset) - 1; at > offset {
			offset = at
		}
	}
	reason := err.Error()
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		reason = "unexpected end of the document"
		if len(bytes.TrimSpace(p.data)) == 0 {
			return &Error{Reason: "the file is empty"}
		}
	}
	return &Error{Line: p.lineAt(offset), Reason: reason}
}

func (p *parser) value(depth int) (*Value, error) {
	offset := p.start()
	token, err := p.dec.Token()
	if err != nil {
		return nil, p.fail(offset, err)
	}
	v := &Value{Line: p.lineAt(offset)}
	switch t := token.(type) {
	case json.Delim:
		if depth >= MaxDepth {
			return nil, &Error{Line: v.Line, Reason: fmt.Sprintf("nested deeper than %d", MaxDepth)}
		}
		if t == '[' {
			v.Kind = Array
			for p.dec.More() {
				item, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				v.Items = append(v.Items, item)
			}
		} else {
			v.Kind = Object
			for p.dec.More() {
				keyOffset := p.start()
				token, err := p.dec.Token()
				if err != nil {
					return nil, p.fail(keyOffset, err)
				}
				key, _ := token.(string)
				member, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				v.Members = append(v.Members, Member{Key: key, KeyLine: p.lineAt(keyOffset), Value: member})
			}
		}
		end := p.start()
		if _, err := p.dec.Token(); err != nil {
			return nil, p.fail(end, err)
		}
	case string:
		v.Kind, v.Text = String, t
	case json.Number:
		v.Kind, v.Text = Number, string(t)
	case bool:
		v.Kind, v.Bool = Bool, t
	case nil:
		v.Kind = Null
	}
	return v, nil
}
