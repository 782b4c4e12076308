package launch

import (
	"path"
	"strings"

	"github.com/modellint/modellint/lint/image/rootfs"
)

// BlockingDir returns the topmost directory above an in-image path that
// the user may not enter (no search bit for their class), as the kernel
// meets it walking down from /, with its node; "" when every one lets the
// user through.
func BlockingDir(fs *rootfs.FS, user User, name string) (string, *rootfs.Node) {
	if fs == nil {
		return "", nil
	}
	dir := "/"
	for _, part := range strings.Split(strings.Trim(path.Dir(path.Clean("/"+name)), "/"), "/") {
		if part == "" {
			break
		}
		dir = path.Join(dir, part)
		node, err := fs.Stat(dir)
		if err != nil || node.Type != rootfs.Dir {
			return "", nil
		}
		if !user.CanSearch(node.Mode, node.UID, node.GID) {
			return dir, node
		}
	}
	return "", nil
}
