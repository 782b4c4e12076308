package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// convertedValues are the plain values of every document of source as the
// converter builds them with values on, the reference for the values the
// field table holds.
func convertedValues(t *testing.T, source []byte) []any {
	t.Helper()
	decoder := yaml.NewDecoder(bytes.NewReader(source))
	var values []any
	for {
		var root yaml.Node
		if err := decoder.Decode(&root); errors.Is(err, io.EOF) {
			return values
		} else if err != nil {
			t.Fatalf("the reference parse failed where Load did not: %v", err)
		}
		size := countNodes(&root)
		conv := converter{fields: newFieldTable(Position{}, size.fields), budget: 10*size.nodes + 10000, keys: map[string]string{}, values: true}
		value, err := conv.convert(&root, 0, true)
		if err != nil {
			t.Fatalf("the reference conversion failed where Load did not: %v", err)
		}
		values = append(values, value)
	}
}

// checkPlainValues compares, per document read off its fields, the plain
// value and the JSON the table gives with the converter's value. It returns
// the parse error of a source that is not YAML, which has no values.
func checkPlainValues(t *testing.T, name string, source []byte) error {
	t.Helper()
	docs, err := ParseDocuments(name, source)
	if err != nil {
		return err
	}
	want := convertedValues(t, source)
	if len(want) != len(docs) {
		t.Fatalf("%s: %d documents, the reference has %d", name, len(docs), len(want))
	}
	for i, doc := range docs {
		if doc.rareOrNone().expanded != nil {
			continue // aliases: the value is the converter's own
		}
		if got := doc.Plain(); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%s: document %d: plain value\n%#v\nwant\n%#v", name, i+1, got, want[i])
		}
		wantJSON, err := json.Marshal(want[i])
		if err != nil {
			continue
		}
		var got, wantDecoded any
		gotJSON := doc.fields.appendJSON(nil, 0)
		if err := json.Unmarshal(gotJSON, &got); err != nil {
			t.Fatalf("%s: document %d: the table's JSON %q does not parse: %v", name, i+1, gotJSON, err)
		}
		if err := json.Unmarshal(wantJSON, &wantDecoded); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, wantDecoded) {
			t.Errorf("%s: document %d: JSON\n%s\nwant\n%s", name, i+1, gotJSON, wantJSON)
		}
	}
	return nil
}

// minComparedYAML is the fewest project YAML files the comparison must
// cover (about 390 parse; Helm templates and the inputs that are broken on
// purpose do not).
const minComparedYAML = 350

// brokenOnPurpose are the project's YAML files that are not YAML on
// purpose, outside Helm templates.
var brokenOnPurpose = map[string]bool{
	"../../testdata/scenarios/inputs-monorepo/k8s/broken.yaml":                       true,
	"../../testdata/scenarios/inputs-monorepo/tests/fixtures/broken-on-purpose.yaml": true,
}

// helmTemplate reports whether path is under the templates directory of a
// chart (a directory holding Chart.yaml): Go template text, often not YAML.
func helmTemplate(path string) bool {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i, part := range parts {
		if part != "templates" {
			continue
		}
		if _, err := os.Stat(filepath.Join(filepath.Join(parts[:i]...), "Chart.yaml")); err == nil {
			return true
		}
	}
	return false
}

// TestPlainValuesMatchConverter reads every YAML file of the project's
// test data and scenarios, and some edge cases.
func TestPlainValuesMatchConverter(t *testing.T) {
	edge := checkPlainValues(t, "edge.yaml", []byte(`a: 1
a: 2
b: [1, 2.5, -3e300, .inf, .nan, ~, true, "x", 0x1F, 0o17, 9223372036854775808]
c: {}
d: []
e: !!str 12
f: !!binary aGVsbG8=
g: 2001-12-14t21:59:43.10-05:00
"h.i": {"<&>": "\u00e9\n"}
---
- 1
- [a, {b: c}]
---
plain
---
`))
	if edge != nil {
		t.Fatalf("edge.yaml: %v", edge)
	}
	compared := 0
	for path, source := range projectYAML(t) {
		err := checkPlainValues(t, path, source)
		switch {
		case err == nil:
			compared++
		case !helmTemplate(path) && !brokenOnPurpose[filepath.ToSlash(path)]:
			t.Errorf("%s does not parse, so its values are not compared (only Helm templates and the files listed in "+
				"brokenOnPurpose may fail): %v", path, err)
		}
	}
	if compared < minComparedYAML {
		t.Errorf("only %d project YAML files parsed and compared, want at least %d", compared, minComparedYAML)
	}
	t.Logf("%d project YAML files compared", compared)
}

// projectYAML is every YAML file of the package's and the project's test
// data, by path.
func projectYAML(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, root := range []string{"testdata", "../../testdata", "../../examples"} {
		filepath.WalkDir(root, func(path string, entry os.DirEntry, err error) error {
			if err != nil || entry.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				return nil
			}
			source, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files[path] = source
			return nil
		})
	}
	if len(files) < 50 {
		t.Fatalf("only %d YAML files found", len(files))
	}
	return files
}
