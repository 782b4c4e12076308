package textproto_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"

	"github.com/modellint/modellint/lint/model/textproto"
	"github.com/modellint/modellint/lint/model/textproto/textprototest"
)

var (
	testEnums    = []textproto.Enum{{Name: "Kind", Values: map[string]int32{"NONE": 0, "BIG": 2}}}
	testMessages = []textproto.Message{
		{Name: "Root", Fields: []textproto.Field{textproto.String("name", 1), textproto.Repeated(textproto.Int64("dims", 2)), textproto.EnumField("kind", 3, "Kind"), textproto.MessageField("child", 4, "Child")}},
		{Name: "Child", Fields: []textproto.Field{textproto.Bool("on", 1)}},
	}
	schema = textproto.MustSchema("test", testEnums, testMessages)
)

func TestToWire(t *testing.T) {
	encoded, err := schema.ToWire([]byte(`# comment
name: "x" dims: [1, -1] kind: BIG child { on: true } unknown_field { deep { x: [1, 2] } } other: IDENT`), "Root")
	if err != nil {
		t.Fatal(err)
	}
	var fields []protowire.Number
	for len(encoded) > 0 {
		number, typ, n := protowire.ConsumeTag(encoded)
		encoded = encoded[n:]
		fields = append(fields, number)
		encoded = encoded[protowire.ConsumeFieldValue(number, typ, encoded):]
	}
	if len(fields) != 4 || fields[0] != 1 || fields[1] != 2 || fields[2] != 3 || fields[3] != 4 {
		t.Errorf("fields %v, want 1 2 3 4 (unknown fields dropped, dims packed)", fields)
	}
}

func TestErrors(t *testing.T) {
	for _, text := range []string{`name: 1`, `kind: SMALL`, `name: "a" name: "b"`, `child {`} {
		if _, err := schema.ToWire([]byte(text), "Root"); err == nil {
			t.Errorf("%q parsed without an error", text)
		}
	}
	if _, err := schema.ToWire(nil, "Missing"); err == nil || !strings.Contains(err.Error(), "no message Missing") {
		t.Errorf("unknown root: %v", err)
	}
}

// TestSchemaIsProtodesc: the descriptor NewSchema builds is the one
// protodesc builds and validates from the same declarations, written as
// descriptorpb messages.
func TestSchemaIsProtodesc(t *testing.T) {
	textprototest.Check(t, schema)
	declared := textprototest.Declared("test", testEnums, testMessages)
	if built := protodesc.ToFileDescriptorProto(schema.File()); !proto.Equal(built, declared) {
		t.Errorf("NewSchema built\n%v\nprotodesc would be given\n%v", built, declared)
	}
}

func TestSchemaErrors(t *testing.T) {
	for _, c := range []struct {
		enums    []textproto.Enum
		messages []textproto.Message
		want     string
	}{
		{nil, []textproto.Message{{Name: "M", Fields: []textproto.Field{textproto.MessageField("x", 1, "Nowhere")}}}, "undeclared message Nowhere"},
		{nil, []textproto.Message{{Name: "M", Fields: []textproto.Field{textproto.EnumField("x", 1, "M")}}}, "undeclared enum M"},
		{nil, []textproto.Message{{Name: "M", Fields: []textproto.Field{textproto.Bool("x", 1), textproto.Bool("y", 1)}}}, "declares field y (1) twice"},
		{nil, []textproto.Message{{Name: "M"}, {Name: "M"}}, "M is declared twice"},
		{[]textproto.Enum{{Name: "E", Values: map[string]int32{"ONE": 1}}}, nil, "no value numbered 0"},
		{[]textproto.Enum{{Name: "E", Values: map[string]int32{"ZERO": 0, "MINUS": -1}}}, nil, "negative value"},
	} {
		if _, err := textproto.NewSchema("bad", c.enums, c.messages); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewSchema: %v, want an error saying %q", err, c.want)
		}
	}
}

// TestNesting: text nested past MaxNesting is refused before the parser,
// which skips an unknown field's value by unbounded recursion, sees it;
// brackets in strings and comments do not count.
func TestNesting(t *testing.T) {
	nested := func(levels int) string {
		return "name: \"{<[\" # {{{{\n" + strings.Repeat("unknown_field {\n", levels) + strings.Repeat("}\n", levels)
	}
	if _, err := schema.ToWire([]byte(nested(textproto.MaxNesting)), "Root"); err != nil {
		t.Errorf("%d levels: %v", textproto.MaxNesting, err)
	}
	for _, text := range []string{
		nested(textproto.MaxNesting + 1),
		"child " + strings.Repeat("{ on: true x ", 4<<20/14),
		"unknown_field: " + strings.Repeat("[", 1<<20),
		"unknown_field " + strings.Repeat("<", 1<<20),
	} {
		_, err := schema.ToWire([]byte(text), "Root")
		if want := "nest deeper than the 100 levels"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.40q...: %v, want an error saying %q", text, err, want)
		}
	}
}
