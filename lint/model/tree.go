package model

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modellint/modellint/internal/fileread"
)

// Limits of one directory walk. A dir beyond them is not read at all: a
// partial listing would make present files look missing.
const (
	MaxFiles = 200_000
	maxDepth = 64
)

// fileLimit is MaxFiles; tests lower it.
var fileLimit = MaxFiles

// File is one regular file under a model dir.
type File struct {
	// Path is relative to the model dir, with forward slashes.
	Path string
	Size int64
	Mode fs.FileMode
	// LFSPointer says the file is a Git LFS pointer (a ~130-byte text
	// file standing in for the real content).
	LFSPointer bool
	// Weight says the file's name is one that holds model weights.
	Weight bool
}

// Link is a symbolic link under a model dir that is not followed: it
// points outside the dir, or at nothing.
type Link struct {
	Path   string
	Target string // as written in the link
	// Dangling says the target does not exist; otherwise it is outside
	// the model dir.
	Dangling bool
	// Weight says the link's name is one that holds model weights.
	Weight bool
}

// Special is an entry of a model dir that is neither a file, a directory
// nor a symlink: a FIFO, a device, a socket. A server's open of it blocks
// (a FIFO), never ends (/dev/zero) or fails, so it is never read here.
type Special struct {
	Path string
	Kind string // "a named pipe (FIFO)", "a character device" …
}

// tree is a bounded, cycle-safe listing of a model dir. Symlinks are
// followed only when they resolve inside the dir, so a link to / neither
// hangs nor escapes.
type tree struct {
	// The files are on disk under root, or in fsys (walkFS).
	root string
	fsys fs.FS
	// fsNames maps a listed path to the file's name in fsys where a
	// followed link makes them differ, so reading it does not depend on
	// the FS following links itself.
	fsNames map[string]string

	files   []File
	dirs    map[string]bool // relative dir paths, "" for the root
	subdirs map[string][]string
	links   []Link
	special []Special
	visited map[string]bool
}

func newTree() *tree {
	return &tree{dirs: map[string]bool{}, subdirs: map[string][]string{}, visited: map[string]bool{}, fsNames: map[string]string{}}
}

// walkTree lists a model dir on disk. Errors name the files by their paths
// under root, as the user gave it.
func walkTree(root string) (*tree, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	t := newTree()
	t.root = root
	if err := t.list(os.DirFS(realRoot), diskLinks{realRoot: realRoot}); err != nil {
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			named := *pathErr
			named.Path = filepath.Join(root, filepath.FromSlash(pathErr.Path))
			return nil, &named
		}
		return nil, err
	}
	return t, nil
}

// walkFS lists a model dir held in fsys (rooted at the dir). Links are
// resolved inside fsys: an absolute target, or one above the root, is
// outside the model dir.
func walkFS(fsys fs.FS) (*tree, error) {
	t := newTree()
	t.fsys = fsys
	if err := t.list(fsys, fsLinks{fsys}); err != nil {
		return nil, err
	}
	return t, nil
}

// list walks the model dir at the root of fsys, resolving its links with
// links, and sorts the listing.
func (t *tree) list(fsys fs.FS, links linkResolver) error {
	if err := t.walk(fsys, links, ".", "", 0); err != nil {
		return err
	}
	t.sort()
	return nil
}

// sort puts a finished listing in path order, which file and under search.
func (t *tree) sort() {
	sort.Slice(t.files, func(i, j int) bool { return t.files[i].Path < t.files[j].Path })
	sort.Slice(t.links, func(i, j int) bool { return t.links[i].Path < t.links[j].Path })
	sort.Slice(t.special, func(i, j int) bool { return t.special[i].Path < t.special[j].Path })
}

// enter records a dir of the listing at rel, real being its name with no
// links in it; false when that dir was listed already (a link back to it:
// a cycle, or an alias) or, with an error, when it is nested too deep.
func (t *tree) enter(real, rel string, depth int) (bool, error) {
	if t.visited[real] {
		return false, nil
	}
	t.visited[real] = true
	t.dirs[rel] = true
	if rel != "" {
		parent := path.Dir(rel)
		if parent == "." {
			parent = ""
		}
		t.subdirs[parent] = append(t.subdirs[parent], path.Base(rel))
	}
	if depth > maxDepth {
		return false, fmt.Errorf("directories nested deeper than %d (is this a model directory?)", maxDepth)
	}
	return true, nil
}

