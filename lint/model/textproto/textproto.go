// Package textproto reads text-format protocol buffers (Triton's
// config.pbtxt, saved_model.pbtxt) against a partial schema written in Go:
// the fields a caller names are parsed and type-checked by the real
// prototext parser, every other field is skipped, and the result comes back
// in wire format so that text and binary files are decoded by the same code.
package textproto

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/runtime/protoimpl"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Field declares one field of a message.
type Field struct {
	Name     string
	Number   int32
	Kind     protoreflect.Kind
	TypeName string // message or enum name for message and enum fields
	Repeated bool
}

// Message declares a message by its fields.
type Message struct {
	Name   string
	Fields []Field
}

// Enum declares an enum by its value names, in number order from 0.
type Enum struct {
	Name   string
	Values map[string]int32
}

// Field constructors keep schemas short and readable.
func String(name string, number int32) Field {
	return Field{Name: name, Number: number, Kind: protoreflect.StringKind}
}
func Bytes(name string, number int32) Field {
	return Field{Name: name, Number: number, Kind: protoreflect.BytesKind}
}
func Int64(name string, number int32) Field {
	return Field{Name: name, Number: number, Kind: protoreflect.Int64Kind}
}
func Int32(name string, number int32) Field {
	return Field{Name: name, Number: number, Kind: protoreflect.Int32Kind}
}
func Uint32(name string, number int32) Field {
	return Field{Name: name, Number: number, Kind: protoreflect.Uint32Kind}
}
func Float(name string, number int32) Field {
	return Field{Name: name, Number: number, Kind: protoreflect.FloatKind}
}
func Bool(name string, number int32) Field {
	return Field{Name: name, Number: number, Kind: protoreflect.BoolKind}
}
func EnumField(name string, number int32, enum string) Field {
	return Field{Name: name, Number: number, Kind: protoreflect.EnumKind, TypeName: enum}
}
func MessageField(name string, number int32, message string) Field {
	return Field{Name: name, Number: number, Kind: protoreflect.MessageKind, TypeName: message}
}

// Repeated marks a field as repeated.
func Repeated(field Field) Field {
	field.Repeated = true
	return field
}

// Schema is a compiled set of messages and enums in one proto package.
type Schema struct {
	file protoreflect.FileDescriptor
}

// NewSchema compiles the declarations; an error means the schema itself is
// wrong, which is a programming error.
//
// The declarations are encoded as a FileDescriptorProto and built as
// generated code builds its descriptors (protoimpl.DescBuilder), in a
// registry of the schema's own. protodesc.NewFile, which builds one from a
// descriptorpb message, would link protodesc and descriptorpb, whose
// package init every start of modellint would pay; the tests
// check that both ways give the same descriptor.
func NewSchema(pkg string, enums []Enum, messages []Message) (*Schema, error) {
	if err := checkNames(enums, messages); err != nil {
		return nil, fmt.Errorf("schema %s: %w", pkg, err)
	}
	raw := fileDescriptor(pkg, enums, messages)
	file, err := build(raw)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", pkg, err)
	}
	return &Schema{file: file}, nil
}

