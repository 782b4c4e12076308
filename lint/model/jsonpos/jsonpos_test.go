package jsonpos

import (
	"strings"
	"testing"
)

func TestParseLines(t *testing.T) {
	doc := "{\n  \"a\": [\n    {\"b\": \"x\"},\n    2\n  ],\n  \"c\": null\n}\n"
	v, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	a := v.Get("a")
	if a == nil || a.Kind != Array || a.Line != 2 || len(a.Items) != 2 {
		t.Fatalf("a = %+v", a)
	}
	if b := a.Items[0].Get("b"); b == nil || b.Text != "x" || b.Line != 3 {
		t.Errorf("b = %+v", b)
	}
	if n := a.Items[1]; n.Kind != Number || n.Text != "2" || n.Line != 4 {
		t.Errorf("2 = %+v", n)
	}
	if c := v.Get("c"); c == nil || c.Kind != Null || c.Line != 6 {
		t.Errorf("c = %+v", c)
	}
	if v.Members[1].KeyLine != 6 {
		t.Errorf("c's key line = %d", v.Members[1].KeyLine)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		doc  string
		line int
		want string
	}{
		{"{\n  \"a\": 1,\n}\n", 3, "invalid character '}'"},
		{"{\"a\": 1}\n{}", 2, "data after the end"},
		{"", 0, "empty"},
		{"{\n\"a\": [1,\n", 3, "unexpected end"},
		{strings.Repeat("[", MaxDepth+1), 1, "nested deeper"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.doc))
		e, ok := err.(*Error)
		if !ok || e.Line != c.line || !strings.Contains(e.Reason, c.want) {
			t.Errorf("Parse(%q) = %v, want line %d %q", c.doc, err, c.line, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"model_config_list":[{"config":{"name":"a","base_path":"/m"}}]}`))
	f.Add([]byte("[1, \"x\", {\"k\": [true, null]}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err == nil && v == nil {
			t.Fatal("no value and no error")
		}
	})
}
