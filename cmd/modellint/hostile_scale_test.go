package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// scaleCase is an input as large as its bounds let it be, and how its run
// must end: in a one-line error naming the input and the bound it passed,
// or in the report.
type scaleCase struct {
	name  string
	build func(dir string) []string // the arguments, the input last
	exit  int
	want  string // in the error, or in the report
	// input is what the error must name ("" for the last argument).
	input string
}

// runScaleCases runs each case in a subprocess, within 256 MiB and 5 s of
// CPU: a large input, with nothing to inflate, must end within the bounds
// the docs promise.
func runScaleCases(t *testing.T, cases []scaleCase) {
	if testing.Short() {
		t.Skip("builds inputs of tens of MiB")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.build(t.TempDir())
			input := c.input
			if input == "" {
				input = args[len(args)-1]
			}
			output := runHostileWithin(t, append([]string{"--no-color", "--no-cache"}, args...), c.exit, 5*time.Second)
			if c.exit == exitError && !strings.Contains(output, input) {
				t.Errorf("error %q does not name %s", output, input)
			}
			if !strings.Contains(output, c.want) {
				t.Errorf("output %q does not contain %q", truncate(output, 4000), c.want)
			}
		})
	}
}

// TestHostileManifestScale lints manifests that hold as many documents and
// values as fit in a file: past the bounds on them, a one-line error
// before the parse; at them, the run ends within the memory and CPU limits.
func TestHostileManifestScale(t *testing.T) {
	runScaleCases(t, []scaleCase{
		{"10⁶ empty YAML documents", func(dir string) []string {
			return []string{writeIn(dir, "empty.yaml", strings.Repeat("---\n", 1_000_000))}
		}, exitError, "more than 120000 YAML documents", ""},
		{"119,000 one-line objects", func(dir string) []string {
			return []string{writeIn(dir, "objects.yaml", strings.Repeat("--- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n", 119_000))}
		}, exitClean, "no findings", ""},
		{"ConfigMap of 10⁶ keys", func(dir string) []string {
			return []string{writeIn(dir, "settings.yaml", hugeConfigMap(1_000_000, false))}
		}, exitError, "document 1 holds more than 250000 YAML values", ""},
		{"ConfigMap of 10⁶ keys in flow style", func(dir string) []string {
			return []string{writeIn(dir, "flow.yaml", hugeConfigMap(1_000_000, true))}
		}, exitError, "document 1 holds more than 250000 YAML values", ""},
		{"List of 3·10⁶ empty items", func(dir string) []string {
			return []string{writeIn(dir, "list.yaml", "apiVersion: v1\nkind: List\nitems: ["+strings.Repeat("{},", 3_000_000)+"]\n")}
		}, exitError, "document 1 holds more than 250000 YAML values", ""},
		{"ConfigMap of 120,000 keys", func(dir string) []string {
			return []string{writeIn(dir, "settings.yaml", hugeConfigMap(120_000, false))}
		}, exitClean, "no findings", ""},
		{"8 documents of 248,000 values", func(dir string) []string {
			return []string{writeIn(dir, "lists.yaml", strings.Repeat(longList(248_000), 8))}
		}, exitClean, "no findings", ""},
		{"9 documents of 248,000 values", func(dir string) []string {
			return []string{writeIn(dir, "lists.yaml", strings.Repeat(longList(248_000), 9))}
		}, exitError, "more than 2000000 YAML values", ""},
	})
}

func writeIn(dir, name, content string) string {
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		panic(err)
	}
	return file
}

// hugeConfigMap is one ConfigMap of keys data keys, a line each or all on
// one line in flow style.
func hugeConfigMap(keys int, flow bool) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata:")
	if flow {
		b.WriteString(" {")
		for i := range keys {
			fmt.Fprintf(&b, "k%d: v,", i)
		}
		b.WriteString("}\n")
		return b.String()
	}
	b.WriteString("\n")
	for i := range keys {
		fmt.Fprintf(&b, "  k%07d: v\n", i)
	}
	return b.String()
}

// longList is a document holding an object whose one field is a list of
// that many items, in flow style.
func longList(items int) string {
	return "---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: [" + strings.Repeat("a,", items) + "]}}\n"
}
