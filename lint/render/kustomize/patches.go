package kustomize

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint/manifest"

	"github.com/modellint/modellint/internal/fileread"
)

// patch is one patch a kustomization applies, parsed with positions, so a
// field it sets can be shown on its line.
type patch struct {
	file   string // where it is written: the patch file, or the kustomization for an inline patch
	source []byte
	docs   []*manifest.Document
	// json is true for JSON 6902 operations, false for strategic merge.
	json bool
	// kind and name select the target (name is a regular expression); for
	// a strategic merge patch without them, its own kind and name do.
	kind, name string
	// An inline patch is a block scalar of the kustomization: its lines
	// start after line, indented by indent.
	inline       bool
	line, indent int
}

// readPatches reads the kustomization's patchesStrategicMerge, patches and
// patchesJson6902, in the order kustomize applies them, inside root.
func (k *kustomization) readPatches(root string) error {
	entries, _ := manifest.ValueAt(k.doc.Plain(), "patchesStrategicMerge")
	list, _ := entries.([]any)
	for i, entry := range list {
		text, _ := entry.(string)
		if err := k.addPatch(manifest.IndexPath("patchesStrategicMerge", i), text, "", nil, false, root); err != nil {
			return err
		}
	}
	for _, field := range []string{"patches", "patchesJson6902"} {
		entries, _ := manifest.ValueAt(k.doc.Plain(), field)
		list, _ := entries.([]any)
		for i, entry := range list {
			fields, _ := entry.(map[string]any)
			file, _ := fields["path"].(string)
			inline, _ := fields["patch"].(string)
			target, _ := fields["target"].(map[string]any)
			fieldPath := manifest.IndexPath(field, i)
			if file == "" {
				fieldPath += ".patch"
			}
			if err := k.addPatch(fieldPath, file, inline, target, field == "patchesJson6902", root); err != nil {
				return err
			}
		}
	}
	return nil
}

// addPatch reads a patch from file (relative to the kustomization), or
// inline from the kustomization at fieldPath. patchesStrategicMerge entries
// are a file or an inline patch in the same string.
func (k *kustomization) addPatch(fieldPath, file, inline string, target map[string]any, json bool, root string) error {
	p := &patch{json: json}
	p.kind, _ = target["kind"].(string)
	p.name, _ = target["name"].(string)
	var source []byte
	if file != "" && !strings.Contains(file, "\n") {
		if err := k.checkEntry(strings.SplitN(fieldPath, ".", 2)[0], file, root); err != nil {
			return err
		}
	}
	if file != "" {
		full := filepath.Join(k.dir, filepath.FromSlash(file))
		data, err := fileread.Regular(full, manifest.MaxFileSize)
		switch {
		case err == nil:
			source, p.file = data, path.Join(k.display, file)
		case fileread.IsNotRegular(err) || errors.As(err, new(*fileread.TooLargeError)):
			return fmt.Errorf("%s: patch %s: %w", k.file, file, err)
		case inline == "" && strings.ContainsAny(file, "\n:"):
			inline = file // a patchesStrategicMerge entry holding the patch itself
		default:
			return nil // kustomize reports the missing file
		}
	}
	if source == nil {
		source, p.file, p.inline = []byte(inline), k.file, true
		p.line, p.indent = k.blockStart(fieldPath)
	}
	docs, err := manifest.ParseDocuments(p.file, source)
	if err != nil {
		return nil // kustomize reports a patch it cannot read
	}
	p.docs, p.source = docs, source
	if len(docs) > 0 {
		if _, isList := docs[0].Plain().([]any); isList {
			p.json = true
		}
	}
	k.patches = append(k.patches, p)
	return nil
}

// blockStart finds where the text of an inline patch starts in the
// kustomization: the line before its first line, and its indentation. A patch
// written as a quoted string has no lines of its own; all of it is then
// placed on its key.
func (k *kustomization) blockStart(fieldPath string) (int, int) {
	pos := k.doc.Locate(fieldPath)
	lines := strings.Split(string(k.source), "\n")
	if pos.Line < 1 || pos.Line > len(lines) {
		return 0, 0
	}
	keyLine := lines[pos.Line-1]
	_, after, found := strings.Cut(keyLine[min(pos.Column-1, len(keyLine)):], ":")
	if !found {
		after = keyLine[min(pos.Column-1, len(keyLine)):] // a sequence item: "- |"
		after = strings.TrimPrefix(strings.TrimSpace(after), "-")
	}
	if indicator := strings.TrimSpace(after); !strings.HasPrefix(indicator, "|") && !strings.HasPrefix(indicator, ">") {
		return -1, 0
	}
	for _, line := range lines[pos.Line:] {
		if strings.TrimSpace(line) != "" {
			return pos.Line, len(line) - len(strings.TrimLeft(line, " "))
		}
	}
	return pos.Line, 0
}

