package kustomize

import (
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/lint/manifest"
)

// PatchFiles are the files the kustomization in dir names as patches
// (patchesStrategicMerge entries that name a file, patches[].path,
// patchesJson6902[].path), as clean absolute paths. They are read from
// that kustomization alone, without its bases, so that they are known
// whether or not the overlay builds: a patch is part of an object, never
// one of its own. A kustomization that cannot be read names none; the
// build reports it.
func PatchFiles(dir string) []string {
	name := FileName(dir)
	if name == "" {
		return nil
	}
	absolute, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	source, err := fileread.Regular(filepath.Join(absolute, name), manifest.MaxFileSize)
	if err != nil {
		return nil
	}
	var fields struct {
		StrategicMerge []any            `yaml:"patchesStrategicMerge"`
		Patches        []map[string]any `yaml:"patches"`
		JSON6902       []map[string]any `yaml:"patchesJson6902"`
	}
	if yaml.Unmarshal(source, &fields) != nil {
		return nil
	}
	entries := make([]any, 0, len(fields.StrategicMerge)+len(fields.Patches)+len(fields.JSON6902))
	entries = append(entries, fields.StrategicMerge...)
	for _, patch := range append(fields.Patches, fields.JSON6902...) {
		entries = append(entries, patch["path"])
	}
	var files []string
	for _, entry := range entries {
		file, _ := entry.(string)
		// An entry holding the patch itself (a newline, a key) names no file.
		if file == "" || strings.ContainsAny(file, "\n") || isRemote(file) {
			continue
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(absolute, filepath.FromSlash(file))
		}
		files = append(files, filepath.Clean(file))
	}
	return files
}
