package rules_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
)

// docModel is the model dir the examples of cross rules are linted with: a
// valid TF Serving model named resnet, which the server path of docBase
// (/models/resnet) links to by name.
const docModel = "testdata/MDL403/models/half_plus_two"

// checkOtherExamples lints the Bad and Good examples of a model, image or
// cross rule: a model rule's examples are model dir trees, built as empty
// files in a temp dir; a cross rule's are manifest snippets merged into
// docBase and linted beside docModel. A rule whose examples cannot be
// built as written says why in Doc.Unlintable.
func checkOtherExamples(t *testing.T, rule *lint.Rule) {
	t.Helper()
	doc := rule.Doc
	if doc.Unlintable != "" {
		if len(doc.Unlintable) < 30 || strings.Contains(doc.Unlintable, "\n") {
			t.Errorf("Doc.Unlintable %q does not say, in one line, why the examples cannot be linted", doc.Unlintable)
		}
		if rule.Artifact == lint.ArtifactModel {
			if _, err := parseTree(doc.Bad); err == nil {
				if _, err := parseTree(doc.Good); err == nil {
					t.Errorf("Doc.Unlintable is set, but both examples are model dir trees the test builds: lint them")
				}
			}
		}
		return
	}
	var bad, good func(t *testing.T) (int, bool)
	switch rule.Artifact {
	case lint.ArtifactModel:
		badFiles, err := parseTree(doc.Bad)
		if err != nil {
			t.Fatalf("the Bad example is not a model dir tree (%v): write it as one, or set Doc.Unlintable to say why it cannot be:\n%s", err, doc.Bad)
		}
		goodFiles, err := parseTree(doc.Good)
		if err != nil {
			t.Fatalf("the Good example is not a model dir tree (%v): write it as one, or set Doc.Unlintable to say why it cannot be:\n%s", err, doc.Good)
		}
		bad = func(t *testing.T) (int, bool) { return treeFindings(t, rule.ID, badFiles) }
		good = func(t *testing.T) (int, bool) { return treeFindings(t, rule.ID, goodFiles) }
	case lint.ArtifactCross:
		model := readTree(t, docModel, "resnet")
		bad = func(t *testing.T) (int, bool) { return exampleFindings(t, rule.ID, doc.Bad, model) }
		good = func(t *testing.T) (int, bool) { return exampleFindings(t, rule.ID, doc.Good, model) }
	default:
		t.Fatalf("the examples of a %s rule need the image's files, which they can only describe: set Doc.Unlintable to say so", rule.Artifact)
	}
	if n, _ := bad(t); n == 0 {
		t.Errorf("the Bad example does not trigger %s:\n%s", rule.ID, doc.Bad)
	}
	switch n, passed := good(t); {
	case n != 0:
		t.Errorf("the Good example triggers %s %d time(s):\n%s", rule.ID, n, doc.Good)
	case !passed:
		t.Errorf("%s does not check the Good example (skipped or not a target):\n%s", rule.ID, doc.Good)
	}
}

// parseTree reads an example written as a directory tree, one entry a line,
// two spaces of indent a level, directories ending in /:
//
//	models/resnet/
//	  1/
//	    saved_model.pb
//
// and returns its files and directories (ending in /). A comment is an
// error: it describes what the tree does not spell out.
func parseTree(example string) (map[string]string, error) {
	files := map[string]string{}
	var stack []string // the directory at each level
	for i, line := range strings.Split(strings.TrimRight(example, "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if strings.Contains(line, "#") {
			return nil, fmt.Errorf("line %d has a comment, which describes what it does not spell out", i+1)
		}
		entry := strings.TrimLeft(line, " ")
		indent := len(line) - len(entry)
		if indent%2 != 0 || indent/2 > len(stack) || strings.ContainsAny(entry, " \t:") || strings.Contains(entry, "..") ||
			filepath.IsAbs(entry) || i > 0 && indent == 0 {
			return nil, fmt.Errorf("line %d %q is not a tree entry", i+1, line)
		}
		stack = stack[:indent/2]
		path := strings.Join(append(append([]string{}, stack...), entry), "")
		if strings.HasSuffix(entry, "/") {
			stack = append(stack, entry)
			files[path] = ""
			continue
		}
		files[path] = ""
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no entries")
	}
	return files, nil
}

// treeFindings builds a tree's files (empty) in a temp dir and lints it.
func treeFindings(t *testing.T, ruleID string, files map[string]string) (int, bool) {
	t.Helper()
	dir := t.TempDir()
	writeExampleFiles(t, dir, files)
	return lintExample(t, ruleID, dir)
}

// writeExampleFiles writes files (relative path → content; a path ending in / is a
// directory) under dir.
func writeExampleFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree reads the files under root as writeExampleFiles writes them, under
// prefix.
func readTree(t *testing.T, root, prefix string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
		if err != nil || entry.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		files[prefix+"/"+filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("read %s: %v (%d files)", root, err, len(files))
	}
	return files
}
