package python

import (
	"bufio"
	"bytes"
	"path"
	"slices"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// Interpreter is a CPython executable in the image and the import path it
// builds at start (Modules/getpath.py, Lib/site.py).
type Interpreter struct {
	// Executable is the path the interpreter was started as (sys.executable:
	// a venv's bin/python, not the file it links to); Resolved is that file.
	Executable, Resolved string
	// Version is "3.11".
	Version string
	// Prefix is where the standard library was found; Venv is the venv's
	// directory (the one holding pyvenv.cfg), "" outside one.
	Prefix, Venv string
	// Stdlib are the standard library's directories; Site the
	// site-packages and dist-packages directories, .pth additions included;
	// Extra the PYTHONPATH entries, which hold an app's own code.
	Stdlib, Site, Extra []string
	// Hooks are .pth files that run code when site starts (an editable
	// install's import finder), which can provide modules no directory
	// holds.
	Hooks []string
	// ZipEntries are sys.path entries that are files (zip archives, eggs),
	// whose modules are not listed.
	ZipEntries []string
	// UserSite is the user site-packages this Python adds when it exists
	// (~/.local/lib/pythonX.Y/site-packages, or under PYTHONUSERBASE); ""
	// when it adds none (a venv, -s, -I, -S, PYTHONNOUSERSITE).
	UserSite string
	// installed are Stdlib and Site as a set, once asked for.
	installed map[string]bool
}

// Flags are the interpreter options that change its import path.
type Flags struct {
	IgnoreEnvironment bool // -E, -I: PYTHONPATH and PYTHONHOME are ignored
	NoUserSite        bool // -s, -I
	NoSite            bool // -S: no site-packages at all
	SafePath          bool // -P, -I: the script's dir or cwd is not prepended
}

var versionedName = lazyregexp.New(`^python(\d+\.\d+)t?$`)

// resolver looks files up in the merged image.
type resolver struct {
	img   *image.Image
	fs    *rootfs.FS
	needs []*rootfs.Node
	// stats are the lookups made, and providers and extensions the
	// module names directories provide (see searchPath): a module is
	// looked for in every directory of the import path, import after
	// import.
	stats      map[string]*rootfs.Node
	providers  map[string]map[string][]int
	extensions map[*rootfs.Node]map[string][]string
	// distributions are the distributions of the site dirs of other
	// Pythons, by site dir (see distributionOf).
	distributions map[string]siteDistributions
}

// stat is fs.Stat, remembered; nil when the path does not resolve.
func (r *resolver) stat(p string) *rootfs.Node {
	if node, ok := r.stats[p]; ok {
		return node
	}
	node, err := r.fs.Stat(p)
	if err != nil {
		node = nil
	}
	if r.stats == nil {
		r.stats = map[string]*rootfs.Node{}
	}
	r.stats[p] = node
	return node
}

func (r *resolver) isDir(p string) bool {
	node := r.stat(p)
	return node != nil && node.Type == rootfs.Dir
}

func (r *resolver) isFile(p string) bool {
	node := r.stat(p)
	return node != nil && node.Type == rootfs.Regular
}

func (r *resolver) exists(p string) bool { return r.stat(p) != nil }

// text returns a small file's captured content; a file that exists but
// was not captured is asked for, and ok is false.
func (r *resolver) text(p string) (data []byte, exists, ok bool) {
	node := r.stat(p)
	if node == nil || node.Type != rootfs.Regular {
		return nil, false, false
	}
	facts := r.img.Facts(node)
	if facts == nil || facts.Text == nil {
		r.needs = append(r.needs, node)
		return nil, true, false
	}
	return facts.Text, true, true
}

// venvConfig is what pyvenv.cfg says.
type venvConfig struct {
	home, version string
	systemSite    bool
}

func parseVenvConfig(data []byte) venvConfig {
	var cfg venvConfig
	scanner := bufio.NewScanner(bytes.NewReader(data))
	for scanner.Scan() {
		key, value, ok := strings.Cut(scanner.Text(), "=")
		if !ok {
			continue
		}
		key, value = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value)
		switch key {
		case "home":
			cfg.home = value
		case "version", "version_info":
			if parts := strings.SplitN(value, ".", 3); len(parts) >= 2 {
				cfg.version = parts[0] + "." + parts[1]
			}
		case "include-system-site-packages":
			cfg.systemSite = strings.EqualFold(value, "true")
		}
	}
	return cfg
}