// position maps a position inside the patch to the file it is written in.
func (p *patch) position(doc *manifest.Document, fieldPath string) (string, manifest.Position) {
	pos := doc.Locate(fieldPath)
	if p.inline {
		if p.line < 0 {
			return p.file, manifest.Position{}
		}
		pos.Line += p.line
		pos.Column += p.indent
	}
	return p.file, pos
}

// targets reports whether the patch applies to a resource of kind named name.
func (p *patch) targets(doc *manifest.Document, kind, name string) bool {
	wantKind, wantName := p.kind, p.name
	if !p.json && wantKind == "" && wantName == "" {
		wantKind, _ = lookupString(doc.Plain(), "kind")
		wantName, _ = lookupString(doc.Plain(), "metadata.name")
	}
	if wantKind != "" && wantKind != kind {
		return false
	}
	if wantName == "" || wantName == name || strings.Contains(name, wantName) {
		return true
	}
	pattern, err := regexp.Compile("^(?:" + wantName + ")$")
	return err == nil && pattern.MatchString(name)
}

// find returns where the patch writes the field at fieldPath of a rendered
// resource, if it writes the rendered value there.
func (p *patch) find(res *resource, fieldPath string, value any) (string, manifest.Position, bool) {
	for _, doc := range p.docs {
		if !p.targets(doc, res.kind, res.name) {
			continue
		}
		if p.json {
			if file, pos, ok := p.findOperation(doc, res, fieldPath, value); ok {
				return file, pos, true
			}
			continue
		}
		if identifies(fieldPath) {
			continue
		}
		written, ok := translate(res.value, fieldPath, doc.Plain())
		if !ok || !doc.Has(written) {
			continue
		}
		if scalar(value) {
			if writtenValue, _ := manifest.ValueAt(doc.Plain(), written); !sameScalar(writtenValue, value) {
				continue
			}
		}
		file, pos := p.position(doc, written)
		return file, pos, true
	}
	return "", manifest.Position{}, false
}

// identifies reports whether a field of a strategic merge patch only
// says what it patches (the object's kind and name, a list item's merge key)
// rather than setting a value.
func identifies(fieldPath string) bool {
	switch fieldPath {
	case "apiVersion", "kind", "metadata.name", "metadata.namespace":
		return true
	}
	elements := manifest.SplitPath(fieldPath)
	if len(elements) < 2 || !elements[len(elements)-2].IsIndex {
		return false
	}
	return slices.Contains(mergeKeys, elements[len(elements)-1].Key)
}

// findOperation finds the last add or replace operation that wrote the field.
func (p *patch) findOperation(doc *manifest.Document, res *resource, fieldPath string, value any) (string, manifest.Position, bool) {
	operations, _ := doc.Plain().([]any)
	for i := len(operations) - 1; i >= 0; i-- {
		operation, _ := operations[i].(map[string]any)
		if op, _ := operation["op"].(string); op != "add" && op != "replace" {
			continue
		}
		pointer, _ := operation["path"].(string)
		target, ok := pointerPath(pointer, res.value)
		if !ok || (fieldPath != target && !isDescendant(fieldPath, target)) {
			continue
		}
		written := manifest.ConcatPath(manifest.IndexPath("", i)+".value", strings.TrimPrefix(fieldPath, target))
		if !doc.Has(written) {
			continue
		}
		if scalar(value) {
			if writtenValue, _ := manifest.ValueAt(doc.Plain(), written); !sameScalar(writtenValue, value) {
				continue
			}
		}
		file, pos := p.position(doc, written)
		return file, pos, true
	}
	return "", manifest.Position{}, false
}

// pointerPath turns a JSON pointer into a field path of value
// ("/spec/template/spec/containers/0/image" → "spec.template.spec.containers[0].image").
func pointerPath(pointer string, value any) (string, bool) {
	if !strings.HasPrefix(pointer, "/") {
		return "", false
	}
	fieldPath := ""
	for _, token := range strings.Split(pointer[1:], "/") {
		token = strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
		switch current := value.(type) {
		case []any:
			index, err := strconv.Atoi(token)
			if token == "-" {
				index, err = len(current)-1, nil
			}
			if err != nil || index < 0 || index >= len(current) {
				return "", false
			}
			fieldPath, value = manifest.IndexPath(fieldPath, index), current[index]
		case map[string]any:
			fieldPath, value = manifest.JoinPath(fieldPath, token), current[token]
		default:
			return "", false
		}
	}
	return fieldPath, true
}
