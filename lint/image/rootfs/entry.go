package rootfs

import (
	"archive/tar"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/modellint/modellint/internal/message"
)

// Type is the kind of a filesystem entry.
type Type uint8

const (
	Regular Type = iota + 1
	Dir
	Symlink
	Hardlink
	Device
	FIFO
	// Whiteout deletes the entry of the same name in lower layers (".wh.NAME").
	Whiteout
	// Opaque hides every lower-layer child of its directory (".wh..wh..opq").
	Opaque
)

func (t Type) String() string {
	switch t {
	case Regular:
		return "file"
	case Dir:
		return "directory"
	case Symlink:
		return "symlink"
	case Hardlink:
		return "hard link"
	case Device:
		return "device"
	case FIFO:
		return "fifo"
	case Whiteout:
		return "whiteout"
	case Opaque:
		return "opaque marker"
	}
	return "unknown"
}

// Entry is one tar header of one layer, reduced to what the merge and the
// rules need. Entries are what the layer cache stores.
type Entry struct {
	// Name is the cleaned path without a leading slash ("usr/bin/python3");
	// for whiteouts it is the path being deleted, for opaque markers the
	// directory whose lower contents are hidden.
	Name string
	Type Type
	// Mode holds the permission bits plus setuid, setgid and sticky.
	Mode uint32
	UID  uint32
	GID  uint32
	Size int64
	// Link is a symlink's target as written, or a hard link's target path
	// (cleaned, like Name).
	Link string
}

// Whiteout markers, from the OCI image spec (layer.md#whiteouts), as
// containerd's archive package spells them.
const (
	whiteoutPrefix = ".wh."
	opaqueMarker   = ".wh..wh..opq"
)

// modeMask keeps permission, setuid, setgid and sticky bits.
const modeMask = 0o7777

// EntryFromHeader turns a tar header into an Entry. It rejects names that
// climb out of the image root: docker refuses such a layer ("breakout"),
// and a linter must not quietly index it somewhere else.
func EntryFromHeader(header *tar.Header) (Entry, bool, error) {
	name, err := CleanName(header.Name)
	if err != nil {
		return Entry{}, false, err
	}
	entry := Entry{Name: name, Mode: uint32(header.Mode) & modeMask, Size: header.Size}
	if header.Uid >= 0 {
		entry.UID = uint32(header.Uid)
	}
	if header.Gid >= 0 {
		entry.GID = uint32(header.Gid)
	}
	dir, base := path.Split(name)
	dir = strings.TrimSuffix(dir, "/")
	switch {
	case base == opaqueMarker:
		entry.Name, entry.Type, entry.Size = dir, Opaque, 0
		return entry, true, nil
	case strings.HasPrefix(base, whiteoutPrefix):
		target := base[len(whiteoutPrefix):]
		if target == "" || target == "." || target == ".." {
			return Entry{}, false, fmt.Errorf("tar entry %q: whiteout names no file", header.Name)
		}
		entry.Name, entry.Type, entry.Size = path.Join(dir, target), Whiteout, 0
		return entry, true, nil
	}
	if name == "" {
		// The root directory itself: its metadata does not matter to any rule.
		return Entry{}, false, nil
	}
	switch header.Typeflag {
	case tar.TypeReg, tar.TypeGNUSparse: // archive/tar reports old-style TypeRegA files as TypeReg
		entry.Type = Regular
	case tar.TypeDir:
		entry.Type, entry.Size = Dir, 0
	case tar.TypeSymlink:
		if header.Linkname == "" {
			return Entry{}, false, fmt.Errorf("tar entry %q: symlink with an empty target", header.Name)
		}
		if len(header.Linkname) > MaxPath {
			return Entry{}, false, fmt.Errorf("tar entry %q: a symlink target of %d bytes, longer than the %d Linux resolves: no runtime can unpack the layer",
				header.Name, len(header.Linkname), MaxPath)
		}
		entry.Type, entry.Link, entry.Size = Symlink, header.Linkname, 0
	case tar.TypeLink:
		link, err := CleanName(header.Linkname)
		if err != nil {
			return Entry{}, false, fmt.Errorf("tar entry %q: hard link target: %w", header.Name, err)
		}
		if link == "" {
			return Entry{}, false, fmt.Errorf("tar entry %q: hard link to the image root", header.Name)
		}
		entry.Type, entry.Link, entry.Size = Hardlink, link, 0
	case tar.TypeChar, tar.TypeBlock:
		entry.Type, entry.Size = Device, 0
	case tar.TypeFifo:
		entry.Type, entry.Size = FIFO, 0
	case tar.TypeXHeader, tar.TypeXGlobalHeader, tar.TypeGNULongName, tar.TypeGNULongLink:
		return Entry{}, false, nil // consumed by archive/tar; never seen here
	default:
		return Entry{}, false, nil // unknown types are skipped, as containerd does
	}
	return entry, true, nil
}

// MaxPath bounds a path in an image, as Linux bounds a path it resolves
// (PATH_MAX): a runtime cannot unpack a layer with a longer one, and the
// work of looking a path up grows with its length.
const MaxPath = 4096

// CleanName normalises a tar member name: forward slashes, no leading
// slash or "./", no "." or ".." components. A name that climbs above the
// root, or is longer than MaxPath, is an error.
func CleanName(name string) (string, error) {
	if strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("tar entry %q: name contains a NUL byte", name)
	}
	if len(name) > MaxPath {
		return "", fmt.Errorf("tar entry %s: a path of %d bytes, longer than the %d Linux resolves: no runtime can unpack the layer",
			message.Quote(name), len(name), MaxPath)
	}
	cleaned := path.Clean("/" + name)
	// path.Clean("/" + x) clamps "..", so compare component by component to
	// catch names that tried to climb.
	depth := 0
	for _, part := range strings.Split(name, "/") {
		switch part {
		case "", ".":
		case "..":
			depth--
			if depth < 0 {
				return "", fmt.Errorf("tar entry %q climbs out of the image root", name)
			}
		default:
			depth++
		}
	}
	return strings.TrimPrefix(cleaned, "/"), nil
}

// FileMode renders the entry as an fs.FileMode, for messages.
func (e Entry) FileMode() fs.FileMode {
	mode := fs.FileMode(e.Mode & 0o777)
	if e.Mode&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	if e.Mode&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if e.Mode&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	switch e.Type {
	case Dir:
		mode |= fs.ModeDir
	case Symlink:
		mode |= fs.ModeSymlink
	case Device:
		mode |= fs.ModeDevice
	case FIFO:
		mode |= fs.ModeNamedPipe
	}
	return mode
}
