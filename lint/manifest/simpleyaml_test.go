package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// readSimple returns the documents of source as yaml.v3's Decoder would,
// or false when source is not all in the part of YAML the reader reads.
func readSimple(source []byte) ([]*yaml.Node, bool) {
	r, ok := newSimpleReader(source)
	if !ok {
		return nil, false
	}
	var docs []*yaml.Node
	for {
		doc, ok := r.nextDocument()
		if !ok {
			return nil, false
		}
		if doc == nil {
			return docs, true
		}
		docs = append(docs, doc)
	}
}

// yamlDocuments is what yaml.v3's Decoder reads from source, up to its
// first error.
func yamlDocuments(source []byte) ([]*yaml.Node, error) {
	decoder := yaml.NewDecoder(bytes.NewReader(source))
	var docs []*yaml.Node
	for {
		var root yaml.Node
		err := decoder.Decode(&root)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return docs, err
		}
		docs = append(docs, &root)
	}
}

// checkSimpleAgrees fails when readSimple reads source but yaml.v3 reads it
// otherwise: an error, another number of documents, or documents that
// convert to other field tables or values. It reports whether readSimple
// read source.
func checkSimpleAgrees(t *testing.T, name string, source []byte) bool {
	t.Helper()
	simple, ok := readSimple(source)
	if !ok {
		return false
	}
	docs, err := yamlDocuments(source)
	if err != nil {
		t.Errorf("%s: read simply, but yaml.v3 refuses it: %v", name, err)
		return true
	}
	if len(simple) != len(docs) {
		t.Errorf("%s: %d documents read simply, yaml.v3 reads %d", name, len(simple), len(docs))
		return true
	}
	for i := range docs {
		want, wantErr := convertDocument(name, i, docs[i], map[string]string{}, map[string]span{}, new([]byte))
		got, gotErr := convertDocument(name, i, simple[i], map[string]string{}, map[string]span{}, new([]byte))
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s: document %d: conversion error %v, yaml.v3's %v", name, i+1, gotErr, wantErr)
			continue
		}
		if wantErr != nil {
			continue
		}
		if !reflect.DeepEqual(got.fields, want.fields) || !reflect.DeepEqual(got.rareOrNone().expanded, want.rareOrNone().expanded) {
			t.Errorf("%s: document %d: field table differs from yaml.v3's\n got %s\nwant %s", name, i+1,
				describeTable(got.fields), describeTable(want.fields))
		}
	}
	return true
}

// describeTable prints a field table's entries for a failure message.
func describeTable(table fieldTable) string {
	var out strings.Builder
	for i, e := range table.entries {
		fmt.Fprintf(&out, "\n  %d %q %d:%d kind %d data %q", i, table.key(int32(i)), e.line, e.column, e.kind, table.value(int32(i)))
	}
	return out.String()
}