// walk lists dir, a name in fsys with no links in it, at rel in the
// listing.
func (t *tree) walk(fsys fs.FS, links linkResolver, dir, rel string, depth int) error {
	if ok, err := t.enter(dir, rel, depth); !ok {
		return err
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return err
	}
	for _, entry := range entries {
		name := entry.Name()
		if entry.IsDir() && name == ".git" {
			continue // history and LFS objects, never served
		}
		full, relPath := path.Join(dir, name), path.Join(rel, name)
		mode := entry.Type()
		switch {
		case mode&fs.ModeSymlink != 0:
			err = t.follow(fsys, links, full, relPath, depth)
		case entry.IsDir():
			err = t.walk(fsys, links, full, relPath, depth+1)
		case mode.IsRegular():
			var info fs.FileInfo
			if info, err = entry.Info(); err == nil {
				err = t.addAt(full, File{Path: relPath, Size: info.Size(), Mode: info.Mode()})
			}
		default:
			t.special = append(t.special, Special{Path: relPath, Kind: fileread.Kind(mode)})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// follow lists the link name of fsys at rel: what it resolves to when that
// is inside the model dir, else a Link.
func (t *tree) follow(fsys fs.FS, links linkResolver, name, rel string, depth int) error {
	target, _ := fs.ReadLink(fsys, name)
	link := Link{Path: rel, Target: target, Weight: isWeightFile(path.Base(rel))}
	resolved, outside, err := links.resolve(name)
	if err != nil {
		// A missing target, a loop of links or a file used as a
		// directory: the server's open fails the same way.
		link.Dangling = true
		t.links = append(t.links, link)
		return nil
	}
	if outside {
		t.links = append(t.links, link)
		return nil
	}
	info, err := fs.Stat(fsys, resolved)
	if err != nil {
		return err
	}
	switch {
	case info.IsDir():
		return t.walk(fsys, links, resolved, rel, depth+1)
	case info.Mode().IsRegular():
		return t.addAt(resolved, File{Path: rel, Size: info.Size(), Mode: info.Mode()})
	}
	t.special = append(t.special, Special{Path: rel, Kind: fileread.Kind(info.Mode())})
	return nil
}

// addAt adds a file listed at file.Path whose name in the walked FS is
// name: they differ where a followed link leads elsewhere, and content is
// then read by name, not through the link.
func (t *tree) addAt(name string, file File) error {
	if err := t.add(file); err != nil {
		return err
	}
	if name != file.Path {
		t.fsNames[file.Path] = name
	}
	return nil
}

func (t *tree) add(file File) error {
	if len(t.files) == fileLimit {
		return fmt.Errorf("more than %d files (is this a model directory?)", fileLimit)
	}
	file.Weight = isWeightFile(path.Base(file.Path))
	t.files = append(t.files, file)
	return nil
}

// within reports whether path is root or below it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// file returns the file at a relative path, or nil.
func (t *tree) file(rel string) *File {
	i := sort.Search(len(t.files), func(i int) bool { return t.files[i].Path >= rel })
	if i < len(t.files) && t.files[i].Path == rel {
		return &t.files[i]
	}
	return nil
}

// isDir reports whether a relative path is a listed directory.
func (t *tree) isDir(rel string) bool { return t.dirs[rel] }

// under returns the files below a relative dir ("" for all), in order.
func (t *tree) under(dir string) []File {
	if dir == "" {
		return t.files
	}
	prefix := dir + "/"
	i := sort.Search(len(t.files), func(i int) bool { return t.files[i].Path >= prefix })
	j := i
	for j < len(t.files) && strings.HasPrefix(t.files[j].Path, prefix) {
		j++
	}
	return t.files[i:j]
}

// bytesUnder sums the sizes of the files below a relative dir.
func (t *tree) bytesUnder(dir string) (int64, int) {
	var total int64
	files := t.under(dir)
	for _, file := range files {
		total += file.Size
	}
	return total, len(files)
}

// children lists the names of a relative dir's subdirectories and files
// that the walk recorded (links that were not followed are excluded).
func (t *tree) children(dir string) (dirs, files []string) {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	for _, file := range t.under(dir) {
		name := strings.TrimPrefix(file.Path, prefix)
		if !strings.Contains(name, "/") {
			files = append(files, name)
		}
	}
	dirs = append(dirs, t.subdirs[dir]...)
	sort.Strings(dirs)
	return dirs, files
}

// weightSuffixes are file name endings of files that hold weights.
var weightSuffixes = []string{
	".safetensors", ".onnx", ".onnx.data", ".onnx_data", ".bin", ".pt", ".pth", ".pt2", ".pkl", ".pickle",
	".joblib", ".plan", ".engine", ".tflite", ".mar", ".h5", ".hdf5", ".keras", ".gguf", ".ckpt", ".msgpack",
	".npy", ".npz", ".graphdef", ".bst", ".ubj",
}

func isWeightFile(name string) bool {
	if strings.HasPrefix(name, "variables.data-") {
		return true
	}
	lower := strings.ToLower(name)
	for _, suffix := range weightSuffixes {
		if strings.HasSuffix(lower, suffix) {
			return true
		}
	}
	return false
}
