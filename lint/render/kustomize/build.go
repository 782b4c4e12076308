package kustomize

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/lint/manifest"

	"github.com/modellint/modellint/internal/fileread"

	"github.com/modellint/modellint/internal/message"
)

// Build builds the kustomization in dir as `kustomize build` does, in-process
// and offline. display is how users name dir. It returns one manifest file
// per file the objects came from (a base's resource file; the kustomization
// for generated objects), with every field on the line of the resource or
// patch that wrote it. loadRestrictor "none" lets the overlay read files
// outside its own dir, as `kustomize build --load-restrictor
// LoadRestrictionsNone` does; "" or "rootOnly" is kustomize's default.
func Build(dir, display, loadRestrictor string) ([]*manifest.File, error) {
	options := krusty.MakeDefaultOptions()
	switch strings.ToLower(loadRestrictor) {
	case "", "rootonly", "loadrestrictionsrootonly":
	case "none", "loadrestrictionsnone":
		options.LoadRestrictions = types.LoadRestrictionsNone
	default:
		return nil, fmt.Errorf("kustomize load restrictor %s: want none or rootOnly", message.Quote(loadRestrictor))
	}
	root, err := readOverlay(dir, display)
	if err != nil {
		return nil, err
	}
	fileSystem := &originTracking{FileSystem: filesys.MakeFsOnDisk(), root: root.path}
	if resolved, err := filepath.EvalSymlinks(root.path); err == nil {
		fileSystem.resolvedRoot = resolved
	}
	built, err := krusty.MakeKustomizer(options).Run(fileSystem, root.dir)
	if err != nil {
		message := oneLine(err.Error())
		if strings.Contains(message, "is not in or below") {
			return nil, fmt.Errorf("%s: a resource or patch is outside the overlay's dir, which kustomize refuses by default; "+
				"build it with --kustomize-load-restrictor none (kustomize.loadRestrictor: none in .modellint.yaml) if that is how it is deployed", root.file)
		}
		// Kustomize names files by absolute path; reports name them as the user did.
		return nil, fmt.Errorf("%s: %s", root.file, strings.ReplaceAll(message, root.dir, root.display))
	}

	// Objects are grouped by the file they came from, in build order.
	type group struct {
		source    string // absolute path
		resources []*resource
		text      bytes.Buffer
	}
	var groups []*group
	bySource := map[string]*group{}
	for _, res := range built.Resources() {
		origin, err := res.GetOrigin()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", root.file, res.CurId(), err)
		}
		if fileSystem.injected {
			if err := res.SetOrigin(nil); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", root.file, res.CurId(), err)
			}
		}
		source := root.path
		switch {
		case origin != nil && origin.Repo != "":
			return nil, fmt.Errorf("%s: %s comes from the remote repository %s, which modellint does not fetch", root.file, res.CurId(), origin.Repo)
		case origin != nil && origin.Path != "":
			source = filepath.Join(root.dir, filepath.FromSlash(origin.Path))
		case origin != nil && origin.ConfiguredIn != "":
			source = filepath.Join(root.dir, filepath.FromSlash(origin.ConfiguredIn))
		}
		data, err := res.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", root.file, res.CurId(), err)
		}
		g := bySource[source]
		if g == nil {
			g = &group{source: source}
			bySource[source] = g
			groups = append(groups, g)
		}
		if g.text.Len() > 0 {
			g.text.WriteString("---\n")
		}
		g.text.Write(data)
		g.resources = append(g.resources, &resource{kind: res.GetKind(), name: res.GetName()})
	}

	var files []*manifest.File
	for _, g := range groups {
		fileDisplay := root.displayOf(g.source)
		source, err := fileread.Regular(g.source, manifest.MaxFileSize)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fileDisplay, unwrapPathError(err))
		}
		file, err := manifest.LoadRendered(fileDisplay, source, g.text.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s: built output is not valid YAML: %w", root.file, err)
		}
		written, _ := manifest.ParseDocuments(fileDisplay, source)
		owner := root.owner(g.source)
		chain := root.chain(owner)
		for _, doc := range file.Documents() {
			if doc.Index >= len(g.resources) {
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
		files = append(files, file)
	}
	return append(files, root.sourceFiles()...), nil
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

// originTracking asks kustomize to record where every object came from (the
// config.kubernetes.io/origin annotation) by adding buildMetadata:
// [originAnnotations] to the root kustomization as kustomize reads it; the
// file on disk is not changed, and the annotation is removed from the objects.
type originTracking struct {
	filesys.FileSystem
	root, resolvedRoot string
	injected           bool
}

func (f *originTracking) ReadFile(name string) ([]byte, error) {
	data, err := f.FileSystem.ReadFile(name)
	if err != nil || (name != f.root && name != f.resolvedRoot) {
		return data, err
	}
	var fields map[string]any
	if yaml.Unmarshal(data, &fields) != nil || fields == nil {
		return data, nil // kustomize reports the error
	}
	options, _ := fields["buildMetadata"].([]any)
	for _, option := range options {
		if option == "originAnnotations" {
			return data, nil
		}
	}
	fields["buildMetadata"] = append(options, "originAnnotations")
	marked, err := yaml.Marshal(fields)
	if err != nil {
		return data, nil
	}
	f.injected = true
	return marked, nil
}

// oneLine joins kustomize's multi-line messages.
func oneLine(message string) string {
	lines := strings.Split(strings.TrimSpace(message), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}
