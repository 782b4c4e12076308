package model

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// maxLinkHops bounds the links followed to resolve one path, as
// filepath.EvalSymlinks does: a loop of links fails to resolve, and so
// is dangling, as on disk.
const maxLinkHops = 255

// linkResolver resolves the links in a name of the walked FS: the name
// with no links in it, or outside when it leads out of the model dir.
type linkResolver interface {
	resolve(name string) (resolved string, outside bool, err error)
}

// diskLinks resolves links on disk as the server's open does: an absolute
// target, or one through .., is followed when it comes back inside the
// model dir.
type diskLinks struct{ realRoot string }

func (d diskLinks) resolve(name string) (string, bool, error) {
	resolved, err := filepath.EvalSymlinks(filepath.Join(d.realRoot, filepath.FromSlash(name)))
	if err != nil {
		return "", false, err
	}
	if !within(d.realRoot, resolved) {
		return "", true, nil
	}
	rel, err := filepath.Rel(d.realRoot, resolved)
	if err != nil {
		return "", true, nil
	}
	return filepath.ToSlash(rel), false, nil
}

// fsLinks resolves links inside an FS rooted at the model dir.
type fsLinks struct{ fsys fs.FS }

func (f fsLinks) resolve(name string) (string, bool, error) { return resolveFS(f.fsys, name) }

// resolveFS resolves the links in name, a path of fsys, element by
// element as filepath.EvalSymlinks does on disk, with fs.Lstat and
// fs.ReadLink. outside says the path leaves fsys (an absolute target, or
// .. above the root), where an FS rooted at the model dir cannot look.
// An FS without fs.ReadLinkFS resolves links itself in fs.Lstat; its
// loops of dir links then end the walk at maxDepth.
func resolveFS(fsys fs.FS, name string) (resolved string, outside bool, err error) {
	var done []string // the elements resolved so far, none a link
	todo := strings.Split(name, "/")
	for hops := 0; len(todo) > 0; {
		elem := todo[0]
		todo = todo[1:]
		switch elem {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", true, nil
			}
			done = done[:len(done)-1]
			continue
		}
		current := path.Join(path.Join(done...), elem)
		info, err := fs.Lstat(fsys, current)
		if err != nil {
			return "", false, err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			if len(todo) > 0 && !info.IsDir() {
				return "", false, fmt.Errorf("%s: not a directory", current)
			}
			done = append(done, elem)
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", false, fmt.Errorf("%s: more than %d links", name, maxLinkHops)
		}
		target, err := fs.ReadLink(fsys, current)
		if err != nil {
			return "", false, err
		}
		if path.IsAbs(target) {
			return "", true, nil
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	if len(done) == 0 {
		return ".", false, nil
	}
	return path.Join(done...), false, nil
}
