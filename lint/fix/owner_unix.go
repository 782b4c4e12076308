//go:build unix

package fix

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives the new file the owner and group of the one it
// replaces. Without the right to (another user's file, a group modellint
// is not in) nothing is written: the file would change hands.
func keepOwner(temp *os.File, old fs.FileInfo) error {
	want, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	info, err := temp.Stat()
	if err != nil {
		return err
	}
	if have, ok := info.Sys().(*syscall.Stat_t); ok && have.Uid == want.Uid && have.Gid == want.Gid {
		return nil
	}
	if err := temp.Chown(int(want.Uid), int(want.Gid)); err != nil {
		return fmt.Errorf("cannot keep its owner %d:%d (%w); nothing was written to it", want.Uid, want.Gid, unwrapPathError(err))
	}
	return nil
}
