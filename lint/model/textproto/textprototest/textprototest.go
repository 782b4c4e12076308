// Package textprototest checks a textproto.Schema against protodesc, the
// protobuf module's own descriptor builder and validator, which modellint
// does not link (see textproto.NewSchema). For tests only.
package textprototest

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/modellint/modellint/lint/model/textproto"
)

// Check fails the test unless protodesc builds the schema's descriptor
// without an error and the schema's is the same descriptor.
func Check(t *testing.T, schema *textproto.Schema) {
	t.Helper()
	built := protodesc.ToFileDescriptorProto(schema.File())
	validated, err := protodesc.NewFile(built, nil)
	if err != nil {
		t.Fatalf("protodesc refuses the schema %s: %v", schema.File().Package(), err)
	}
	if again := protodesc.ToFileDescriptorProto(validated); !proto.Equal(again, built) {
		t.Errorf("protodesc builds the schema %s as\n%v\nnot as\n%v", schema.File().Package(), again, built)
	}
}

// Declared is the FileDescriptorProto protodesc would be given for the
// declarations, built with descriptorpb as textproto once built it.
func Declared(pkg string, enums []textproto.Enum, messages []textproto.Message) *descriptorpb.FileDescriptorProto {
	file := &descriptorpb.FileDescriptorProto{Name: proto.String(pkg + ".proto"), Package: proto.String(pkg), Syntax: proto.String("proto3")}
	for _, enum := range enums {
		byNumber := map[int32]string{}
		for name, number := range enum.Values {
			byNumber[number] = name
		}
		declared := &descriptorpb.EnumDescriptorProto{Name: proto.String(enum.Name)}
		for number := int32(0); len(declared.Value) < len(byNumber); number++ {
			if name, ok := byNumber[number]; ok {
				declared.Value = append(declared.Value, &descriptorpb.EnumValueDescriptorProto{Name: proto.String(name), Number: proto.Int32(number)})
			}
		}
		file.EnumType = append(file.EnumType, declared)
	}
	for _, message := range messages {
		declared := &descriptorpb.DescriptorProto{Name: proto.String(message.Name)}
		for _, field := range message.Fields {
			label := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
			if field.Repeated {
				label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
			}
			f := &descriptorpb.FieldDescriptorProto{Name: proto.String(field.Name), JsonName: proto.String(field.Name),
				Number: proto.Int32(field.Number), Label: label.Enum(), Type: descriptorpb.FieldDescriptorProto_Type(field.Kind).Enum()}
			if field.TypeName != "" {
				f.TypeName = proto.String("." + pkg + "." + field.TypeName)
			}
			declared.Field = append(declared.Field, f)
		}
		file.MessageType = append(file.MessageType, declared)
	}
	return file
}
