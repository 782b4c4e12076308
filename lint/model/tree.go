package model

import (
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
	root     string
	realRoot string
	fsys     fs.FS
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

func walkTree(root string) (*tree, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	t := newTree()
	t.root, t.realRoot = root, realRoot
	if err := t.walk(root, realRoot, "", 0); err != nil {
		return nil, err
	}
	t.sort()
	return t, nil
}

// sort puts a finished listing in path order, which file and under search.
func (t *tree) sort() {
	sort.Slice(t.files, func(i, j int) bool { return t.files[i].Path < t.files[j].Path })
	sort.Slice(t.links, func(i, j int) bool { return t.links[i].Path < t.links[j].Path })
	sort.Slice(t.special, func(i, j int) bool { return t.special[i].Path < t.special[j].Path })
}

// enter records a dir of the listing at rel, real being its path with no
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

// walk lists dir, at rel in the listing; real is dir's path with no links
// in it, known from the parent's (resolving each dir's path again would be
// a stat of every component of it, for each of 100,000 version dirs).
func (t *tree) walk(dir, real, rel string, depth int) error {
	if ok, err := t.enter(real, rel, depth); !ok {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, entry := range entries {
		name := entry.Name()
		if entry.IsDir() && name == ".git" {
			continue // history and LFS objects, never served
		}
		full := filepath.Join(dir, name)
		relPath := path.Join(rel, name)
		mode := entry.Type()
		if mode&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(full)
			resolved, err := filepath.EvalSymlinks(full)
			if err != nil {
				// A missing target, a loop of links or a file used as a
				// directory: the server's open fails the same way.
				t.links = append(t.links, Link{Path: relPath, Target: target, Dangling: true, Weight: isWeightFile(name)})
				continue
			}
			if !within(t.realRoot, resolved) {
				t.links = append(t.links, Link{Path: relPath, Target: target, Weight: isWeightFile(name)})
				continue
			}
			info, err := os.Stat(resolved)
			if err != nil {
				return err
			}
			if info.IsDir() {
				if err := t.walk(resolved, resolved, relPath, depth+1); err != nil {
					return err
				}
				continue
			}
			if info.Mode().IsRegular() {
				if err := t.add(File{Path: relPath, Size: info.Size(), Mode: info.Mode()}); err != nil {
					return err
				}
			} else {
				t.special = append(t.special, Special{Path: relPath, Kind: fileread.Kind(info.Mode())})
			}
			continue
		}
		if entry.IsDir() {
			if err := t.walk(full, filepath.Join(real, name), relPath, depth+1); err != nil {
				return err
			}
			continue
		}
		if !mode.IsRegular() {
			t.special = append(t.special, Special{Path: relPath, Kind: fileread.Kind(mode)})
			continue
		}
		info, err := entry.Info()
		if err != nil {
			return err
		}
		if err := t.add(File{Path: relPath, Size: info.Size(), Mode: info.Mode()}); err != nil {
			return err
		}
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
