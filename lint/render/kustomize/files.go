package kustomize

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"

	"github.com/modellint/modellint/lint/manifest"

	"github.com/modellint/modellint/internal/fileread"
)

// Overlay is an overlay's tree of kustomizations, read before kustomize
// builds it.
type Overlay struct {
	root *kustomization
	tree string // the root it was read in
}

// Root is the tree the overlay was read in (see Root).
func (o *Overlay) Root() string { return o.tree }

// ReadOverlay reads the tree of the overlay in dir, named display, inside
// root (see Root).
func ReadOverlay(dir, display, root string) (*Overlay, error) {
	top, err := readOverlay(dir, display, root)
	if err != nil {
		return nil, err
	}
	return &Overlay{root: top, tree: root}, nil
}

// Dir is the overlay's directory, absolute.
func (o *Overlay) Dir() string { return o.root.dir }

// Display is the overlay's directory as users name it.
func (o *Overlay) Display() string { return o.root.display }

// Path is the overlay's kustomization file, absolute.
func (o *Overlay) Path() string { return o.root.path }

// File is the overlay's kustomization file as users name it.
func (o *Overlay) File() string { return o.root.file }

// Object is one object as kustomize built it: the file it came from
// (absolute; the kustomization that generated it for a generated object)
// and its YAML.
type Object struct {
	Source     string
	Kind, Name string
	YAML       []byte
}

// Built is one file of a build: its objects, each field placed on the line
// that wrote it, and the text they were parsed from. A kustomization or
// patch file, where fields may be placed, comes without objects or Text.
type Built struct {
	File *manifest.File
	Text []byte
}

// Files groups the objects by the file they came from, in build order, and
// places their fields; the overlay's kustomization and patch files follow.
func (o *Overlay) Files(objects []Object) ([]Built, error) {
	root := o.root
	type group struct {
		source    string // absolute path
		resources []*resource
		text      bytes.Buffer
	}
	var groups []*group
	bySource := map[string]*group{}
	for _, object := range objects {
		g := bySource[object.Source]
		if g == nil {
			g = &group{source: object.Source}
			bySource[object.Source] = g
			groups = append(groups, g)
		}
		if g.text.Len() > 0 {
			g.text.WriteString("---\n")
		}
		g.text.Write(object.YAML)
		g.resources = append(g.resources, &resource{kind: object.Kind, name: object.Name})
	}

	var files []Built
	for _, g := range groups {
		fileDisplay := root.displayOf(g.source)
		if err := Confine(o.tree, g.source); err != nil {
			return nil, fmt.Errorf("%s: %w", fileDisplay, err)
		}
		source, err := fileread.Regular(g.source, manifest.MaxFileSize)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fileDisplay, fileread.Cause(err))
		}
		file, err := manifest.LoadRendered(fileDisplay, source, g.text.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s: built output is not valid YAML: %w", root.file, err)
		}
		written, _ := manifest.ParseDocuments(fileDisplay, source)
		owner := root.owner(g.source)
		chain := root.chain(owner)
		for _, doc := range file.Documents() {
			if int(doc.Index) >= len(g.resources) {
				continue
			}
			res := g.resources[doc.Index]
			res.value, _ = doc.Plain().(map[string]any)
			trace := &resourceTrace{res: res, chain: chain}
			if owner != nil && g.source == owner.path {
				trace.generatedBy = owner
			} else {
				trace.written = findDocument(written, res)
			}
			doc.Relocate(trace.where)
		}
		files = append(files, Built{File: file, Text: g.text.Bytes()})
	}
	for _, file := range root.sourceFiles() {
		files = append(files, Built{File: file})
	}
	return files, nil
}

// sourceFiles are the kustomization and patch files fields may be placed in,
// as files without objects: an inline ignore comment there is read like one
// in a manifest.
func (k *kustomization) sourceFiles() []*manifest.File {
	var files []*manifest.File
	k.each(func(node *kustomization) bool {
		files = append(files, &manifest.File{Path: node.file, Source: node.source})
		for _, p := range node.patches {
			if !p.inline {
				files = append(files, &manifest.File{Path: p.file, Source: p.source})
			}
		}
		return true
	})
	return files
}

// displayOf names a file of the tree as users see it, relative to the
// overlay they gave.
func (k *kustomization) displayOf(file string) string {
	relative, err := filepath.Rel(k.dir, file)
	if err != nil {
		return file
	}
	return path.Join(k.display, filepath.ToSlash(relative))
}
