package build

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/render/kustomize"

	"github.com/modellint/modellint/internal/fileread"
)

// confined is the file system kustomize builds on: it reads only inside the
// root, symlinks resolved, and writes nothing. The check before the build
// refuses every field that would lead elsewhere; this holds even for one it
// would miss, such as a file a builtin plugin names or a directory a
// generator reads whole.
type confined struct {
	disk filesys.FileSystem
	root string
}

// errWrite is what kustomize gets when it would write: a build needs no
// file, and kustomize writes only to clone a repository.
var errWrite = errors.New("modellint builds overlays without writing files")

func (c confined) check(name string) error {
	if err := kustomize.Confine(c.root, name); err != nil {
		return fmt.Errorf("%s %w", name, err)
	}
	return nil
}

func (c confined) Create(string) (filesys.File, error) { return nil, errWrite }
func (c confined) Mkdir(string) error                  { return errWrite }
func (c confined) MkdirAll(string) error               { return errWrite }
func (c confined) RemoveAll(string) error              { return errWrite }
func (c confined) WriteFile(string, []byte) error      { return errWrite }

func (c confined) Open(name string) (filesys.File, error) {
	if err := c.check(name); err != nil {
		return nil, err
	}
	return c.disk.Open(name)
}

func (c confined) IsDir(name string) bool { return c.check(name) == nil && c.disk.IsDir(name) }

func (c confined) Exists(name string) bool { return c.check(name) == nil && c.disk.Exists(name) }

func (c confined) ReadDir(name string) ([]string, error) {
	if err := c.check(name); err != nil {
		return nil, err
	}
	return c.disk.ReadDir(name)
}

func (c confined) CleanedAbs(name string) (filesys.ConfirmedDir, string, error) {
	if err := c.check(name); err != nil {
		return "", "", err
	}
	return c.disk.CleanedAbs(name)
}

// Glob keeps the matches inside the root.
func (c confined) Glob(pattern string) ([]string, error) {
	matches, err := c.disk.Glob(pattern)
	if err != nil {
		return nil, err
	}
	kept := matches[:0]
	for _, match := range matches {
		if c.check(match) == nil {
			kept = append(kept, match)
		}
	}
	return kept, nil
}

// ReadFile reads a regular file of a bounded size: kustomize's own would
// wait on a FIFO or read a device without end.
func (c confined) ReadFile(name string) ([]byte, error) {
	if err := c.check(name); err != nil {
		return nil, err
	}
	return fileread.Regular(name, manifest.MaxFileSize)
}

func (c confined) Walk(name string, walk filepath.WalkFunc) error {
	if err := c.check(name); err != nil {
		return err
	}
	return c.disk.Walk(name, func(path string, info fs.FileInfo, err error) error {
		if err == nil && c.check(path) != nil {
			if info.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		return walk(path, info, err)
	})
}

// offline makes the process's default HTTP transport refuse every request:
// kustomize's loader fetches a URL it is given with an http.Client of its
// own, on that transport, and the renderer process has nothing else to ask
// the network. The check before the build refuses every URL; this holds
// even for one it would miss.
var offline = sync.OnceFunc(func() { http.DefaultTransport = refusing{} })

var _ filesys.FileSystem = confined{}

type refusing struct{}

func (refusing) RoundTrip(request *http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("modellint builds overlays offline and does not fetch %s", request.URL.Redacted())
}