var simpleCases = []struct {
	name, source string
	simple       bool // whether readSimple reads it (else yaml.v3 does)
}{
	{"mapping", "a: 1\nb: two\nc: true\nd: null\ne: ~\nf: 1.5\ng: 2001-12-14\n", true},
	{"nested", "a:\n  b:\n    c: d\n  e: f\ng: h\n", true},
	{"compact sequence", "args:\n- a\n- b\nnext: 1\n", true},
	{"indented sequence", "args:\n  - a\n  - b\n", true},
	{"sequence of mappings", "containers:\n  - name: a\n    image: b\n    ports:\n    - containerPort: 80\n  - name: c\n", true},
	{"nested item block", "a:\n-\n  b: c\n", true},
	{"flow", "a: {b: c, d: [1, 2, \"x\"], e: {}}\nf: []\n", true},
	{"flow root on the marker", "--- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n", true},
	{"documents", "# head\n---\na: 1\n--- # note\nb: 2\n", true},
	{"quoted", "a: 'it''s'\nb: \"x\\ty\\u00e9\\\\\\\"\"\n'c': 1\n\"d e\": 2\n", true},
	{"comments", "a: b # c\n# d\n  # e\nf: g#h\n", true},
	{"dashes", "args: [--port, \"8000\"]\nb:\n- --model=x\n- -1\nc: -x\n", true},
	{"urls", "a: http://x:80/y\nb: a:b\n", true},
	{"literal", "a: |\n  x\n\n  y\nb: |-\n  z\nc: |+\n  w\n\nd: 1\n", true},
	{"literal with comment lines", "a: | # note\n  # not a comment\n   indented\nb: 1\n", true},
	{"literal leading empty lines", "a: |\n\n  x\n", true},
	{"literal in a sequence", "a:\n- |\n  x\n- y\n", true},
	{"non-ASCII columns", "a: é\nb: {c: ü, d: ö}\n", true},
	{"duplicate keys", "a: 1\na: 2\n", true},
	{"null values", "a:\nb:\n  # nothing\nc: 1\n", true},
	{"only comments", "# a\n\n# b\n", true},
	{"empty", "", true},
	{"keys of other types", "1: a\ntrue: b\nnull: c\n", true},
	{"trailing spaces", "a: b   \nc:   \n  d: e\n", true},
	{"no final newline", "a: b", true},
	{"literal without a final newline", "a: |\n  x\n  y", true},
	{"stripped literal without a final newline", "a: |-\n  x", true},
	{"kept literal without a final newline", "a: |+\n  x\n", true},

	{"multi-line plain", "a: b\n  c\n", false},
	{"anchors", "a: &x 1\nb: *x\n", false},
	{"merge key", "a: {b: 1}\n<<: {c: 2}\n", false},
	{"tags", "a: !!str 1\n", false},
	{"merge value", "a: <<\nb: [<<]\n", false},
	{"values yaml.v3 resolves", "a: [yes, No, on, Off, y, n, .5, .inf, -.Inf, +1, 0x1F, 0o17, 1_000, 1e3, ~, Null, TRUE, '<<']\nb: 2001-12-14T21:59:43Z\nc: -0x1\nd: +.5\n", true},
	{"folded", "a: >\n  x\n", false},
	{"indentation indicator", "a: |2\n   x\n", false},
	{"multi-line flow", "a: [1,\n  2]\n", false},
	{"multi-line quoted", "a: \"x\n  y\"\n", false},
	{"empty document", "a: 1\n---\n", false},
	{"sequence root", "- a\n", false},
	{"scalar root", "a\n", false},
	{"tab", "a:\tb\n", false},
	{"carriage return", "a: b\r\n", false},
	{"directive", "%YAML 1.2\n---\na: 1\n", false},
	{"document end", "a: 1\n...\n", false},
	{"colon in a value", "a: b: c\n", false},
	{"colon in a flow scalar", "a: {b: c:d}\n", false},
	{"trailing comma", "a: [1, 2, ]\n", false},
	{"empty item", "a:\n-\n- b\n", false},
	{"nested items", "a:\n- - b\n", false},
	{"bad indent", "a:\n    b: 1\n  c: 2\n", false},
	{"key with a space before its colon", "a : 1\n", false},
	{"unknown escape", "a: \"\\q\"\n", false},
	{"byte order mark", "\ufeffa: 1\n", false},
	{"control character", "a: \x01\n", false},
	{"literal text past its indent", "a: |\n    x\n  y\n", false},
	{"kept literal ending the stream", "a: |+\n  x\n\n  ", false},
}

func TestSimpleReaderCases(t *testing.T) {
	for _, c := range simpleCases {
		t.Run(c.name, func(t *testing.T) {
			read := checkSimpleAgrees(t, c.name, []byte(c.source))
			if read != c.simple {
				t.Errorf("read simply: %v, want %v", read, c.simple)
			}
		})
	}
}

