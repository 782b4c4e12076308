package yamlsize

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// parsed is what the parser makes of a stream: its documents and the
// values of each.
func parsed(source []byte) (values []int, err error) {
	decoder := yaml.NewDecoder(bytes.NewReader(source))
	for {
		var root yaml.Node
		err := decoder.Decode(&root)
		if errors.Is(err, io.EOF) {
			return values, nil
		}
		if err != nil {
			return nil, err
		}
		values = append(values, countNodes(&root)-1)
	}
}

func countNodes(node *yaml.Node) int {
	n := 1
	for _, child := range node.Content {
		n += countNodes(child)
	}
	return n
}

// check measures a stream the parser accepts and compares: as many
// documents, and never fewer values than it makes.
func check(t *testing.T, source []byte) {
	t.Helper()
	if !utf8.Valid(source) {
		return // refused before it is measured
	}
	values, err := parsed(source)
	if err != nil {
		return
	}
	size := Measure(source)
	largest, total := 0, 0
	for _, n := range values {
		largest, total = max(largest, n), total+n
	}
	if size.Documents != len(values) {
		t.Errorf("%q: %d documents, the parser makes %d", truncate(source), size.Documents, len(values))
	}
	if size.Largest < largest || size.Total < total {
		t.Errorf("%q: largest %d, total %d values; the parser makes %d and %d (%v)", truncate(source), size.Largest, size.Total, largest, total, values)
	}
}

func truncate(source []byte) string {
	if len(source) > 300 {
		return string(source[:300]) + "…"
	}
	return string(source)
}

func TestMeasure(t *testing.T) {
	cases := []struct {
		source            string
		documents, values int // the values of the largest document
	}{
		{"", 0, 0},
		{"# only a comment\n", 0, 0},
		{"---\n---\n---\n", 3, 1},
		{"a: 1\n", 1, 4},
		{"a: 1\nb: 2\n", 1, 6},
		{"a: 1\n---\nb: [1, 2, 3]\n", 2, 7},
		{"a: 1\n...\nb: 2\n", 2, 4},
		{"%YAML 1.2\n---\na: 1\n", 1, 4},
		{"a: |\n  x: [1, 2, 3]\n  y: {a: b}\nb: 1\n", 1, 6},
		{"- |\n  x: [1, 2]\n- y\n", 1, 4},
		{"a: 'it''s: [1, 2]'\n", 1, 4},
		{"a: \"x\\\": [1, 2]\"\n", 1, 4},
		{"a: \"multi\n  line: [1, 2]\"\n", 1, 4},
		{"a: b # c: [1, 2, 3]\n", 1, 4},
		{"url: http://x:80/a#b\n", 1, 4},
		{"{\"a\":1,\"b\":[1,2]}\n", 1, 9},
		{"[{}, {}, {}]\n", 1, 6},
		{"{a, b, c}\n", 1, 9},
		{"[a: 1, b: 2]\n", 1, 9},
		{"a:\nb:\n", 1, 6},
		{"- \n- \n", 1, 4},
		{"a: &x [1, 2]\nb: *x\n", 1, 8},
		{"a: !!str 1\n", 1, 4},
	}
	for _, c := range cases {
		size := Measure([]byte(c.source))
		if size.Documents != c.documents || size.Largest != c.values {
			t.Errorf("%q: %d documents, largest of %d values; want %d and %d", c.source, size.Documents, size.Largest, c.documents, c.values)
		}
		check(t, []byte(c.source))
	}
}

// TestNeverFewer measures the YAML files of the repository and generated
// dense streams against what the parser makes of them.
func TestNeverFewer(t *testing.T) {
	var files []string
	filepath.WalkDir("../..", func(path string, entry os.DirEntry, err error) error {
		if err == nil && !entry.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml") || strings.HasSuffix(path, ".json")) {
			files = append(files, path)
		}
		return nil
	})
	for _, file := range files {
		source, err := os.ReadFile(file)
		if err == nil && len(source) < 4<<20 {
			check(t, source)
		}
	}
	for _, source := range []string{
		"data: {" + strings.Repeat("k: v, ", 1000) + "}\n",
		"items: [" + strings.Repeat("{}, ", 1000) + "]\n",
		strings.Repeat("- - - a\n", 100),
		strings.Repeat("? a\n: b\n", 100),
		strings.Repeat("a: [[[[]]]]\n", 100),
	} {
		check(t, []byte(source))
	}
}

func FuzzMeasure(f *testing.F) {
	for _, seed := range []string{"a: 1\n", "{\"a\":[1,{}]}", "- |\n  x\n- 'y'\n", "[a: b, {c, d}]\n", "--- !x &a\n...\n--- *a\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, source []byte) {
		if len(source) > 1<<16 {
			return
		}
		check(t, source)
	})
}
