package launch

import (
	"io/fs"
	"path"
	"strings"

	"github.com/modellint/modellint/lint/image/rootfs"
)

// Dir is a directory with the mode and owner that decide who may enter it.
type Dir struct {
	Path     string
	Mode     fs.FileMode
	UID, GID uint32
}

// BlockingDir returns the topmost directory above an in-image path that
// the user may not enter (no search bit for their class), as the kernel
// meets it walking down from /, with its node; "" when every one lets the
// user through.
func BlockingDir(fsys *rootfs.FS, user User, name string) (string, *rootfs.Node) {
	var top string
	var topNode *rootfs.Node
	walkBlocking(fsys, user, name, func(dir string, node *rootfs.Node) bool {
		top, topNode = dir, node
		return false
	})
	return top, topNode
}

// BlockingDirs returns every directory above an in-image path that the
// user may not enter, topmost first: opening only the first still leaves
// the user stopped at the next. Nil when every one lets the user through.
func BlockingDirs(fsys *rootfs.FS, user User, name string) []Dir {
	var blocking []Dir
	walkBlocking(fsys, user, name, func(dir string, node *rootfs.Node) bool {
		blocking = append(blocking, Dir{Path: dir, Mode: node.FileMode(), UID: node.UID, GID: node.GID})
		return true
	})
	return blocking
}

// walkBlocking calls blocked for each directory above name, from / down,
// that the user may not enter, until it returns false; the walk ends at a
// component that is missing or not a directory.
func walkBlocking(fsys *rootfs.FS, user User, name string, blocked func(dir string, node *rootfs.Node) bool) {
	if fsys == nil {
		return
	}
	dir := "/"
	for _, part := range strings.Split(strings.Trim(path.Dir(path.Clean("/"+name)), "/"), "/") {
		if part == "" {
			return
		}
		dir = path.Join(dir, part)
		node, err := fsys.Stat(dir)
		if err != nil || node.Type != rootfs.Dir {
			return
		}
		if !user.CanSearch(node.Mode, node.UID, node.GID) && !blocked(dir, node) {
			return
		}
	}
}