// checkNames refuses what protodesc.NewFile would: a field of an
// undeclared type, a name or number declared twice, an enum without 0.
func checkNames(enums []Enum, messages []Message) error {
	declared := map[string]protoreflect.Kind{}
	for _, enum := range enums {
		if _, twice := declared[enum.Name]; twice {
			return fmt.Errorf("%s is declared twice", enum.Name)
		}
		declared[enum.Name] = protoreflect.EnumKind
		numbers := map[int32]bool{}
		for _, number := range enum.Values {
			if number < 0 {
				return fmt.Errorf("enum %s has a negative value", enum.Name)
			}
			if numbers[number] {
				return fmt.Errorf("enum %s has two values numbered %d", enum.Name, number)
			}
			numbers[number] = true
		}
		if !numbers[0] {
			return fmt.Errorf("enum %s has no value numbered 0", enum.Name)
		}
	}
	for _, message := range messages {
		if _, twice := declared[message.Name]; twice {
			return fmt.Errorf("%s is declared twice", message.Name)
		}
		declared[message.Name] = protoreflect.MessageKind
	}
	for _, message := range messages {
		names, numbers := map[string]bool{}, map[int32]bool{}
		for _, field := range message.Fields {
			if names[field.Name] || numbers[field.Number] {
				return fmt.Errorf("message %s declares field %s (%d) twice", message.Name, field.Name, field.Number)
			}
			names[field.Name], numbers[field.Number] = true, true
			if field.TypeName != "" && declared[field.TypeName] != field.Kind {
				return fmt.Errorf("field %s.%s is of the undeclared %s %s", message.Name, field.Name, field.Kind, field.TypeName)
			}
		}
	}
	return nil
}

// Field numbers of descriptor.proto (google/protobuf/descriptor.proto).
const (
	fileName, filePackage, fileMessageType, fileEnumType, fileSyntax protowire.Number = 1, 2, 4, 5, 12
	messageName, messageField                                        protowire.Number = 1, 2
	fieldName, fieldNumber, fieldLabel, fieldType, fieldTypeName     protowire.Number = 1, 3, 4, 5, 6
	fieldJSONName                                                    protowire.Number = 10
	enumName, enumValue                                              protowire.Number = 1, 2
	enumValueName, enumValueNumber                                   protowire.Number = 1, 2
	labelOptional, labelRepeated                                     uint64           = 1, 3
)

// fileDescriptor encodes the declarations as a FileDescriptorProto, as
// protodesc.ToFileDescriptorProto of the same schema would.
func fileDescriptor(pkg string, enums []Enum, messages []Message) []byte {
	var file []byte
	file = appendString(file, fileName, pkg+".proto")
	file = appendString(file, filePackage, pkg)
	for _, message := range messages {
		var m []byte
		m = appendString(m, messageName, message.Name)
		for _, field := range message.Fields {
			label := labelOptional
			if field.Repeated {
				label = labelRepeated
			}
			var f []byte
			f = appendString(f, fieldName, field.Name)
			f = appendVarint(f, fieldNumber, uint64(field.Number))
			f = appendVarint(f, fieldLabel, label)
			f = appendVarint(f, fieldType, uint64(field.Kind))
			if field.TypeName != "" {
				f = appendString(f, fieldTypeName, "."+pkg+"."+field.TypeName)
			}
			f = appendString(f, fieldJSONName, field.Name)
			m = protowire.AppendTag(m, messageField, protowire.BytesType)
			m = protowire.AppendBytes(m, f)
		}
		file = protowire.AppendTag(file, fileMessageType, protowire.BytesType)
		file = protowire.AppendBytes(file, m)
	}
	for _, enum := range enums {
		byNumber := map[int32]string{}
		for name, number := range enum.Values {
			byNumber[number] = name
		}
		var e []byte
		e = appendString(e, enumName, enum.Name)
		for number, written := int32(0), 0; written < len(byNumber); number++ {
			name, ok := byNumber[number]
			if !ok {
				continue
			}
			var v []byte
			v = appendString(v, enumValueName, name)
			v = appendVarint(v, enumValueNumber, uint64(number))
			e = protowire.AppendTag(e, enumValue, protowire.BytesType)
			e = protowire.AppendBytes(e, v)
			written++
		}
		file = protowire.AppendTag(file, fileEnumType, protowire.BytesType)
		file = protowire.AppendBytes(file, e)
	}
	return appendString(file, fileSyntax, "proto3")
}

func appendString(b []byte, number protowire.Number, value string) []byte {
	b = protowire.AppendTag(b, number, protowire.BytesType)
	return protowire.AppendString(b, value)
}

