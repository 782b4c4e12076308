package python

import (
	"path"
	"slices"
	"strings"

	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// Denied is why the user a container runs as cannot read what its start
// loads, though the image has it: a directory on the way it may not
// enter, or a file or directory without a read bit for it.
type Denied struct {
	// Path is what is out of reach: the script, the module's file, or the
	// directory Python lists to find the module.
	Path string
	// Blocked are the directories on the way to Path (Path included when
	// it is a directory that is listed) that the user may not enter,
	// topmost first.
	Blocked []launch.Dir
	// Unreadable is Path, or a directory below the import path entry,
	// without a read bit for the user; nil when none lacks one.
	Unreadable *launch.Dir
	// Entry says Path is the import path entry the module is in: Python's
	// path-based finder lists it, fails, and passes over it as if it were
	// empty (FileFinder._fill_cache), so the module is not found.
	Entry bool
	// Namespace says Path is a package's __init__ in a directory the user
	// may not enter: Python cannot stat it and imports the directory as an
	// empty namespace package instead (see moduleDenied).
	Namespace bool
	// Missing is the submodule Python does not find because a package
	// directory above it cannot be listed ("pkg.sub"); "" otherwise.
	Missing string
}

// At is the path to fix first: the topmost directory the user may not
// enter, else the one without a read bit.
func (d *Denied) At() string {
	if len(d.Blocked) > 0 {
		return d.Blocked[0].Path
	}
	return d.Unreadable.Path
}

// restricted says the checks of who may read what apply: the user is
// known and is not root, who reads and enters anything
// (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH).
func (c *checker) restricted() bool {
	return c.user.UID != 0 && c.user.Unknown == "" && c.user.Unresolved == ""
}

// fileDenied says why the user cannot open a file for reading, nil when
// it can or when it is on a volume, whose modes are the volume's.
func (c *checker) fileDenied(file string) *Denied {
	if !c.restricted() || c.mountOf(file) != "" {
		return nil
	}
	d := &Denied{Path: file, Blocked: launch.BlockingDirs(c.r.fs, c.user, file)}
	if node := c.r.stat(file); node != nil && !c.user.CanRead(node.Mode, node.UID, node.GID) {
		d.Unreadable = dirOf(file, node)
	}
	if len(d.Blocked) == 0 && d.Unreadable == nil {
		return nil
	}
	return d
}

// dirDenied says why the user cannot list a directory and open what is in
// it (a read and a search bit), nil when it can or when it is on a volume.
func (c *checker) dirDenied(dir string) *Denied {
	if !c.restricted() || c.mountOf(dir) != "" {
		return nil
	}
	if c.listable == nil {
		c.listable = map[string]*Denied{}
	}
	if d, ok := c.listable[dir]; ok {
		return d
	}
	d := &Denied{Path: dir, Blocked: launch.BlockingDirs(c.r.fs, c.user, path.Join(dir, "_"))}
	if node := c.r.stat(dir); node != nil && node.Type == rootfs.Dir && !c.user.CanRead(node.Mode, node.UID, node.GID) {
		d.Unreadable = dirOf(dir, node)
	}
	if len(d.Blocked) == 0 && d.Unreadable == nil {
		d = nil
	}
	c.listable[dir] = d
	return d
}

func dirOf(p string, node *rootfs.Node) *launch.Dir {
	return &launch.Dir{Path: p, Mode: node.FileMode(), UID: node.UID, GID: node.GID}
}

// moduleDenied says why the user's Python cannot load a module the image
// has where found: the import path entry it is in cannot be listed; a
// package directory a submodule is looked up in cannot be listed; or its
// file cannot be read. A package's own directory needs only the search
// bit (its __init__ is stat'ed, not listed).
//
// A package directory the user may not enter does not fail its own import:
// CPython's FileFinder.find_spec (Lib/importlib/_bootstrap_external.py)
// finds the directory's name in the listing of its parent, tries
// _path_isfile on its __init__ files, which swallows the stat's OSError
// (_path_is_mode_type returns False), and, since _path_isdir of the
// directory needs only the parent's search bit, returns it as a namespace
// portion: `import pkg` succeeds with an empty module, and what is taken
// from it fails.
func (c *checker) moduleDenied(found Found, module string) *Denied {
	if !c.restricted() || found.Entry == "" {
		return nil
	}
	if d := c.dirDenied(found.Entry); d != nil {
		entry := *d
		entry.Entry = true
		return &entry
	}
	if found.File == "" {
		return nil // a namespace package: its directories are listed when a submodule is imported
	}
	dir := path.Dir(found.File)
	init := strings.HasPrefix(path.Base(found.File), "__init__.")
	var listed []string
	for d := dir; strings.HasPrefix(d, found.Entry+"/"); d = path.Dir(d) {
		if d != dir || !init {
			listed = append(listed, d)
		}
	}
	for i := len(listed) - 1; i >= 0; i-- {
		if d := c.dirDenied(listed[i]); d != nil {
			// The package this directory holds comes before the next
			// part of module, which its listing would find.
			depth := strings.Count(strings.TrimPrefix(listed[i], found.Entry+"/"), "/") + 2
			parts := strings.Split(module, ".")
			if depth > len(parts) {
				return d
			}
			under := *d
			under.Missing = strings.Join(parts[:depth], ".")
			return &under
		}
	}
	d := c.fileDenied(found.File)
	if d != nil && init && len(d.Blocked) > 0 && d.Blocked[0].Path == dir {
		d.Namespace = true
	}
	return d
}

// findAsUser finds a module as the user's Python does: an import path
// entry it cannot list is passed over, and a module it cannot read fails
// to load. denied says why the module the image has is out of the user's
// reach: the one found in an entry the user can list when there is one,
// else the first the image has.
func (c *checker) findAsUser(search *searchPath, module string) (found Found, missing string, denied *Denied) {
	found, missing = search.find(module)
	if missing != "" {
		return found, missing, nil
	}
	denied = c.moduleDenied(found, module)
	if denied == nil {
		return found, "", nil
	}
	if denied.Namespace && !strings.Contains(module, ".") {
		if other, ok := c.pastNamespace(search, module, found); ok {
			return other, "", c.moduleDenied(other, module)
		}
	}
	var listable []string
	for _, entry := range search.entries {
		if c.dirDenied(entry) == nil {
			listable = append(listable, entry)
		}
	}
	if len(listable) == len(search.entries) {
		return found, "", denied
	}
	mine := &searchPath{r: search.r, entries: listable, version: search.version}
	if other, otherMissing := mine.find(module); otherMissing == "" {
		return other, "", c.moduleDenied(other, module)
	}
	return found, "", denied
}

// pastNamespace finds what Python imports instead of a top-level package
// whose directory the user may not enter, and so only a namespace portion:
// a module of the name beside it (FileFinder.find_spec tries the file
// suffixes before it returns the portion), or a module or regular package
// in a later entry (PathFinder._get_spec keeps looking past portions).
func (c *checker) pastNamespace(search *searchPath, module string, found Found) (Found, bool) {
	for _, suffix := range []string{".py", ".pyc"} {
		if file := path.Join(found.Entry, module+suffix); c.r.isFile(file) {
			return Found{File: file, Entry: found.Entry}, true
		}
	}
	if ext := search.extension(found.Entry, module); ext != "" {
		return Found{File: ext, Entry: found.Entry}, true
	}
	i := slices.Index(search.entries, found.Entry)
	if i < 0 {
		return Found{}, false
	}
	later := &searchPath{r: search.r, entries: search.entries[i+1:], version: search.version}
	other, missing := later.find(module)
	if missing != "" || other.File == "" {
		return Found{}, false
	}
	return other, true
}
