package image

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/modellint/modellint/lint/image/rootfs"
)

// ErrNotCaptured says a file's content was not kept while the layers
// streamed: only the small files rules read are, and only the headers of
// weight files.
var ErrNotCaptured = errors.New("content not kept from the image's layers")

// DirFS returns the merged filesystem below an absolute in-image dir as an
// fs.FS, so a model baked into the image is read like one on disk: names,
// sizes, modes and symlinks from the tar headers, contents as far as they
// were captured (reads beyond fail with ErrNotCaptured). Symlinks resolve
// inside the image, as in the container. Reads of content not captured
// wrap ErrNotCaptured and also notCaptured, when given: the error the
// reader of the FS knows (a model loader's own "content unavailable").
func (img *Image) DirFS(dir string, notCaptured error) (fs.FS, error) {
	if img.fs == nil {
		return nil, errors.New("the image's layers were not read")
	}
	node, _, err := img.fs.Resolve(dir, true)
	if err != nil {
		return nil, err
	}
	if node.Type != rootfs.Dir {
		return nil, fmt.Errorf("%s is not a directory in the image", dir)
	}
	missing := ErrNotCaptured
	if notCaptured != nil {
		missing = fmt.Errorf("%w: %w", notCaptured, ErrNotCaptured)
	}
	return &dirFS{img: img, root: path.Clean(dir), missing: missing}, nil
}

type dirFS struct {
	img     *Image
	root    string
	missing error
}

func (d *dirFS) full(name string) string { return path.Join(d.root, name) }

func (d *dirFS) lookup(op, name string, follow bool) (*rootfs.Node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	node, _, err := d.img.fs.Resolve(d.full(name), follow)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return node, nil
}

// Open opens a file or directory, following symlinks.
func (d *dirFS) Open(name string) (fs.File, error) {
	node, err := d.lookup("open", name, true)
	if err != nil {
		return nil, err
	}
	info := nodeInfo{node: node, name: path.Base(name)}
	switch node.Type {
	case rootfs.Dir:
		return &imageDir{fsys: d, name: name, info: info}, nil
	case rootfs.Regular:
		file := &imageFile{info: info, name: name, missing: d.missing}
		if facts := d.img.Facts(node); facts != nil && facts.Text != nil {
			file.content, file.partial = facts.Text, facts.Partial || int64(len(facts.Text)) < node.Size
		} else {
			file.partial = node.Size > 0
		}
		return file, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("a %s, not a file", node.Type)}
}

// Stat follows symlinks; Lstat and ReadLink do not (fs.ReadLinkFS).
func (d *dirFS) Stat(name string) (fs.FileInfo, error) {
	node, err := d.lookup("stat", name, true)
	if err != nil {
		return nil, err
	}
	return nodeInfo{node: node, name: path.Base(name)}, nil
}

func (d *dirFS) Lstat(name string) (fs.FileInfo, error) {
	node, err := d.lookup("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return nodeInfo{node: node, name: path.Base(name)}, nil
}

func (d *dirFS) ReadLink(name string) (string, error) {
	node, err := d.lookup("readlink", name, false)
	if err != nil {
		return "", err
	}
	if node.Type != rootfs.Symlink {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	// An absolute target resolves from the image's root in the container;
	// one inside this dir is given relative to the link, so a reader of
	// the FS sees it stays inside.
	if target := path.Clean(node.Link); path.IsAbs(target) && (target == d.root || strings.HasPrefix(target, d.root+"/")) {
		return relative(path.Dir(d.full(name)), target), nil
	}
	return node.Link, nil
}

// relative is the path from dir to target, both absolute and clean.
func relative(dir, target string) string {
	dirParts, targetParts := strings.Split(strings.Trim(dir, "/"), "/"), strings.Split(strings.Trim(target, "/"), "/")
	if dir == "/" {
		dirParts = nil
	}
	common := 0
	for common < len(dirParts) && common < len(targetParts) && dirParts[common] == targetParts[common] {
		common++
	}
	var parts []string
	for range dirParts[common:] {
		parts = append(parts, "..")
	}
	parts = append(parts, targetParts[common:]...)
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}

func (d *dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	node, err := d.lookup("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if node.Type != rootfs.Dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	var entries []fs.DirEntry
	for _, child := range node.Children() {
		childNode, err := d.img.fs.Lstat(path.Join(d.full(name), child))
		if err != nil {
			continue
		}
		entries = append(entries, fs.FileInfoToDirEntry(nodeInfo{node: childNode, name: child}))
	}
	return entries, nil
}

// nodeInfo is a node as fs.FileInfo.
type nodeInfo struct {
	node *rootfs.Node
	name string
}

func (i nodeInfo) Name() string       { return i.name }
func (i nodeInfo) Size() int64        { return i.node.Size }
func (i nodeInfo) Mode() fs.FileMode  { return i.node.FileMode() }
func (i nodeInfo) ModTime() time.Time { return time.Time{} }
func (i nodeInfo) IsDir() bool        { return i.node.Type == rootfs.Dir }
func (i nodeInfo) Sys() any           { return i.node }

// imageFile reads captured content; partial says reads past it fail.
type imageFile struct {
	info    nodeInfo
	name    string
	content []byte
	partial bool
	offset  int64
	missing error
}

func (f *imageFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *imageFile) Close() error               { return nil }

func (f *imageFile) ReadAt(p []byte, offset int64) (int, error) {
	if offset < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrInvalid}
	}
	if offset+int64(len(p)) > int64(len(f.content)) && f.partial {
		n := 0
		if offset < int64(len(f.content)) {
			n = copy(p, f.content[offset:])
		}
		return n, &fs.PathError{Op: "read", Path: f.name, Err: f.missing}
	}
	n, err := bytes.NewReader(f.content).ReadAt(p, offset)
	return n, err
}

func (f *imageFile) Read(p []byte) (int, error) {
	if f.offset >= int64(len(f.content)) && !f.partial {
		return 0, io.EOF
	}
	n, err := f.ReadAt(p, f.offset)
	f.offset += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// imageDir lists a directory.
type imageDir struct {
	fsys    *dirFS
	name    string
	info    nodeInfo
	entries []fs.DirEntry
	read    bool
}

func (d *imageDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *imageDir) Close() error               { return nil }
func (d *imageDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}

func (d *imageDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		entries, err := d.fsys.ReadDir(d.name)
		if err != nil {
			return nil, err
		}
		d.entries, d.read = entries, true
	}
	if n <= 0 {
		entries := d.entries
		d.entries = nil
		return entries, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	entries := d.entries[:n]
	d.entries = d.entries[n:]
	return entries, nil
}
