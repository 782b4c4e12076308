package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// applyEdit makes one edit of a file's source.
func applyEdit(source []byte, edit Edit) []byte {
	return slices.Concat(source[:edit.Start], []byte(edit.Text), source[edit.End:])
}

// parsesStrictly is what --fix checks before it writes: every document
// parses, no key twice.
func parsesStrictly(data []byte) error {
	decoder := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var document any
		if err := decoder.Decode(&document); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func TestReplaceScalar(t *testing.T) {
	source := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: m}\nspec:\n  replicas: 1 # one\n" +
		"  strategy: {rollingUpdate: {maxUnavailable: '25%'}}\n  template:\n    spec:\n      containers:\n" +
		"        - name: s\n          image: \"repo/s:1\"\n          args: [--a]\n"
	file, err := Load("d.yaml", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	object := file.Objects[0]
	any := func(string) bool { return true }
	for _, test := range []struct{ path, text, want string }{
		{"spec.replicas", "2", "  replicas: 2 # one\n"},
		{"spec.strategy.rollingUpdate.maxUnavailable", "0", "  strategy: {rollingUpdate: {maxUnavailable: '0'}}\n"},
		{"spec.template.spec.containers[0].image", "repo/s:1@sha256:ab", "          image: \"repo/s:1@sha256:ab\"\n"},
	} {
		edit, ok := object.ReplaceScalar(test.path, any, test.text)
		if !ok {
			t.Errorf("%s: no edit", test.path)
			continue
		}
		if got := string(applyEdit([]byte(source), edit)); !strings.Contains(got, test.want) {
			t.Errorf("%s: got\n%s\nwant a line %q", test.path, got, test.want)
		}
	}
	if _, ok := object.ReplaceScalar("spec.replicas", func(written string) bool { return written == "3" }, "2"); ok {
		t.Error("an edit of a value that is not the one the rule read")
	}
	if _, ok := object.ReplaceScalar("spec.template.spec.containers[0].args", any, "x"); ok {
		t.Error("a flow sequence replaced as a scalar")
	}
}

// FuzzEdits: whatever the YAML, an edit the manifest package offers keeps
// the file parseable with no key twice, and says what it did: a replaced
// scalar reads back as the new value, added fields appear in their mapping.
func FuzzEdits(f *testing.F) {
	f.Add([]byte(deployment))
	f.Add([]byte("a:\n  b: 1 # c\n  d: 'x'\n\ne: [1, {f: 2}]\n"))
	f.Add([]byte("a: {b: 1, c: {d: \"2\"}}\r\nlist:\r\n  - k: v\r\n    m: n\r\n"))
	f.Add([]byte("a: &x {b: 1}\nc: *x\nd:\n  <<: *x\n  e: |\n    text\n  f: 2"))
	f.Fuzz(func(t *testing.T, source []byte) {
		file, err := Load("fuzz.yaml", source)
		if err != nil || len(file.Objects) == 0 || parsesStrictly(source) != nil {
			return
		}
		object := file.Objects[0]
		paths := make([]string, 0)
		for path := range object.Doc.Fields() {
			paths = append(paths, path)
		}
		sort.Strings(paths)
		for _, path := range paths[:min(len(paths), 20)] {
			relative := strings.TrimPrefix(strings.TrimPrefix(path, object.Base), ".")
			// As the rules do: the written text must be the value read.
			read, _ := object.Lookup(strings.Split(relative, ".")...)
			matches := func(written string) bool { return fmt.Sprint(read) == written }
			if edit, ok := object.ReplaceScalar(relative, matches, "fuzzfix"); ok {
				edited := applyEdit(source, edit)
				if err := parsesStrictly(edited); err != nil {
					t.Fatalf("replacing %s broke the file (%v):\n%s", path, err, edited)
				}
				if reread, err := Load("fuzz.yaml", edited); err == nil && len(reread.Objects) > 0 {
					if value, _ := reread.Objects[0].Lookup(strings.Split(relative, ".")...); value != "fuzzfix" && !strings.ContainsAny(relative, "[]\"") {
						t.Fatalf("replacing %s: it reads %v:\n%s", path, value, edited)
					}
				}
			}
			if edit, ok := object.AddFields(relative, "fuzzadded: 1\n"); ok {
				edited := applyEdit(source, edit)
				if err := parsesStrictly(edited); err != nil {
					t.Fatalf("adding to %s broke the file (%v):\n%s", path, err, edited)
				}
			}
		}
	})
}