func appendVarint(b []byte, number protowire.Number, value uint64) []byte {
	b = protowire.AppendTag(b, number, protowire.VarintType)
	return protowire.AppendVarint(b, value)
}

// build builds the encoded FileDescriptorProto in a registry of its own;
// the builder panics on what it cannot build.
func build(raw []byte) (file protoreflect.FileDescriptor, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return protoimpl.DescBuilder{RawDescriptor: raw, FileRegistry: new(protoregistry.Files)}.Build().File, nil
}

// File is the schema's file descriptor.
func (s *Schema) File() protoreflect.FileDescriptor { return s.file }

// MustSchema is NewSchema for package-level schemas.
func MustSchema(pkg string, enums []Enum, messages []Message) *Schema {
	schema, err := NewSchema(pkg, enums, messages)
	if err != nil {
		panic(err)
	}
	return schema
}

// ToWire parses text as the message named root and returns its wire
// encoding. Fields the schema does not declare are skipped; a syntax error,
// a value of the wrong type or a scalar given twice is an error, as it is
// for the C++ parser the servers use.
func (s *Schema) ToWire(text []byte, root string) ([]byte, error) {
	desc := s.file.Messages().ByName(protoreflect.Name(root))
	if desc == nil {
		return nil, fmt.Errorf("schema %s has no message %s", s.file.Package(), root)
	}
	if err := checkNesting(text); err != nil {
		return nil, err
	}
	message := dynamicpb.NewMessage(desc)
	if err := (prototext.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(text, message); err != nil {
		// The protobuf module puts a no-break space in its error texts at
		// random per build, so that nobody compares them; reports must be
		// the same from every build.
		return nil, errors.New(strings.ReplaceAll(err.Error(), "\u00a0", " "))
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(message)
}

// MaxNesting bounds how deeply messages and lists may nest. Real configs
// nest fewer than 10 levels; the parser skips an unknown field's value by
// recursion without a limit, so a few MB of "x {" would take it hundreds
// of MB of stack.
const MaxNesting = 100

// checkNesting refuses text whose messages or lists nest deeper than
// MaxNesting, counting the brackets outside strings and comments.
func checkNesting(text []byte) error {
	depth := 0
	var err error
	scanCode(text, func(i, line int) int {
		switch text[i] {
		case '{', '<', '[':
			if depth++; depth > MaxNesting && err == nil {
				err = fmt.Errorf("line %d: messages and lists nest deeper than the %d levels modellint reads", line, MaxNesting)
				return len(text)
			}
		case '}', '>', ']':
			depth = max(depth-1, 0)
		}
		return 0
	})
	return err
}

// scanCode calls visit with each byte of text that is outside strings and
// comments, and its line; visit returns how many bytes after it to pass
// over.
func scanCode(text []byte, visit func(i, line int) (skip int)) {
	line := 1
	var quote byte // the quote of the string being read, 0 outside one
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\n':
			line++
			quote = 0 // a string cannot span lines; the parser reports it
		case quote != 0:
			if c == '\\' && i+1 < len(text) && text[i+1] != '\n' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		default:
			i += visit(i, line)
		}
	}
}

// FieldLines are the lines on which a field of the given name is written
// ("name:", "name {" or "name <"), outside strings and comments: the
// parser keeps no positions.
func FieldLines(text []byte, name string) []int {
	var lines []int
	scanCode(text, func(i, line int) int {
		if !isIdentStart(text[i]) || i > 0 && isIdent(text[i-1]) {
			return 0
		}
		end := i
		for end < len(text) && isIdent(text[end]) {
			end++
		}
		rest := bytes.TrimLeft(text[end:], " \t")
		if string(text[i:end]) == name && len(rest) > 0 && (rest[0] == ':' || rest[0] == '{' || rest[0] == '<') {
			lines = append(lines, line)
		}
		return end - i - 1
	})
	return lines
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdent(c byte) bool      { return isIdentStart(c) || c >= '0' && c <= '9' }
