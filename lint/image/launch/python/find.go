package python

import (
	"fmt"
	"path"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// Found is where a module was found.
type Found struct {
	// File is the module's source or extension file; for a package its
	// __init__ file, "" for a namespace package.
	File string
	// Dirs are a package's directories (its __path__); empty for a module.
	Dirs []string
	// Entry is the sys.path entry it was found under.
	Entry string
}

// searchPath is one module search: the directories in sys.path order.
type searchPath struct {
	r       *resolver
	entries []string
	version string // "3.11", for extension modules' ABI tags
	// otherABI records extension files of the name built for another
	// Python, which the import skips.
	otherABI []string
	// entrySet is entries as a set, and onMount says which entry is on a
	// volume, once asked for.
	entrySet    map[string]bool
	onMount     string
	mountLooked bool
}

func (s *searchPath) has(entry string) bool {
	if s.entrySet == nil {
		s.entrySet = make(map[string]bool, len(s.entries))
		for _, e := range s.entries {
			s.entrySet[e] = true
		}
	}
	return s.entrySet[entry]
}

// mounted says which entry is on one of the container's volumes, whose
// modules are known only at run time; "" when none is.
func (s *searchPath) mounted(c *checker) string {
	if !s.mountLooked {
		s.mountLooked = true
		for _, entry := range s.entries {
			if mount := c.mountOf(entry); mount != "" {
				s.onMount = fmt.Sprintf("%s is on the volume mounted at %s", entry, mount)
				break
			}
		}
	}
	return s.onMount
}

// extensionTag matches an extension module's file name: NAME.so,
// NAME.abi3.so, NAME.cpython-311-x86_64-linux-gnu.so.
var extensionTag = lazyregexp.New(`^(.+?)\.(?:(abi3)|cpython-(\d)(\d+)(t?)(?:-[a-z0-9_]+(?:-[a-z0-9_]+)*)?)\.so$`)

// moduleIn looks for module name in one directory as the path-based
// finder does: a regular package (NAME/__init__.*), a module (NAME.py,
// NAME.pyc, an extension built for this Python), or a namespace portion
// (a directory without __init__).
func (s *searchPath) moduleIn(dir, name string) (file string, pkg, namespace bool) {
	if !s.r.isDir(dir) {
		return "", false, false
	}
	candidate := path.Join(dir, name)
	if s.r.isDir(candidate) {
		for _, init := range []string{"__init__.py", "__init__.pyc"} {
			if s.r.isFile(path.Join(candidate, init)) {
				return path.Join(candidate, init), true, false
			}
		}
		if init := s.extension(candidate, "__init__"); init != "" {
			return init, true, false
		}
		namespace = true
	}
	for _, suffix := range []string{".py", ".pyc"} {
		if s.r.isFile(candidate + suffix) {
			return candidate + suffix, false, false
		}
	}
	if ext := s.extension(dir, name); ext != "" {
		return ext, false, false
	}
	return "", false, namespace
}

// extension finds NAME's extension module in dir for this interpreter.
func (s *searchPath) extension(dir, name string) string {
	node := s.r.stat(dir)
	if node == nil || node.Type != rootfs.Dir {
		return ""
	}
	major, minor, _ := strings.Cut(s.version, ".")
	for _, child := range s.r.extensionsOf(node)[name] {
		if child == name+".so" {
			return path.Join(dir, child)
		}
		m := extensionTag.FindStringSubmatch(child)
		if m == nil || m[1] != name {
			continue
		}
		if m[2] == "abi3" || m[3] == major && m[4] == minor {
			return path.Join(dir, child)
		}
		s.otherABI = append(s.otherABI, path.Join(dir, child))
	}
	return ""
}

// extensionsOf indexes the .so files of a directory by the name before
// their first dot, in the order of its entries.
func (r *resolver) extensionsOf(dir *rootfs.Node) map[string][]string {
	if index, ok := r.extensions[dir]; ok {
		return index
	}
	index := map[string][]string{}
	for _, child := range dir.Children() {
		if name, _, ok := strings.Cut(child, "."); ok && strings.HasSuffix(child, ".so") {
			index[name] = append(index[name], child)
		}
	}
	if r.extensions == nil {
		r.extensions = map[*rootfs.Node]map[string][]string{}
	}
	r.extensions[dir] = index
	return index
}

// providers returns, by module name, the indexes of the entries whose
// directory has an entry that may provide it (NAME, NAME.py, NAME.pyc,
// NAME.*.so), in order: a top-level module is looked for in those alone,
// as the import would find it nowhere else.
func (s *searchPath) providers() map[string][]int {
	key := strings.Join(s.entries, "\x00")
	if index, ok := s.r.providers[key]; ok {
		return index
	}
	index := map[string][]int{}
	for i, entry := range s.entries {
		node := s.r.stat(entry)
		if node == nil || node.Type != rootfs.Dir {
			continue
		}
		for _, child := range node.Children() {
			names := []string{child}
			if name, _, ok := strings.Cut(child, "."); ok && name != child && (strings.HasSuffix(child, ".py") || strings.HasSuffix(child, ".pyc") || strings.HasSuffix(child, ".so")) {
				names = append(names, name)
			}
			for _, name := range names {
				if list := index[name]; len(list) == 0 || list[len(list)-1] != i {
					index[name] = append(list, i)
				}
			}
		}
	}
	if s.r.providers == nil {
		s.r.providers = map[string]map[string][]int{}
	}
	s.r.providers[key] = index
	return index
}

// find resolves a dotted module name; missing is the first name that
// is not found ("app.routes" when app is, "" when all are).
func (s *searchPath) find(module string) (found Found, missing string) {
	parts := strings.Split(module, ".")
	dirs := s.entries
	if providers := s.providers()[parts[0]]; len(providers) < len(dirs) {
		dirs = make([]string, len(providers))
		for i, entry := range providers {
			dirs[i] = s.entries[entry]
		}
	}
	for i, part := range parts {
		var namespaceDirs []string
		hit := false
		for _, dir := range dirs {
			file, pkg, namespace := s.moduleIn(dir, part)
			if namespace {
				namespaceDirs = append(namespaceDirs, path.Join(dir, part))
				continue
			}
			if file == "" {
				continue
			}
			if i == 0 {
				found.Entry = dir
			}
			found.File, found.Dirs = file, nil
			if pkg {
				found.Dirs = []string{path.Dir(file)}
			}
			hit = true
			break
		}
		if !hit && len(namespaceDirs) > 0 {
			if i == 0 {
				found.Entry = path.Dir(namespaceDirs[0])
			}
			found.File, found.Dirs, hit = "", namespaceDirs, true
		}
		if !hit {
			return found, strings.Join(parts[:i+1], ".")
		}
		if i < len(parts)-1 && len(found.Dirs) == 0 {
			// A plain module has no submodules on disk (os.path is an
			// attribute os sets): what follows is not looked for.
			return found, ""
		}
		dirs = found.Dirs
	}
	return found, ""
}
