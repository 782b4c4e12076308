package lint

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/modellint/modellint/lint/manifest"
)

// inputs is what discovery found under the PATHs.
type inputs struct {
	manifests []*manifest.File
	// modelDirs are model directories, linted as a whole (their JSON files
	// are model metadata, not manifests).
	modelDirs []string
	// renderDirs are Helm charts (directories or packaged .tgz) and
	// Kustomize overlays, rendered as a unit.
	renderDirs []string
	// imageSources are image tarballs or OCI layouts named as PATHs.
	imageSources []string
}

// manifestExtensions are the file names a directory walk picks up.
var manifestExtensions = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// skippedDirs are never walked into.
var skippedDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true}

// discover walks the PATHs in order (directories lexically) and sorts what
// it finds into manifests, model dirs, charts and overlays, and images.
func discover(paths []string, stdin io.Reader) (*inputs, error) {
	found := &inputs{}
	seen := map[string]bool{}
	load := func(path string, source []byte) error {
		file, err := manifest.Load(path, source)
		if err != nil {
			return err
		}
		found.manifests = append(found.manifests, file)
		return nil
	}
	// unit claims a directory that is linted as a whole; false means walk it.
	unit := func(dir string) bool {
		name := displayPath(dir)
		switch {
		case isModelDir(dir):
			found.modelDirs = append(found.modelDirs, name)
		case isRenderDir(dir):
			found.renderDirs = append(found.renderDirs, name)
		default:
			return false
		}
		return true
	}
	for _, path := range paths {
		if path == "-" {
			if stdin == nil {
				return nil, fmt.Errorf("-: no standard input")
			}
			source, err := io.ReadAll(io.LimitReader(stdin, manifest.MaxFileSize+1))
			if err != nil {
				return nil, fmt.Errorf("<stdin>: %w", err)
			}
			if err := load("<stdin>", source); err != nil {
				return nil, err
			}
			continue
		}
		info, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
		}
		if isImageSource(path) {
			found.imageSources = append(found.imageSources, displayPath(path))
			continue
		}
		if isRenderArchive(path) {
			found.renderDirs = append(found.renderDirs, displayPath(path))
			continue
		}
		if !info.IsDir() {
			name := displayPath(path)
			if seen[name] {
				continue
			}
			seen[name] = true
			source, err := readManifest(path, info)
			if err == nil {
				err = load(name, source)
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		err = filepath.WalkDir(path, func(file string, entry fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("%s: %w", displayPath(file), unwrapPathError(err))
			}
			if entry.IsDir() {
				if file != path && skippedDirs[entry.Name()] {
					return filepath.SkipDir
				}
				if unit(file) {
					return filepath.SkipDir
				}
				return nil
			}
			if !entry.Type().IsRegular() || !manifestExtensions[strings.ToLower(filepath.Ext(file))] {
				return nil
			}
			name := displayPath(file)
			if seen[name] {
				return nil
			}
			seen[name] = true
			info, err := entry.Info()
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			source, err := readManifest(file, info)
			if err != nil {
				return err
			}
			return load(name, source)
		})
		if err != nil {
			return nil, err
		}
	}
	return found, nil
}

// readManifest reads a file after checking its size, so a huge file is an
// error before it is in memory.
func readManifest(path string, info fs.FileInfo) ([]byte, error) {
	if info.Size() > manifest.MaxFileSize {
		return nil, fmt.Errorf("%s: file is %d MiB, more than the %d MiB a manifest may hold", displayPath(path), info.Size()>>20, manifest.MaxFileSize>>20)
	}
	source, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", displayPath(path), unwrapPathError(err))
	}
	return source, nil
}

func unwrapPathError(err error) error {
	if pathErr, ok := err.(*fs.PathError); ok {
		return pathErr.Err
	}
	return err
}

// displayPath is how a file is named in reports: relative to the working
// directory when it is inside it, with forward slashes.
func displayPath(path string) string {
	if filepath.IsAbs(path) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
				path = rel
			}
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}
