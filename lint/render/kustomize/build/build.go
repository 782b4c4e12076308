// Package build builds a Kustomize overlay with kustomize's own Go API,
// offline, as `kustomize build` would; package kustomize places the fields
// of the result. Only the renderer links it (see charts.Renderer.BuildOverlay).
package build

import (
	"fmt"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/lint/render/kustomize"

	"github.com/modellint/modellint/internal/message"
)

// Overlay builds the kustomization in dir as `kustomize build` does,
// in-process and offline. display is how users name dir. It returns one
// file per file the objects came from (a base's resource file; the
// kustomization for generated objects), with every field on the line of the
// resource or patch that wrote it, then the kustomization and patch files.
//
// root is the tree the overlay may read (see kustomize.Root; "" is dir's):
// every field of every kustomization it builds on is checked first, and the
// build reads through a file system that refuses anything outside root, so
// no field fetches a URL, clones a repository or reads a host file.
// loadRestrictor "none" lets a kustomization read files outside its own dir
// (but inside root), as `kustomize build --load-restrictor
// LoadRestrictionsNone` does; "" or "rootOnly" is kustomize's default.
func Overlay(dir, display, root, loadRestrictor string) ([]kustomize.Built, error) {
	options := krusty.MakeDefaultOptions()
	switch strings.ToLower(loadRestrictor) {
	case "", "rootonly", "loadrestrictionsrootonly":
	case "none", "loadrestrictionsnone":
		options.LoadRestrictions = types.LoadRestrictionsNone
	default:
		return nil, fmt.Errorf("kustomize load restrictor %s: want none or rootOnly", message.Quote(loadRestrictor))
	}
	// Builtin plugins only: no exec or container functions, no helm.
	options.PluginConfig = types.DisabledPluginConfig()
	options.PluginConfig.HelmConfig = types.HelmConfig{Enabled: false}
	options.PluginConfig.FnpLoadingOptions = types.FnPluginLoadingOptions{}
	offline()
	if root == "" {
		var err error
		if root, err = kustomize.Root(dir); err != nil {
			return nil, fmt.Errorf("%s: %w", display, err)
		}
	}
	if err := checkOverlay(dir, display, root); err != nil {
		return nil, err
	}
	overlay, err := kustomize.ReadOverlay(dir, display, root)
	if err != nil {
		return nil, err
	}
	return run(overlay, options)
}

// run runs kustomize on an overlay that has been read and checked, on the
// confined file system.
func run(overlay *kustomize.Overlay, options *krusty.Options) ([]kustomize.Built, error) {
	fileSystem := &originTracking{FileSystem: confined{disk: filesys.MakeFsOnDisk(), root: overlay.Root()}, root: overlay.Path()}
	if resolved, err := filepath.EvalSymlinks(overlay.Path()); err == nil {
		fileSystem.resolvedRoot = resolved
	}
	built, err := krusty.MakeKustomizer(options).Run(fileSystem, overlay.Dir())
	if err != nil {
		message := oneLine(err.Error())
		if strings.Contains(message, "is not in or below") {
			return nil, fmt.Errorf("%s: a resource or patch is outside the overlay's dir, which kustomize refuses by default; "+
				"build it with --kustomize-load-restrictor none if that is how it is deployed", overlay.File())
		}
		// Kustomize names files by absolute path; reports name them as the user did.
		return nil, fmt.Errorf("%s: %s", overlay.File(), strings.ReplaceAll(message, overlay.Dir(), overlay.Display()))
	}

	var objects []kustomize.Object
	for _, res := range built.Resources() {
		origin, err := res.GetOrigin()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", overlay.File(), res.CurId(), err)
		}
		if fileSystem.injected {
			if err := res.SetOrigin(nil); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", overlay.File(), res.CurId(), err)
			}
		}
		source := overlay.Path()
		switch {
		case origin != nil && origin.Repo != "":
			return nil, fmt.Errorf("%s: %s comes from the remote repository %s, which modellint does not fetch", overlay.File(), res.CurId(), origin.Repo)
		case origin != nil && origin.Path != "":
			source = filepath.Join(overlay.Dir(), filepath.FromSlash(origin.Path))
		case origin != nil && origin.ConfiguredIn != "":
			source = filepath.Join(overlay.Dir(), filepath.FromSlash(origin.ConfiguredIn))
		}
		data, err := res.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", overlay.File(), res.CurId(), err)
		}
		objects = append(objects, kustomize.Object{Source: source, Kind: res.GetKind(), Name: res.GetName(), YAML: data})
	}
	return overlay.Files(objects)
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
