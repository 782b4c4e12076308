// Package textproto reads text-format protocol buffers (Triton's
// config.pbtxt, saved_model.pbtxt) against a partial schema written in Go:
// the fields a caller names are parsed and type-checked by the real
// prototext parser, every other field is skipped, and the result comes back
// in wire format so that text and binary files are decoded by the same code.
package textproto

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Field declares one field of a message.
type Field struct {
	Name     string
	Number   int32
	Kind     descriptorpb.FieldDescriptorProto_Type
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
	return Field{Name: name, Number: number, Kind: descriptorpb.FieldDescriptorProto_TYPE_STRING}
}
func Bytes(name string, number int32) Field {
	return Field{Name: name, Number: number, Kind: descriptorpb.FieldDescriptorProto_TYPE_BYTES}
}
func Int64(name string, number int32) Field {
	return Field{Name: name, Number: number, Kind: descriptorpb.FieldDescriptorProto_TYPE_INT64}
}
func Int32(name string, number int32) Field {
	return Field{Name: name, Number: number, Kind: descriptorpb.FieldDescriptorProto_TYPE_INT32}
}
func Uint32(name string, number int32) Field {
	return Field{Name: name, Number: number, Kind: descriptorpb.FieldDescriptorProto_TYPE_UINT32}
}
func Bool(name string, number int32) Field {
	return Field{Name: name, Number: number, Kind: descriptorpb.FieldDescriptorProto_TYPE_BOOL}
}
func EnumField(name string, number int32, enum string) Field {
	return Field{Name: name, Number: number, Kind: descriptorpb.FieldDescriptorProto_TYPE_ENUM, TypeName: enum}
}
func MessageField(name string, number int32, message string) Field {
	return Field{Name: name, Number: number, Kind: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, TypeName: message}
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
func NewSchema(pkg string, enums []Enum, messages []Message) (*Schema, error) {
	file := &descriptorpb.FileDescriptorProto{
		Name:    proto.String(pkg + ".proto"),
		Package: proto.String(pkg),
		Syntax:  proto.String("proto3"),
	}
	for _, enum := range enums {
		byNumber := map[int32]string{}
		for name, number := range enum.Values {
			byNumber[number] = name
		}
		ed := &descriptorpb.EnumDescriptorProto{Name: proto.String(enum.Name)}
		for number := int32(0); len(ed.Value) < len(byNumber); number++ {
			if name, ok := byNumber[number]; ok {
				ed.Value = append(ed.Value, &descriptorpb.EnumValueDescriptorProto{Name: proto.String(name), Number: proto.Int32(number)})
			}
		}
		file.EnumType = append(file.EnumType, ed)
	}
	for _, message := range messages {
		md := &descriptorpb.DescriptorProto{Name: proto.String(message.Name)}
		for _, field := range message.Fields {
			label := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
			if field.Repeated {
				label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
			}
			fd := &descriptorpb.FieldDescriptorProto{
				Name:     proto.String(field.Name),
				JsonName: proto.String(field.Name),
				Number:   proto.Int32(field.Number),
				Label:    label.Enum(),
				Type:     field.Kind.Enum(),
			}
			if field.TypeName != "" {
				fd.TypeName = proto.String("." + pkg + "." + field.TypeName)
			}
			md.Field = append(md.Field, fd)
		}
		file.MessageType = append(file.MessageType, md)
	}
	compiled, err := protodesc.NewFile(file, nil)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", pkg, err)
	}
	return &Schema{file: compiled}, nil
}

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
	message := dynamicpb.NewMessage(desc)
	if err := (prototext.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(text, message); err != nil {
		// The protobuf module puts a no-break space in its error texts at
		// random per build, so that nobody compares them; reports must be
		// the same from every build.
		return nil, errors.New(strings.ReplaceAll(err.Error(), "\u00a0", " "))
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(message)
}
