package model

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// maxLinkHops bounds the links followed to resolve one path, as
// filepath.EvalSymlinks does: a loop of links fails to resolve, and so
// is dangling, as on disk.
const maxLinkHops = 255

// walkFS lists a model dir held in fsys (rooted at the dir) with the
// limits and link rules of walkTree. Links are resolved inside fsys: an
// absolute target, or one above the root, is outside the model dir.
func walkFS(fsys fs.FS) (*tree, error) {
	t := newTree()
	t.fsys = fsys
	if err := t.walkFSDir(".", "", 0); err != nil {
		return nil, err
	}
	t.sort()
	return t, nil
}

// walkFSDir lists dir, a name in fsys with no links in it, as rel.
func (t *tree) walkFSDir(dir, rel string, depth int) error {
	if ok, err := t.enter(dir, rel, depth); !ok {
		return err
	}
	entries, err := fs.ReadDir(t.fsys, dir)
	if err != nil {
		return err
	}
	for _, entry := range entries {
		name := entry.Name()
		if entry.IsDir() && name == ".git" {
			continue // history and LFS objects, never served
		}
		full, relPath := path.Join(dir, name), path.Join(rel, name)
		switch {
		case entry.Type()&fs.ModeSymlink != 0:
			err = t.followFS(full, relPath, depth)
		case entry.IsDir():
			err = t.walkFSDir(full, relPath, depth+1)
		case entry.Type().IsRegular():
			var info fs.FileInfo
			if info, err = entry.Info(); err == nil {
				err = t.addFS(full, File{Path: relPath, Size: info.Size(), Mode: info.Mode()})
			}
		default:
			// Sockets, devices: nothing a server loads.
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// followFS lists the link name of fsys at rel: what it resolves to when
// that is inside fsys, else a Link.
func (t *tree) followFS(name, rel string, depth int) error {
	target, _ := fs.ReadLink(t.fsys, name)
	link := Link{Path: rel, Target: target, Weight: isWeightFile(path.Base(rel))}
	resolved, outside, err := resolveFS(t.fsys, name)
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
	info, err := fs.Stat(t.fsys, resolved)
	if err != nil {
		return err
	}
	if info.IsDir() {
		return t.walkFSDir(resolved, rel, depth+1)
	}
	if info.Mode().IsRegular() {
		return t.addFS(resolved, File{Path: rel, Size: info.Size(), Mode: info.Mode()})
	}
	return nil
}

// addFS adds a file listed at file.Path whose name in fsys is name.
func (t *tree) addFS(name string, file File) error {
	if err := t.add(file); err != nil {
		return err
	}
	if name != file.Path {
		t.fsNames[file.Path] = name
	}
	return nil
}

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
