package manifest

import (
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

// checkQuickScalar checks that what quickScalar reads of a scalar is what
// yaml.v3's decoder reads, as scalar converts it.
func checkQuickScalar(t *testing.T, text string) {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte("v: "+text+"\n"), &root); err != nil || len(root.Content) == 0 ||
		len(root.Content[0].Content) != 2 || root.Content[0].Content[1].Kind != yaml.ScalarNode {
		return
	}
	node := root.Content[0].Content[1]
	kind, got, value, ok := quickScalar(node)
	if !ok {
		return
	}
	var decoded any
	if err := node.Decode(&decoded); err != nil {
		t.Fatalf("%q (%s): read as %v, yaml.v3 fails: %v", text, node.Tag, value, err)
	}
	if want := jsonScalar(decoded, node.Value); !reflect.DeepEqual(value, want) {
		t.Errorf("%q (%s): read as %#v (%q, kind %d), yaml.v3 as %#v", text, node.Tag, value, got, kind, want)
	}
}

func TestQuickScalar(t *testing.T) {
	for _, text := range []string{"0", "-0", "8000", "-12", "007", "0x1F", "0o17", "1_000", "+5", "123456789012345678",
		"1234567890123456789", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999", "true", "False", "TRUE", "yes", "null", "~", "Null", "", "1.5",
		"1e3", ".inf", "!!int 10", "!!int \"10\"", "!!bool true", "!!null", "!!str 10", "'10'"} {
		checkQuickScalar(t, text)
	}
	for text, want := range map[string]bool{"8000": true, "true": true, "~": true, "007": false, "0x1F": false, "1_000": false, "yes": false} {
		var root yaml.Node
		if err := yaml.Unmarshal([]byte("v: "+text+"\n"), &root); err != nil {
			t.Fatal(err)
		}
		if _, _, _, ok := quickScalar(root.Content[0].Content[1]); ok != want {
			t.Errorf("%q: read quickly %v, want %v", text, ok, want)
		}
	}
}

func FuzzQuickScalar(f *testing.F) {
	for _, text := range []string{"8000", "-0", "true", "~", "0777", "1_0", "9223372036854775807"} {
		f.Add(text)
	}
	f.Fuzz(checkQuickScalar)
}

// checkPlainTag checks plainTag against yaml.v3's resolution of the text.
func checkPlainTag(t *testing.T, text string) {
	if text == "<<" {
		return // a merge key: the reader leaves it to yaml.v3 before it asks
	}
	if want := (&yaml.Node{Kind: yaml.ScalarNode, Value: text}).ShortTag(); plainTag(text) != want {
		t.Errorf("%q: %s, yaml.v3 %s", text, plainTag(text), want)
	}
}

func TestPlainTag(t *testing.T) {
	for _, text := range []string{"16Gi", "500m", "8080/TCP", "10", "-10", "+10", "0x1F", "0b101", "-0b11", "0o17", "1_000",
		"1.5", "-1.5e3", "1e3", "+.inf", "-.Inf", "+.INF", ".nan", "2024-01-02", "2024-01-02T10:00:00Z", "2001-12-14 21:59:43.10",
		"1.2.3", "10.0.0.1", "1:30", "9223372036854775808", "18446744073709551616", "-", "+", "0", "nginx", "true", "~", ""} {
		checkPlainTag(t, text)
	}
}

func FuzzPlainTag(f *testing.F) {
	for _, text := range []string{"16Gi", "0x1F", "2024-01-02T10:00:00Z", "-.inf", "1_0.5e-3"} {
		f.Add(text)
	}
	f.Fuzz(checkPlainTag)
}
