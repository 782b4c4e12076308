package kustomize

import (
	"path/filepath"
	"strings"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/lint/manifest"
)

// PatchFiles are the files the kustomization in dir names as patches
// (patchesStrategicMerge entries that name a file, patches[].path,
// patchesJson6902[].path), as clean absolute paths. They are read from
// that kustomization alone, without its bases, so that they are known
// whether or not the overlay builds: a patch is part of an object, never
// one of its own. A kustomization that cannot be read, or that is a link
// leading out of dir, names none; the build reports it.
func PatchFiles(dir string) []string {
	absolute, fields := readAlone(dir)
	var entries []any
	if list, ok := fields["patchesStrategicMerge"].([]any); ok {
		entries = append(entries, list...)
	}
	for _, field := range []string{"patches", "patchesJson6902"} {
		list, _ := fields[field].([]any)
		for _, patch := range list {
			if entry, ok := patch.(map[string]any); ok {
				entries = append(entries, entry["path"])
			}
		}
	}
	var files []string
	for _, entry := range entries {
		path, _ := entry.(string)
		// An entry holding the patch itself (a newline, a key) names no file.
		if path == "" || strings.ContainsAny(path, "\n") || isRemote(path) {
			continue
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(absolute, filepath.FromSlash(path))
		}
		files = append(files, filepath.Clean(path))
	}
	return files
}

// IsComponent reports whether the kustomization in dir is a Component
// (kind: Component), which kustomize builds only as part of an overlay
// that lists it under components:, on that overlay's objects.
func IsComponent(dir string) bool {
	_, fields := readAlone(dir)
	return fields["kind"] == "Component"
}

// readAlone reads the kustomization in dir without its bases: its dir as
// an absolute path and its fields, nil when it cannot be read, is no
// mapping, or is a link leading out of dir.
func readAlone(dir string) (string, map[string]any) {
	name := FileName(dir)
	if name == "" {
		return "", nil
	}
	absolute, err := filepath.Abs(dir)
	if err != nil {
		return "", nil
	}
	file := filepath.Join(absolute, name)
	realDir, dirErr := filepath.EvalSymlinks(absolute)
	realFile, fileErr := filepath.EvalSymlinks(file)
	if dirErr != nil || fileErr != nil || filepath.Dir(realFile) != realDir {
		return "", nil
	}
	source, err := fileread.Regular(realFile, manifest.MaxFileSize)
	if err != nil {
		return "", nil
	}
	// The parser the build's own read uses, with its bounds.
	docs, err := manifest.ParseDocuments(file, source)
	if err != nil || len(docs) == 0 {
		return "", nil
	}
	fields, _ := docs[0].Plain().(map[string]any)
	return absolute, fields
}