// TestSimpleReaderAgreesOnFixtures reads every YAML file of the project's
// tests (and of ../shared/corpus, when it is there) both ways.
func TestSimpleReaderAgreesOnFixtures(t *testing.T) {
	roots := []string{"../.."}
	if _, err := os.Stat("../../../shared/corpus"); err == nil {
		roots = append(roots, "../../../shared/corpus")
	} else {
		t.Log("../shared/corpus is absent: only the project's own files are read")
	}
	files, read := 0, 0
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if entry.IsDir() && (entry.Name() == ".git" || entry.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if entry.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				return nil
			}
			info, err := entry.Info()
			if err != nil || !info.Mode().IsRegular() || info.Size() > 4<<20 {
				return nil
			}
			source, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			if checkSimpleAgrees(t, path, source) {
				read++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d of %d YAML files read simply", read, files)
	// The reader is worth its code only if it reads most manifests.
	if files < 100 || read*2 < files {
		t.Errorf("%d of %d YAML files read simply, want at least half of at least 100", read, files)
	}
}

// TestPartReaderHandsOver reads parts whose documents are simple up to
// one that is not: from that document on yaml.v3 reads them, and the
// documents, their lines and the errors are what yaml.v3 alone gives.
func TestPartReaderHandsOver(t *testing.T) {
	for _, source := range []string{
		"a: 1\n---\nb: &x 1\nc: *x\n---\nd: 2\n",
		"# head\n---\na: [1, 2]\n---\nb: >\n  folded\n",
		"a: 1\n---\nb: [\n",
		"a: 1\n---\nb: 2\n---\nc: {d\n",
		"a: 1\n---\nb:\n\t- c\n",
		"%YAML 1.2\n---\na: 1\n",
	} {
		for _, line := range []int{0, 40} {
			checkPartAgrees(t, []byte(source), line)
		}
	}
}

// checkPartAgrees fails when parsePart reads a part of a stream otherwise
// than yaml.v3 alone: other documents, lines or errors.
func checkPartAgrees(t *testing.T, source []byte, line int) {
	t.Helper()
	part := streamPart{source: source, line: line}
	got := parsePart("x.yaml", part)
	yamlOnly := &partReader{source: part.source, decoder: yaml.NewDecoder(bytes.NewReader(part.source))}
	want := parsePartWith("x.yaml", part, yamlOnly)
	// A part with an error fails its file: the documents before it are not
	// used (and yaml.v3 may stop a document before the one with the error).
	failed := want.err != nil || want.convertErr != nil
	if fmt.Sprint(got.err) != fmt.Sprint(want.err) || fmt.Sprint(got.convertErr) != fmt.Sprint(want.convertErr) ||
		!failed && len(got.docs) != len(want.docs) {
		t.Errorf("%q at line %d: %d documents, errors %v, %v; yaml.v3 alone: %d, %v, %v", source, line,
			len(got.docs), got.err, got.convertErr, len(want.docs), want.err, want.convertErr)
		return
	}
	if failed {
		return
	}
	for i := range want.docs {
		if !reflect.DeepEqual(got.docs[i].fields, want.docs[i].fields) || !reflect.DeepEqual(got.docs[i].rareOrNone().expanded, want.docs[i].rareOrNone().expanded) {
			t.Errorf("%q at line %d: document %d differs:%s\nyaml.v3 alone:%s", source, line, i+1,
				describeTable(got.docs[i].fields), describeTable(want.docs[i].fields))
		}
	}
}

// FuzzSimpleReader checks that whatever readSimple reads, yaml.v3 reads
// the same, and that a part read partly by each reads as by yaml.v3 alone.
func FuzzSimpleReader(f *testing.F) {
	for _, c := range simpleCases {
		f.Add([]byte(c.source))
	}
	f.Add([]byte(deployment))
	f.Fuzz(func(t *testing.T, source []byte) {
		checkSimpleAgrees(t, "fuzz.yaml", source)
		checkPartAgrees(t, source, 3)
	})
}

// The reader gives a document's nodes to the next: every document of the
// project's YAML files converts as it does from nodes of its own.
func TestReusedNodesConvertAsFresh(t *testing.T) {
	documents := 0
	err := filepath.WalkDir("../..", func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entry.IsDir() && entry.Name() == ".git" {
			return filepath.SkipDir
		}
		if entry.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return nil
		}
		source, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		reused := newPartReader(source)
		if reused.simple == nil || !reused.simple.reuse {
			return nil
		}
		fresh := newPartReader(source)
		fresh.simple.reuse = false
		got, want := parsePartWith(path, streamPart{source: source}, reused), parsePartWith(path, streamPart{source: source}, fresh)
		if len(got.docs) != len(want.docs) || (got.err == nil) != (want.err == nil) || (got.convertErr == nil) != (want.convertErr == nil) {
			t.Fatalf("%s: %d documents, errors %v %v; without reuse %d, %v %v", path, len(got.docs), got.err, got.convertErr, len(want.docs), want.err, want.convertErr)
		}
		for i, doc := range got.docs {
			documents++
			if !slices.Equal(doc.fields.entries, want.docs[i].fields.entries) || doc.fields.text != want.docs[i].fields.text ||
				!reflect.DeepEqual(doc.rareOrNone().expanded, want.docs[i].rareOrNone().expanded) {
				t.Errorf("%s: document %d converts otherwise from reused nodes", path, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if documents < 500 {
		t.Fatalf("%d documents read, want the project's hundreds", documents)
	}
}
