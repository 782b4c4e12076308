package textproto

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

var schema = MustSchema("test",
	[]Enum{{Name: "Kind", Values: map[string]int32{"NONE": 0, "BIG": 2}}},
	[]Message{
		{Name: "Root", Fields: []Field{String("name", 1), Repeated(Int64("dims", 2)), EnumField("kind", 3, "Kind"), MessageField("child", 4, "Child")}},
		{Name: "Child", Fields: []Field{Bool("on", 1)}},
	})

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
	if _, err := NewSchema("bad", nil, []Message{{Name: "M", Fields: []Field{MessageField("x", 1, "Nowhere")}}}); err == nil {
		t.Error("a field of an undeclared type compiled")
	}
}
