package rootfs

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
)

// MaxSymlinkHops is how many symlinks one lookup may follow, as Linux's
// MAXSYMLINKS: a longer chain fails with ELOOP at run time too.
const MaxSymlinkHops = 40

// Node is one path of the merged filesystem.
type Node struct {
	Entry
	// Layer is the index (0 = base) of the layer that wrote this node.
	Layer int
	// Origin is where the file's content lives: the layer and member name
	// of the regular file, which for a hard link is its target's.
	OriginLayer int
	OriginName  string

	parent   *Node
	children map[string]*Node
}

// Path is the node's absolute path in the image, built once from its
// names: joined level by level, a path n levels deep cost n² bytes.
func (n *Node) Path() string {
	if n.parent == nil {
		return "/"
	}
	size := 0
	for node := n; node.parent != nil; node = node.parent {
		size += 1 + len(node.Name)
	}
	path := make([]byte, size)
	for node := n; node.parent != nil; node = node.parent {
		size -= len(node.Name)
		copy(path[size:], node.Name)
		size--
		path[size] = '/'
	}
	return string(path)
}

// Children returns the names of a directory's entries, sorted.
func (n *Node) Children() []string {
	names := make([]string, 0, len(n.children))
	for name := range n.children {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// FS is the merged view of an image's layers.
type FS struct {
	root  *Node
	count int
}

// New returns an empty filesystem with a root directory owned by root.
func New() *FS {
	return &FS{root: &Node{Entry: Entry{Type: Dir, Mode: 0o755}, Layer: -1, children: map[string]*Node{}}}
}

// Len is the number of paths in the filesystem, the root excluded.
func (f *FS) Len() int { return f.count }

// Errors a lookup can end with, wrapped in a *PathError.
var (
	ErrNotExist = errors.New("no such file or directory")
	ErrNotDir   = errors.New("not a directory")
	ErrLoop     = errors.New("too many levels of symbolic links")
)

// PathError says which lookup failed, where, and why.
type PathError struct {
	Path string // the path asked for
	At   string // the component where the lookup stopped, as resolved so far
	Err  error
}

func (e *PathError) Error() string {
	if e.At != "" && e.At != e.Path {
		return fmt.Sprintf("%s: %v (at %s)", e.Path, e.Err, e.At)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *PathError) Unwrap() error { return e.Err }

// Apply merges one layer's entries over the filesystem, in tar order, with
// containerd's semantics (pkg/archive/tar.go applyNaive): the parent path of
// every entry is resolved through symlinks inside the root; missing parents
// are created; an entry replaces what is there unless both are directories;
// a whiteout removes the named path; an opaque marker removes the
// directory's children that lower layers wrote. An error means the layer
// could not be unpacked by a container runtime either.
func (f *FS) Apply(layer int, entries []Entry) error {
	for i := range entries {
		if err := f.apply(layer, &entries[i]); err != nil {
			return err
		}
	}
	return nil
}

func (f *FS) apply(layer int, entry *Entry) error {
	dirName, base := path.Split(entry.Name)
	if entry.Type == Opaque {
		dir, err := f.resolveDir(entry.Name, layer, true)
		if err != nil {
			return fmt.Errorf("opaque marker in %q: %w", entry.Name, err)
		}
		for name, child := range dir.children {
			if child.Layer < layer {
				f.remove(dir, name)
			}
		}
		return nil
	}
	parent, err := f.resolveDir(strings.TrimSuffix(dirName, "/"), layer, entry.Type != Whiteout)
	if err != nil {
		if entry.Type == Whiteout && errors.Is(err, ErrNotExist) {
			return nil // deleting what is not there is a no-op
		}
		return fmt.Errorf("tar entry %q: %w", entry.Name, err)
	}
	if entry.Type == Whiteout {
		f.remove(parent, base)
		return nil
	}
	node := &Node{Entry: *entry, Layer: layer, OriginLayer: layer, OriginName: entry.Name}
	node.Name = base
	if entry.Type == Hardlink {
		target, _, err := f.Resolve("/"+entry.Link, true)
		if err != nil {
			return fmt.Errorf("tar entry %q: hard link to %q: %w", entry.Name, entry.Link, err)
		}
		if target.Type == Dir {
			return fmt.Errorf("tar entry %q: hard link to directory %q", entry.Name, entry.Link)
		}
		// A hard link is the same inode: its mode, owner and content are the target's.
		node.Entry = target.Entry
		node.Name = base
		node.OriginLayer, node.OriginName = target.OriginLayer, target.OriginName
	}
	if existing := parent.children[base]; existing != nil {
		if existing.Type == Dir && node.Type == Dir {
			existing.Mode, existing.UID, existing.GID, existing.Layer = node.Mode, node.UID, node.GID, layer
			return nil
		}
		f.remove(parent, base)
	}
	if node.Type == Dir {
		node.children = map[string]*Node{}
	}
	node.parent = parent
	parent.children[base] = node
	f.count++
	return nil
}

// remove deletes a child and everything under it.
func (f *FS) remove(parent *Node, name string) {
	child := parent.children[name]
	if child == nil {
		return
	}
	delete(parent.children, name)
	f.count -= child.size()
}

func (n *Node) size() int {
	total := 1
	for _, child := range n.children {
		total += child.size()
	}
	return total
}

// resolveDir finds the directory at name (relative to the root), following
// symlinks; with create, missing directories are made as containerd's
// MkdirAll does (0755, root-owned, attributed to the layer).
func (f *FS) resolveDir(name string, layer int, create bool) (*Node, error) {
	if name == "" {
		return f.root, nil
	}
	for {
		node, _, err := f.Resolve("/"+name, true)
		if err == nil {
			if node.Type != Dir {
				return nil, &PathError{Path: "/" + name, At: node.Path(), Err: ErrNotDir}
			}
			return node, nil
		}
		var pathErr *PathError
		if !create || !errors.As(err, &pathErr) || !errors.Is(err, ErrNotExist) {
			return nil, err
		}
		// Create the first missing component and retry: the rest may sit
		// behind a symlink that now resolves.
		parentPath, base := path.Split(strings.TrimPrefix(pathErr.At, "/"))
		parent := f.root
		if parentPath != "" {
			parent, _, err = f.Resolve("/"+strings.TrimSuffix(parentPath, "/"), false)
			if err != nil || parent.Type != Dir {
				return nil, &PathError{Path: "/" + name, At: pathErr.At, Err: ErrNotDir}
			}
		}
		if existing := parent.children[base]; existing != nil {
			// A dangling symlink in the way: containerd's MkdirAll fails too.
			return nil, &PathError{Path: "/" + name, At: existing.Path(), Err: ErrNotExist}
		}
		created := &Node{Entry: Entry{Name: base, Type: Dir, Mode: 0o755}, Layer: layer, OriginLayer: layer,
			parent: parent, children: map[string]*Node{}}
		parent.children[base] = created
		f.count++
	}
}

// Lstat returns the node at an absolute path without following a final
// symlink (parents are followed).
func (f *FS) Lstat(name string) (*Node, error) {
	node, _, err := f.Resolve(name, false)
	return node, err
}

// Stat returns the node at an absolute path, following every symlink.
func (f *FS) Stat(name string) (*Node, error) {
	node, _, err := f.Resolve(name, true)
	return node, err
}

// Resolve walks an absolute path from the root the way the kernel does
// inside a container: symlinks in parent components are always followed,
// absolute targets restart at the image root, ".." never climbs above it.
// With followFinal the last component is followed too. It returns the node,
// the path it resolved to, and a *PathError on failure.
func (f *FS) Resolve(name string, followFinal bool) (*Node, string, error) {
	hops := 0
	current := f.root
	pending := splitPath(name)
	for len(pending) > 0 {
		part := pending[0]
		pending = pending[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if current.parent != nil {
				current = current.parent
			}
			continue
		}
		if current.Type != Dir {
			return nil, "", &PathError{Path: name, At: current.Path(), Err: ErrNotDir}
		}
		child := current.children[part]
		if child == nil {
			return nil, "", &PathError{Path: name, At: joinPath(current.Path(), part), Err: ErrNotExist}
		}
		if child.Type == Symlink && (len(pending) > 0 || followFinal) {
			hops++
			if hops > MaxSymlinkHops {
				return nil, "", &PathError{Path: name, At: child.Path(), Err: ErrLoop}
			}
			target := splitPath(child.Link)
			if strings.HasPrefix(child.Link, "/") {
				current = f.root
			}
			pending = append(target, pending...)
			continue
		}
		current = child
	}
	return current, current.Path(), nil
}

func splitPath(name string) []string {
	return strings.Split(strings.Trim(name, "/"), "/")
}

func joinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// Walk calls visit for every node in lexical path order.
func (f *FS) Walk(visit func(*Node)) {
	var walk func(*Node)
	walk = func(n *Node) {
		for _, name := range n.Children() {
			child := n.children[name]
			visit(child)
			if child.Type == Dir {
				walk(child)
			}
		}
	}
	walk(f.root)
}
