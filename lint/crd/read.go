package crd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/lint/manifest"
)

// MaxFileBytes bounds a --crds file, and the files of a --crds directory
// together: `kubectl get crd -o yaml` of a cluster with every operator of
// this field installed is some tens of MiB.
const MaxFileBytes = 128 << 20

// maxDirBytes bounds the files of a --crds directory together; each is
// a manifest file too, within manifest.MaxFileSize.
var maxDirBytes int64 = MaxFileBytes

// maxDirEntries bounds the files and directories a --crds directory walk
// visits.
const maxDirEntries = 10000

// crdExtensions are the files of a --crds directory that are read, as Helm
// reads a chart's crds/.
var crdExtensions = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// ReadPath reads the CRDs of a file (see ReadFile), or of the .yaml, .yml
// and .json files under a directory (see readDir).
func ReadPath(name string) ([]*manifest.Object, error) {
	if info, err := os.Stat(name); err == nil && info.IsDir() {
		return readDir(name)
	}
	return ReadFile(name)
}

// ReadFile reads the CRDs of a file such as `kubectl get crd -o yaml`
// writes (a List, or documents), within MaxFileBytes.
func ReadFile(name string) ([]*manifest.Object, error) {
	data, err := fileread.Regular(name, MaxFileBytes)
	var tooLarge *fileread.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return nil, fmt.Errorf("CRDs %s: larger than %d MiB", name, MaxFileBytes>>20)
	case err != nil:
		return nil, fmt.Errorf("CRDs %s: %w", name, err)
	}
	crds, err := loadCRDs(name, data)
	if err != nil {
		return nil, fmt.Errorf("CRDs %s: %w", name, err)
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("CRDs %s: no CustomResourceDefinition in it (kubectl get crd -o yaml writes them)", name)
	}
	return crds, nil
}

// readDir reads the CRDs of the .yaml, .yml and .json files under a
// directory (a chart's crds/, a checkout of an operator's CRDs), in name
// order, within maxDirBytes together and maxDirEntries. It walks an
// os.Root at the directory's real path: a symbolic link is followed to a
// file inside it, one that leaves it is refused, and a linked directory is
// not walked, so no link loops. A FIFO or device is refused before it is
// read.
func readDir(dir string) ([]*manifest.Object, error) {
	absolute, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("CRDs %s: %w", dir, err)
	}
	realRoot, err := filepath.EvalSymlinks(absolute)
	if err != nil {
		return nil, fmt.Errorf("CRDs %s: %w", dir, err)
	}
	root, err := os.OpenRoot(realRoot)
	if err != nil {
		return nil, fmt.Errorf("CRDs %s: %w", dir, err)
	}
	defer root.Close()
	var crds []*manifest.Object
	var entries int
	var size int64
	err = fs.WalkDir(root.FS(), ".", func(name string, entry fs.DirEntry, err error) error {
		shown := filepath.Join(dir, filepath.FromSlash(name))
		if err != nil {
			return fmt.Errorf("%s: %w", shown, fileread.Cause(err))
		}
		if entries++; entries > maxDirEntries {
			return fmt.Errorf("more than %d files and directories", maxDirEntries)
		}
		if entry.IsDir() || !crdExtensions[strings.ToLower(path.Ext(name))] {
			return nil
		}
		real := name
		if entry.Type()&fs.ModeSymlink != 0 {
			// Opened by the path it resolves to: the os.Root refuses a link
			// with an absolute target, even one inside it.
			target, err := filepath.EvalSymlinks(filepath.Join(realRoot, filepath.FromSlash(name)))
			if err != nil {
				return fmt.Errorf("%s: %w", shown, fileread.Cause(err))
			}
			inside, err := filepath.Rel(realRoot, target)
			if err != nil || !filepath.IsLocal(inside) {
				return fmt.Errorf("%s: symbolic link to a path outside %s: refused (only the directory's own files are read)", shown, dir)
			}
			real = filepath.ToSlash(inside)
		}
		limit := min(manifest.MaxFileSize, maxDirBytes-size)
		data, err := readInside(root, real, limit)
		var tooLarge *fileread.TooLargeError
		switch {
		case errors.As(err, &tooLarge) && limit < manifest.MaxFileSize:
			return fmt.Errorf("its files are larger than %d MiB together", maxDirBytes>>20)
		case errors.Is(err, errDirectory):
			return nil // a link to a directory, not walked
		case err != nil:
			return fmt.Errorf("%s: %w", shown, err)
		}
		size += int64(len(data))
		found, err := loadCRDs(shown, data)
		if err != nil {
			return err
		}
		crds = append(crds, found...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("CRDs %s: %w", dir, err)
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("CRDs %s: no CustomResourceDefinition in its .yaml, .yml and .json files", dir)
	}
	return crds, nil
}

// errDirectory is a name of a walked directory that leads to a directory.
var errDirectory = errors.New("a directory")

// readInside reads the regular file name inside root, of at most limit
// bytes. It is opened non-blocking and checked on the descriptor, so a
// FIFO cannot block the read.
func readInside(root *os.Root, name string, limit int64) ([]byte, error) {
	file, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fileread.Cause(err)
	}
	defer file.Close()
	info, err := file.Stat()
	switch {
	case err != nil:
		return nil, fileread.Cause(err)
	case info.IsDir():
		return nil, errDirectory
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("%s, not a regular file: refused", fileread.Kind(info.Mode()))
	}
	data, err := fileread.ReadAll(file, name, limit)
	return data, fileread.Cause(err)
}

// loadCRDs reads a file's objects and keeps its CRDs.
func loadCRDs(name string, data []byte) ([]*manifest.Object, error) {
	file, err := manifest.Load(name, data)
	if err != nil {
		return nil, err
	}
	var crds []*manifest.Object
	for _, o := range file.Objects {
		if o.Kind == "CustomResourceDefinition" {
			crds = append(crds, o)
		}
	}
	return crds, nil
}
