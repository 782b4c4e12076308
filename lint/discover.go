package lint

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/manifest"

	"github.com/modellint/modellint/internal/fileread"
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
	// Files are read in walk order and parsed afterwards, in parallel.
	var pending []pendingLoad
	load := func(path string, source []byte) error {
		pending = append(pending, pendingLoad{path: path, source: source})
		return nil
	}
	found, err := discoverPaths(paths, stdin, found, seen, load)
	// A file that fails to parse comes before whatever stopped the walk, as
	// it would have stopped a walk that parsed as it went.
	files, loadErr := loadAll(pending)
	if loadErr != nil {
		return nil, loadErr
	}
	if err != nil {
		return nil, err
	}
	found.manifests = files
	return found, nil
}

// pendingLoad is a manifest file read but not yet parsed.
type pendingLoad struct {
	path   string
	source []byte
}

// loadAll parses the files on every CPU and returns them in the order
// given; the error is that of the first file that fails, whatever the
// scheduling.
func loadAll(pending []pendingLoad) ([]*manifest.File, error) {
	files := make([]*manifest.File, len(pending))
	errs := make([]error, len(pending))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(pending)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				files[i], errs[i] = manifest.Load(pending[i].path, pending[i].source)
			}
		}()
	}
	for i := range pending {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// discoverPaths is the walk: it hands each manifest file to load and
// sorts the rest into found.
func discoverPaths(paths []string, stdin io.Reader, found *inputs, seen map[string]bool, load func(string, []byte) error) (*inputs, error) {
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
		if info.Mode().IsRegular() && strings.EqualFold(filepath.Ext(path), ".tar") {
			return nil, fmt.Errorf("%s: not a docker-save or OCI image tarball: %v", displayPath(path), image.SaveArchiveError(path))
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
			if entry.Type().IsRegular() && strings.EqualFold(filepath.Ext(file), ".tar") && isImageSource(file) {
				// An image an earlier CI step saved: matched to the
				// manifests by its tags.
				found.imageSources = append(found.imageSources, displayPath(file))
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
	source, err := fileread.Regular(path, manifest.MaxFileSize)
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