// interpreter models the CPython started as executable; reason says why it
// could not be (its version or standard library not found).
func (r *resolver) interpreter(executable string, spec launch.Spec, flags Flags) (*Interpreter, string) {
	_, resolved, err := r.fs.Resolve(executable, true)
	if err != nil {
		return nil, executable + " is not in the image"
	}
	in := &Interpreter{Executable: executable, Resolved: resolved}
	if m := versionedName.FindStringSubmatch(path.Base(resolved)); m != nil {
		in.Version = m[1]
	}
	// A venv is found beside the executable as started, or one level up.
	var venv *venvConfig
	base := resolved
	for _, dir := range []string{path.Dir(executable), path.Dir(path.Dir(executable))} {
		cfgPath := path.Join(dir, "pyvenv.cfg")
		data, exists, ok := r.text(cfgPath)
		if !exists {
			continue
		}
		if !ok {
			return nil, cfgPath + ": its content was not read"
		}
		cfg := parseVenvConfig(data)
		venv, in.Venv = &cfg, dir
		if in.Version == "" {
			in.Version = cfg.version
		}
		if cfg.home != "" {
			base = path.Join(cfg.home, path.Base(resolved))
		}
		break
	}
	environment := func(name string) string {
		if flags.IgnoreEnvironment {
			return ""
		}
		value, _ := launch.Lookup(spec.Env, name)
		return value
	}
	var candidates []string
	if home := environment("PYTHONHOME"); home != "" {
		prefix, _, _ := strings.Cut(home, ":")
		candidates = []string{prefix}
	} else {
		for dir := path.Dir(base); ; dir = path.Dir(dir) {
			candidates = append(candidates, dir)
			if dir == "/" {
				break
			}
		}
		candidates = append(candidates, "/usr/local", "/usr") // the compiled-in prefixes of the common builds
	}
	if in.Version == "" {
		in.Version = r.onlyVersion(candidates)
	}
	if in.Version == "" {
		return nil, "the version of " + describe(executable, resolved) + " is not in its name and no single lib/python3.N was found"
	}
	if !strings.HasPrefix(in.Version, "3.") {
		return nil, describe(executable, resolved) + " is Python " + in.Version + ", whose standard library is not modelled"
	}
	for _, prefix := range candidates {
		for _, lib := range []string{"lib", "lib64"} {
			stdlib := path.Join(prefix, lib, "python"+in.Version)
			if r.exists(path.Join(stdlib, "os.py")) || r.exists(path.Join(stdlib, "os.pyc")) ||
				r.exists(path.Join(prefix, lib, "python"+strings.ReplaceAll(in.Version, ".", "")+".zip")) {
				in.Prefix = prefix
				break
			}
		}
		if in.Prefix != "" {
			break
		}
	}
	if in.Prefix == "" {
		return nil, "no standard library of Python " + in.Version + " (lib/python" + in.Version + "/os.py) was found for " + describe(executable, resolved)
	}
	for _, lib := range []string{"lib", "lib64"} {
		zip := path.Join(in.Prefix, lib, "python"+strings.ReplaceAll(in.Version, ".", "")+".zip")
		if r.isFile(zip) {
			in.ZipEntries = append(in.ZipEntries, zip)
		}
		stdlib := path.Join(in.Prefix, lib, "python"+in.Version)
		if r.isDir(stdlib) {
			in.Stdlib = append(in.Stdlib, stdlib, path.Join(stdlib, "lib-dynload"))
		}
	}
	for _, entry := range strings.Split(environment("PYTHONPATH"), ":") {
		if entry == "" {
			continue
		}
		if !strings.HasPrefix(entry, "/") {
			entry = path.Join("/", spec.WorkingDir, entry)
		}
		in.Extra = append(in.Extra, path.Clean(entry))
	}
	if flags.NoSite {
		return in, ""
	}
	var sites []string
	if !flags.NoUserSite && environment("PYTHONNOUSERSITE") == "" && venv == nil {
		userBase := environment("PYTHONUSERBASE")
		if userBase == "" {
			userBase = path.Join(r.home(spec), ".local")
		}
		in.UserSite = path.Join(userBase, "lib", "python"+in.Version, "site-packages")
		sites = append(sites, in.UserSite)
	}
	if venv != nil {
		sites = append(sites, r.siteDirs(in.Venv, in.Version)...)
	}
	if venv == nil || venv.systemSite {
		sites = append(sites, r.siteDirs(in.Prefix, in.Version)...)
		if in.Prefix == "/usr" {
			// Debian's site.py: pip's /usr/local and the distribution's
			// packages; Fedora's and RHEL's (UBI) add pip's /usr/local
			// site-packages, lib64 included.
			sites = append(sites, "/usr/local/lib/python"+in.Version+"/dist-packages", "/usr/lib/python3/dist-packages",
				"/usr/lib/python"+in.Version+"/dist-packages")
			sites = append(sites, r.siteDirs("/usr/local", in.Version)...)
		}
	}
	onPath := map[string]bool{}
	for _, site := range sites {
		if !r.isDir(site) || onPath[site] {
			continue
		}
		in.Site, onPath[site] = append(in.Site, site), true
		r.readPathFiles(in, site, onPath)
	}
	r.customizeHooks(in)
	return in, ""
}

// customizeHooks records a sitecustomize or usercustomize module that
// changes the import path: site imports it at start.
func (r *resolver) customizeHooks(in *Interpreter) {
	for _, dir := range append(append([]string(nil), in.Stdlib...), in.Site...) {
		for _, name := range []string{"sitecustomize.py", "usercustomize.py"} {
			file := path.Join(dir, name)
			data, exists, ok := r.text(file)
			switch {
			case !exists:
			case !ok:
				in.Hooks = append(in.Hooks, file+" (content not read)")
			case bytes.Contains(data, []byte("sys.path")) || bytes.Contains(data, []byte("addsitedir")) || bytes.Contains(data, []byte("meta_path")):
				in.Hooks = append(in.Hooks, file)
			}
		}
	}
}

// home is the HOME the process gets: the env's, else the one runc sets,
// the home of the uid's /etc/passwd entry, or "/" when it has none.
func (r *resolver) home(spec launch.Spec) string {
	process := launch.NewProcess(spec, r.img)
	if process.Home == "" {
		return "/"
	}
	return process.Home
}

// onlyVersion is the version of the single lib/python3.N directory with a
// standard library under the candidate prefixes, "" when none or several.
func (r *resolver) onlyVersion(prefixes []string) string {
	for _, prefix := range prefixes {
		node, err := r.fs.Stat(path.Join(prefix, "lib"))
		if err != nil || node.Type != rootfs.Dir {
			continue
		}
		var found []string
		for _, name := range node.Children() {
			if m := versionedName.FindStringSubmatch(name); m != nil && r.exists(path.Join(prefix, "lib", name, "os.py")) {
				found = append(found, m[1])
			}
		}
		if len(found) == 1 {
			return found[0]
		}
		if len(found) > 1 {
			return ""
		}
	}
	return ""
}

func (r *resolver) siteDirs(prefix, version string) []string {
	return []string{path.Join(prefix, "lib", "python"+version, "site-packages"), path.Join(prefix, "lib64", "python"+version, "site-packages")}
}

// harmlessHooks are .pth files whose code installs no import finder.
var harmlessHooks = []string{"distutils-precedence.pth", "_virtualenv.pth"}

// readPathFiles adds the directories a site dir's .pth files name, as
// site.addpackage does: a line starting with "import" is run (recorded as
// a hook), any other line is a path relative to the site dir, added when
// it exists.
func (r *resolver) readPathFiles(in *Interpreter, site string, onPath map[string]bool) {
	node, err := r.fs.Stat(site)
	if err != nil {
		return
	}
	names := node.Children()
	slices.Sort(names)
	for _, name := range names {
		if !strings.HasSuffix(name, ".pth") || strings.HasPrefix(name, ".") {
			continue
		}
		file := path.Join(site, name)
		data, exists, ok := r.text(file)
		if !exists {
			continue
		}
		if !ok {
			in.Hooks = append(in.Hooks, file+" (content not read)")
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimRight(line, "\r")
			switch {
			case line == "" || strings.HasPrefix(line, "#"):
			case strings.HasPrefix(line, "import ") || strings.HasPrefix(line, "import\t"):
				if !slices.Contains(harmlessHooks, name) {
					in.Hooks = append(in.Hooks, file)
				}
			default:
				dir := strings.TrimSpace(line)
				if !strings.HasPrefix(dir, "/") {
					dir = path.Join(site, dir)
				}
				dir = path.Clean(dir)
				switch {
				case r.isDir(dir) && !onPath[dir]:
					in.Site, onPath[dir] = append(in.Site, dir), true
				case r.isFile(dir):
					in.ZipEntries = append(in.ZipEntries, dir)
				}
			}
		}
	}
}

func describe(asked, resolved string) string {
	if asked == resolved {
		return asked
	}
	return asked + " -> " + resolved
}
