package python

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/pysource"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// Kind says which check a problem fails.
type Kind int

const (
	// FileMissing: the script or file the program is told to run is not
	// in the image.
	FileMissing Kind = iota + 1
	// ModuleMissing: the module python -m or an app server is told to
	// load is on none of the interpreter's import path.
	ModuleMissing
	// ImportMissing: an entry module's unconditional import resolves
	// nowhere in the image.
	ImportMissing
)

// Reason is finer than Kind.
type Reason int

const (
	// NotFound: Path (FileMissing) or Module does not exist.
	NotFound Reason = iota + 1
	// NoMain: the script is a directory, or the -m module a package,
	// without __main__.py.
	NoMain
	// RelativeInScript: a script run by path makes a relative import.
	RelativeInScript
	// AttrMissing: the app module (Path) never mentions the ATTR of
	// MODULE:ATTR, so it cannot define it.
	AttrMissing
	// Unreadable: the image has the script, or Module at Path, but User
	// may not read it (Denied says why).
	Unreadable
	// RelativeBeyondTop: a module's relative import climbs above its
	// top-level package, or the module is in none (Module is the package
	// it is in, "" then).
	RelativeBeyondTop
)

// Problem is one target or import that would stop the app at start.
type Problem struct {
	Kind   Kind
	Reason Reason
	Run    launch.Run
	// Tool is the program's base name (python3, uvicorn, node …); Program
	// its argv word as written (the name the interpreter reports).
	Tool, Program string
	// Word is the index in Run.Argv of the word naming the target; -1 for
	// an import.
	Word int
	// Target is that word, or the module of an import as written.
	Target string
	// Attr is the app object of MODULE:ATTR.
	Attr string
	// From says an import is `from Target import Names` (Names empty for
	// a star import).
	From  bool
	Names []string
	// Path is the missing file (FileMissing), the module's file, or for an
	// import the file holding it; Line the import's line.
	Path string
	Line int
	// Importer is the entry module that imported Path, for an import one
	// level into the app.
	Importer string
	// Module is the module that is missing (the first dotted part not
	// found).
	Module string
	// ServeApp is the Ray Serve application whose import_path names
	// Target ("" for the start's own programs).
	ServeApp string
	// WorkingDir is the directory relative paths resolved from; Store
	// says it is TorchServe's model store rather than the working dir.
	WorkingDir string
	Store      bool
	// Interpreter is the Python that would run it (nil for node, java).
	Interpreter *Interpreter
	// SysPath is the import path searched.
	SysPath []string
	// Siblings are files beside a missing one with the same extension:
	// what the image has instead.
	Siblings []string
	// OtherABI are extension modules of the name built for another Python.
	OtherABI []string
	// Elsewhere are where the image has a module of the missing name, in
	// the working dir's subdirectories: the app copied to another place.
	Elsewhere []string
	// OtherSites are where the image installed the missing module for
	// another Python than the one that runs.
	OtherSites []OtherSite
	// Layer and LayerDigest are of the file an import is in.
	Layer, LayerDigest string
	// User is who the container runs as; Denied, for Unreadable, why it
	// may not read Path.
	User   launch.User
	Denied *Denied
}

// Analysis is what the checks found over a container's start.
type Analysis struct {
	Problems []Problem
	// Unchecked says what could not be decided, so rules skip rather than
	// pass.
	Unchecked []Unchecked
	// Needs are files whose content the checks want read.
	Needs []*rootfs.Node
	// Entries counts the runs that start a program these checks know.
	Entries int
	// Frameworks are the frameworks installed for the interpreters that
	// run, with the CUDA they were built for.
	Frameworks []Framework
	// Wheels are the compiled wheels installed for those interpreters, and
	// Libc the image's C library they need to match.
	Wheels []Wheel
	Libc   *Libc
	// imported are the top-level modules the app imports from the
	// interpreters' installed packages; noted are the Unchecked, as a set.
	imported map[string]bool
	noted    map[Unchecked]bool
	// importers are the Python programs of the start, for FindModule.
	importers []importer
}

// Unchecked is one thing a check could not decide; Kind 0 concerns every
// check (the interpreter itself could not be modelled).
type Unchecked struct {
	Kind   Kind
	Reason string
}

// UncheckedFor lists what the check of a kind could not decide.
func (a *Analysis) UncheckedFor(kind Kind) []string {
	var reasons []string
	for _, u := range a.Unchecked {
		if u.Kind == 0 || u.Kind == kind {
			reasons = append(reasons, u.Reason)
		}
	}
	return reasons
}

// Context is what the checks need of the container besides the image.
type Context struct {
	Spec launch.Spec
	// Mounts are the container's volume mount paths: what is under them
	// comes from a volume at run time, not from the image.
	Mounts []string
	// EnvFromCluster names env variables whose value the kubelet resolves
	// (valueFrom), unknown here.
	EnvFromCluster []string
	// ServeApps are the Ray Serve applications the container's Ray
	// deploys (a RayService's serveConfigV2), imported by the Python the
	// image's ray program runs.
	ServeApps []ServeApp
	// ServeConfigError says why the Serve config could not be read.
	ServeConfigError string
}

// maxFollowed bounds the app modules read one level into the app, and
// maxMissed the imports of one module reported missing (or noted as not
// decided): an app that fails at start on a hundred needs no more, and a
// module of 50,000 missing imports made as many findings.
const (
	maxFollowed = 64
	maxMissed   = 100
)

// Analyze checks what the runs of a container's start load.
func Analyze(img *image.Image, ctx Context, runs []launch.Run) *Analysis {
	a := &Analysis{imported: map[string]bool{}}
	if img == nil || img.FS() == nil {
		return a
	}
	user := launch.ResolveUser(ctx.Spec, img)
	// A wrapper's branches each give a run: one that would fail while
	// another starts may be a branch the script never takes, so its
	// problems are reported only when every run fails (as the start path's
	// own checks do). A side run (a server a script starts before it ends
	// on `tail -f /dev/null`) runs with the runs that name it in With, and
	// its problems are theirs.
	problems := make([][]Problem, len(runs))
	checked := make([]bool, len(runs))
	for i, run := range runs {
		if run.Fails {
			continue
		}
		entry, ok := ParseEntry(run.Argv)
		if !ok {
			checked[i] = true // the branch runs another program
			continue
		}
		a.Entries++
		before := len(a.Problems)
		c := &checker{r: &resolver{img: img, fs: img.FS()}, ctx: ctx, run: run, entry: entry, analysis: a, seen: map[string]bool{}, user: user}
		if run.User.Via != "" || run.User.Unresolved != "" {
			c.user = run.User // a wrapper on the way switched the user
		}
		c.check()
		a.Needs = append(a.Needs, c.r.needs...)
		checked[i] = true
		problems[i] = append([]Problem(nil), a.Problems[before:]...)
		a.Problems = a.Problems[:before]
	}
	var ways [][]int // the runs that run together, one list per way
	for i, run := range runs {
		if !run.Side {
			ways = append(ways, append([]int{i}, run.With...))
		}
	}
	if len(ways) == 0 {
		for i := range runs {
			ways = append(ways, []int{i})
		}
	}
	started := false
	for _, way := range ways {
		ok := checked[way[0]]
		for _, i := range way {
			ok = ok && i < len(runs) && len(problems[i]) == 0
		}
		started = started || ok
	}
	var failing [][]Problem
	for _, p := range problems {
		if len(p) > 0 {
			failing = append(failing, p)
		}
	}
	if ctx.ServeConfigError != "" {
		a.Unchecked = append(a.Unchecked, Unchecked{Kind: ModuleMissing, Reason: ctx.ServeConfigError})
	}
	for _, app := range ctx.ServeApps {
		a.checkServeApp(img, ctx, app)
	}
	for _, problems := range failing {
		if !started || len(ways) == 1 {
			a.Problems = append(a.Problems, problems...)
			continue
		}
		for _, p := range problems {
			a.Unchecked = append(a.Unchecked, Unchecked{Kind: p.Kind, Reason: fmt.Sprintf("a branch of the start runs %s, which cannot load %s (not reported: another branch starts)",
				strings.Join(p.Run.Argv, " "), p.Target)})
		}
	}
	return a
}

// checkServeApp checks a Ray Serve application's import_path in the
// Python of the image's ray program, from the container's working dir.
func (a *Analysis) checkServeApp(img *image.Image, ctx Context, app ServeApp) {
	target, ok := serveTarget(app)
	if !ok {
		return
	}
	run := launch.Run{Argv: []string{"ray"}}
	entry := Entry{Tool: "ray", Python: true, Targets: []Target{target}}
	a.Entries++
	c := &checker{r: &resolver{img: img, fs: img.FS()}, ctx: ctx, run: run, entry: entry, analysis: a, seen: map[string]bool{}, serveApp: app.Name,
		user: launch.ResolveUser(ctx.Spec, img)}
	c.check()
	a.Needs = append(a.Needs, c.r.needs...)
}

type checker struct {
	// serveApp is the Ray Serve application checked, "" for a run.
	serveApp string
	r        *resolver
	ctx      Context
	run      launch.Run
	entry    Entry
	analysis *Analysis
	env      []string
	cwd      string
	// dirUnsure and envUnsure say why the working dir or the environment
	// may differ from what is modelled.
	dirUnsure, envUnsure string
	seen                 map[string]bool
	followed             int
	// others are the site dirs of other Pythons than each interpreter.
	others map[*Interpreter][]string
	// user is who the container runs as; listable says, by directory, why
	// it may not list one (nil when it may), once asked.
	user     launch.User
	listable map[string]*Denied
}

func (c *checker) unchecked(kind Kind, format string, args ...any) {
	u := Unchecked{Kind: kind, Reason: fmt.Sprintf(format, args...)}
	if c.analysis.noted == nil {
		c.analysis.noted = map[Unchecked]bool{}
		for _, noted := range c.analysis.Unchecked {
			c.analysis.noted[noted] = true
		}
	}
	if !c.analysis.noted[u] {
		c.analysis.Unchecked, c.analysis.noted[u] = append(c.analysis.Unchecked, u), true
	}
}

func (c *checker) check() {
	c.env = append([]string(nil), c.ctx.Spec.Env...)
	c.cwd = c.ctx.Spec.WorkingDir
	if c.cwd == "" {
		c.cwd = "/"
	}
	c.cwd = path.Join("/", c.cwd)
	for _, hop := range c.run.Via {
		c.env = append(c.env, hop.Env...)
		switch {
		case hop.DirUnknown != "":
			c.dirUnsure = hop.Script + ": " + hop.DirUnknown
		case hop.Dir != "":
			c.cwd = c.join(c.cwd, hop.Dir)
		}
		for _, name := range hop.EnvUnknown {
			if pythonEnv(name) {
				c.envUnsure = fmt.Sprintf("%s sets %s at run time", hop.Script, name)
			}
		}
		if len(hop.Tainted) > 0 {
			c.envUnsure = hop.Script + ": " + hop.Tainted[0]
		}
	}
	// su-exec and runuser set HOME from the entry of the user they switch
	// to; gosu and setpriv leave the one runc set.
	if c.run.HomeSet && c.run.Home != "" {
		c.env = append(c.env, "HOME="+c.run.Home)
	} else if c.run.HomeSet {
		c.envUnsure = c.run.User.Via + " sets HOME from the account of a user known only at run time"
	}
	for _, name := range c.ctx.EnvFromCluster {
		if pythonEnv(name) {
			c.envUnsure = name + " comes from a ConfigMap, Secret or field the cluster resolves"
		}
	}
	if c.entry.Python {
		c.checkPython()
		return
	}
	for _, target := range c.entry.Targets {
		c.checkFile(target, nil)
	}
}

// pythonEnv names variables that change which python runs or what it imports.
func pythonEnv(name string) bool {
	switch name {
	case "PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONNOUSERSITE", "HOME", "VIRTUAL_ENV", "PYTHONSAFEPATH":
		return true
	}
	return false
}

// join resolves a path from a directory.
func (c *checker) join(dir, name string) string {
	if strings.HasPrefix(name, "/") {
		return path.Clean(name)
	}
	return path.Join(dir, name)
}

// mountOf returns the volume mount a path is under, "" when it is in the
// image.
func (c *checker) mountOf(p string) string {
	for _, mount := range c.ctx.Mounts {
		mount = path.Clean(mount)
		if p == mount || strings.HasPrefix(p, mount+"/") || mount == "/" {
			return mount
		}
	}
	return ""
}

// lookPath finds a program as a shell or exec.LookPath does in the
// effective PATH; the path as found, not resolved.
func (c *checker) lookPath(name string) (string, bool) {
	if strings.Contains(name, "/") {
		p := c.join(c.cwd, name)
		return p, c.r.isFile(p)
	}
	pathValue, _ := launch.Lookup(c.env, "PATH")
	for _, dir := range strings.Split(pathValue, ":") {
		if !strings.HasPrefix(dir, "/") {
			continue
		}
		candidate := path.Join(dir, name)
		if c.r.isFile(candidate) {
			return candidate, true
		}
	}
	return "", false
}

func (c *checker) checkPython() {
	program := c.run.Argv[c.entry.Offset]
	executable := ""
	scriptDir := ""
	if c.entry.Interpreter != "" {
		found, ok := c.lookPath(program)
		if !ok {
			c.unchecked(0, "%s is not found in the PATH the program runs with", program)
			return
		}
		executable = found
	} else {
		// A console script (uvicorn, gunicorn …): its #! line names the
		// interpreter, and its directory is sys.path[0].
		script, ok := c.lookPath(program)
		if !ok {
			c.unchecked(0, "%s is not found in the PATH the program runs with", program)
			return
		}
		node, resolved, err := c.r.fs.Resolve(script, true)
		if err != nil {
			return
		}
		facts := c.r.img.Facts(node)
		switch {
		case facts == nil:
			c.r.needs = append(c.r.needs, node)
			c.unchecked(0, "%s: content not read", resolved)
			return
		case !facts.IsScript():
			c.unchecked(0, "%s is not a Python console script (no #! line): the interpreter it embeds is not modelled", resolved)
			return
		}
		shebang, _ := launch.ParseShebang(facts.Head)
		interpreter := shebang.Interpreter
		if path.Base(interpreter) == "env" {
			fields := strings.Fields(shebang.Argument)
			for len(fields) > 0 && (strings.HasPrefix(fields[0], "-") || strings.Contains(fields[0], "=")) {
				fields = fields[1:]
			}
			if len(fields) == 0 {
				return
			}
			found, ok := c.lookPath(fields[0])
			if !ok {
				return // MDL303 reports the missing program
			}
			interpreter = found
		}
		if !pythonProgram.MatchString(path.Base(interpreter)) {
			c.unchecked(0, "%s runs %s, not a python interpreter", resolved, interpreter)
			return
		}
		executable = interpreter
		scriptDir = path.Dir(resolved)
		c.analysis.imported[consoleScriptModule(c.entry.Tool)] = true
	}
	spec := c.ctx.Spec
	spec.Env, spec.WorkingDir = c.env, c.cwd
	in, reason := c.r.interpreter(executable, spec, c.entry.Flags)
	if in == nil {
		c.unchecked(0, "%s", reason)
		return
	}
	c.analysis.importers = append(c.analysis.importers, importer{program: c.programName(), checker: c, in: in, scriptDir: scriptDir})
	before := len(c.analysis.Problems)
	c.frameworks(in)
	c.wheels(in)
	defer c.markImported()
	for _, target := range c.entry.Targets {
		if len(c.analysis.Problems) > before {
			return // the program stops at the first target it cannot load
		}
		switch target.Kind {
		case Script:
			c.checkScript(target, in)
		case Module, App:
			var first []string
			if target.Kind == App || target.AppDir != "" {
				first = append(first, c.join(c.cwd, target.AppDir))
				for _, extra := range target.ExtraPath {
					first = append(first, c.join(c.cwd, extra))
				}
			}
			if scriptDir != "" {
				first = append(first, scriptDir)
			} else if !c.entry.Flags.SafePath {
				first = append(first, c.cwd) // -m puts the working dir first
			}
			c.checkModule(target, in, first)
		case File:
			c.checkFile(target, in)
		}
	}
}

// consoleScriptModule is the package a console script imports first.
func consoleScriptModule(tool string) string {
	switch tool {
	case "serve":
		return "ray"
	case "fastapi":
		return "fastapi_cli"
	}
	return tool
}

// sysPath is the interpreter's import path with the entries that come first.
func sysPath(in *Interpreter, first []string) []string {
	var entries []string
	seen := map[string]bool{}
	for _, list := range [][]string{first, in.Extra, in.Stdlib, in.Site} {
		for _, entry := range list {
			if !seen[entry] {
				entries, seen[entry] = append(entries, entry), true
			}
		}
	}
	return entries
}

// installed says an import path entry holds the interpreter's own or
// installed packages rather than the app's code.
func installed(in *Interpreter, entry string) bool {
	if in.installed == nil {
		in.installed = map[string]bool{}
		for _, dir := range append(slices.Clone(in.Stdlib), in.Site...) {
			in.installed[dir] = true
		}
	}
	return in.installed[entry]
}

func (c *checker) problem(p Problem) {
	p.Run, p.Tool, p.Program, p.ServeApp, p.User = c.run, c.entry.Tool, c.run.Argv[c.entry.Offset], c.serveApp, c.user
	if p.WorkingDir == "" {
		p.WorkingDir = c.cwd
	}
	key := fmt.Sprintf("%d\x00%s\x00%d\x00%s", p.Kind, p.Path, p.Word, p.Module)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.analysis.Problems = append(c.analysis.Problems, p)
}

// relativeUnsure says why a relative path may resolve elsewhere.
func (c *checker) relativeUnsure(name string) string {
	if strings.HasPrefix(name, "/") {
		return ""
	}
	return c.dirUnsure
}

func (c *checker) checkScript(target Target, in *Interpreter) {
	script := c.join(c.cwd, target.Name)
	if mount := c.mountOf(script); mount != "" {
		c.unchecked(FileMissing, "%s is on the volume mounted at %s, not in the image", script, mount)
		return
	}
	node, resolved, err := c.r.fs.Resolve(script, true)
	if err != nil {
		if unsure := c.relativeUnsure(target.Name); unsure != "" {
			c.unchecked(FileMissing, "%s: the working dir is known only at run time (%s)", target.Name, unsure)
			return
		}
		c.problem(Problem{Kind: FileMissing, Reason: NotFound, Word: target.Word, Target: target.Name, Path: script,
			Interpreter: in, Siblings: c.siblings(script)})
		return
	}
	if denied := c.scriptDenied(script, resolved, node); denied != nil {
		c.problem(Problem{Kind: FileMissing, Reason: Unreadable, Word: target.Word, Target: target.Name, Path: script,
			Interpreter: in, Denied: denied})
		return
	}
	if node.Type == rootfs.Dir {
		for _, main := range []string{"__main__.py", "__main__.pyc"} {
			if c.r.isFile(path.Join(resolved, main)) {
				c.checkImports(path.Join(resolved, main), "", in, []string{resolved}, true, 0, "")
				return
			}
		}
		c.problem(Problem{Kind: FileMissing, Reason: NoMain, Word: target.Word, Target: target.Name, Path: script, Interpreter: in})
		return
	}
	if !strings.HasSuffix(resolved, ".py") && !c.looksLikeSource(node) {
		return // a zip application or compiled file: its imports are not read
	}
	var first []string
	if !c.entry.Flags.SafePath {
		first = []string{path.Dir(resolved)}
	}
	c.checkImports(resolved, "", in, first, true, 0, "")
}

// scriptDenied says why the user may not open the script python is
// given, nil when it may: python then fails with "can't open file …:
// [Errno 13] Permission denied" (exit 2). The directories on the way as
// written are entered first, then those of the file links lead to.
func (c *checker) scriptDenied(script, resolved string, node *rootfs.Node) *Denied {
	if node.Type == rootfs.Dir {
		return c.dirDenied(resolved)
	}
	if blocked := launch.BlockingDirs(c.r.fs, c.user, script); c.restricted() && len(blocked) > 0 {
		return &Denied{Path: script, Blocked: blocked}
	}
	return c.fileDenied(resolved)
}

// looksLikeSource says a file without .py is Python source: a #! line
// naming python.
func (c *checker) looksLikeSource(node *rootfs.Node) bool {
	facts := c.r.img.Facts(node)
	if facts == nil {
		return false
	}
	shebang, ok := launch.ParseShebang(facts.Head)
	return ok && (strings.Contains(shebang.Interpreter, "python") || strings.Contains(shebang.Argument, "python"))
}

// siblings lists files with the same extension in a missing file's
// nearest existing directory, at most five.
func (c *checker) siblings(missing string) []string {
	ext := path.Ext(missing)
	dir := path.Dir(missing)
	node, err := c.r.fs.Stat(dir)
	if err != nil || node.Type != rootfs.Dir || ext == "" {
		return nil
	}
	var out []string
	names := node.Children()
	slices.Sort(names)
	for _, name := range names {
		if path.Ext(name) == ext && len(out) < 5 && c.r.isFile(path.Join(dir, name)) {
			out = append(out, path.Join(dir, name))
		}
	}
	return out
}

// missingUnsure says why a module that is on no directory of the import
// path may still be found at run time, "" when it cannot be.
func (c *checker) missingUnsure(in *Interpreter, search *searchPath, module string) string {
	if c.envUnsure != "" {
		return c.envUnsure
	}
	if mounted := search.mounted(c); mounted != "" {
		return mounted
	}
	top, _, _ := strings.Cut(module, ".")
	for _, mount := range c.ctx.Mounts {
		if path.Base(mount) == top && search.has(path.Dir(path.Clean(mount))) {
			return fmt.Sprintf("a volume is mounted at %s", mount)
		}
	}
	if len(in.Hooks) > 0 {
		return fmt.Sprintf("%s runs code at start that may change the import path or install an import finder", in.Hooks[0])
	}
	if len(in.ZipEntries) > 0 {
		return fmt.Sprintf("%s is a zip archive on the import path, whose modules are not listed", in.ZipEntries[0])
	}
	return ""
}

func (c *checker) checkModule(target Target, in *Interpreter, first []string) {
	entries := sysPath(in, first)
	top, _, _ := strings.Cut(target.Name, ".")
	if stdlibModules[top] && !strings.Contains(target.Name, ".") {
		return
	}
	search := &searchPath{r: c.r, entries: entries, version: in.Version}
	found, missing, denied := c.findAsUser(search, target.Name)
	if missing != "" {
		if stdlibModules[top] && missing == top {
			return
		}
		if unsure := c.missingUnsure(in, search, missing); unsure != "" {
			c.unchecked(ModuleMissing, "%s: module %s is not in the image's import path, but %s", target.Name, missing, unsure)
			return
		}
		if target.Unsure != "" {
			c.unchecked(ModuleMissing, "%s: module %s is not in the image's import path, but %s", target.Name, missing, target.Unsure)
			return
		}
		c.problem(Problem{Kind: ModuleMissing, Reason: NotFound, Word: target.Word, Target: target.Name, Module: missing,
			Interpreter: in, SysPath: entries, OtherABI: search.otherABI, Elsewhere: c.elsewhere(missing, in), OtherSites: c.otherSite(missing, in)})
		return
	}
	if denied != nil {
		c.deniedModule(target, found, in, entries, denied)
		return
	}
	file, module := found.File, target.Name
	if len(found.Dirs) > 0 && c.entry.Interpreter != "" && target.Kind == Module && target.Word == c.entry.Targets[0].Word {
		// python -m PACKAGE runs PACKAGE.__main__.
		main, mainMissing, mainDenied := c.findAsUser(search, target.Name+".__main__")
		if mainMissing != "" {
			c.problem(Problem{Kind: ModuleMissing, Reason: NoMain, Word: target.Word, Target: target.Name,
				Module: target.Name + ".__main__", Path: found.Dirs[0], Interpreter: in, SysPath: entries})
			return
		}
		if mainDenied != nil {
			c.deniedModule(target, main, in, entries, mainDenied)
			return
		}
		file, module = main.File, target.Name+".__main__"
	}
	if installed(in, found.Entry) {
		c.analysis.imported[top] = true
	}
	if installed(in, found.Entry) || !strings.HasSuffix(file, ".py") {
		return // an installed package's imports are its own business
	}
	if target.Kind == App {
		c.checkAttr(target, file, in)
	}
	c.checkImports(file, module, in, first, false, 0, "")
}

// deniedModule reports a module the image has where the user's Python
// cannot load it.
func (c *checker) deniedModule(target Target, found Found, in *Interpreter, entries []string, denied *Denied) {
	where := found.File
	if len(found.Dirs) > 0 {
		where = found.Dirs[0]
	}
	attr := ""
	if denied.Namespace {
		// The import gives an empty namespace package: what the server
		// takes from it is what fails.
		attr = c.appAttr(target)
	}
	c.problem(Problem{Kind: ModuleMissing, Reason: Unreadable, Word: target.Word, Target: target.Name, Module: target.Name,
		Attr: attr, Path: where, Interpreter: in, SysPath: entries, Denied: denied})
}

// appAttr is the object a server loads from the app module, "" for none:
// the first name of MODULE:ATTR, or gunicorn's default.
func (c *checker) appAttr(target Target) string {
	attr := target.Attr
	if attr == "" && c.entry.Tool == "gunicorn" {
		attr = "application" // gunicorn's default
	}
	attr, _, _ = strings.Cut(attr, "(") // gunicorn's app:create_app()
	attr, _, _ = strings.Cut(attr, ".")
	return attr
}

// checkAttr checks that an app module can define the object the server
// loads from it: it must at least name it (or star-import).
func (c *checker) checkAttr(target Target, file string, in *Interpreter) {
	attr := c.appAttr(target)
	if attr == "" {
		return
	}
	node, err := c.r.fs.Stat(file)
	if err != nil {
		return
	}
	facts := c.r.img.Facts(node)
	if facts == nil || facts.Text == nil {
		return // asked for by the import check, which stays unchecked until it is read
	}
	names, star, err := pysource.Names(facts.Text)
	if err != nil || star || names[attr] || names["__getattr__"] || names["globals"] || names["setattr"] {
		return
	}
	c.problem(Problem{Kind: ModuleMissing, Reason: AttrMissing, Word: target.Word, Target: target.Name, Attr: attr, Path: file,
		Interpreter: in, Layer: c.r.img.LayerOf(node), LayerDigest: c.r.img.LayerDigest(node)})
}

// elsewhere looks for a module in the working dir's subdirectories, two
// levels down, at most three places.
func (c *checker) elsewhere(module string, in *Interpreter) []string {
	if strings.Contains(module, ".") {
		return nil
	}
	var found []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		node, err := c.r.fs.Stat(dir)
		if err != nil || node.Type != rootfs.Dir || depth > 2 {
			return
		}
		names := node.Children()
		slices.Sort(names)
		for _, name := range names {
			sub := path.Join(dir, name)
			if len(found) >= 3 || !c.r.isDir(sub) || strings.HasPrefix(name, ".") || name == "__pycache__" {
				continue
			}
			search := &searchPath{r: c.r, entries: []string{sub}, version: in.Version}
			if file, pkg, namespace := search.moduleIn(sub, module); file != "" || pkg || namespace {
				if file == "" || pkg {
					file = path.Join(sub, module)
				}
				found = append(found, file)
				continue
			}
			walk(sub, depth+1)
		}
	}
	if c.cwd != "/" {
		walk(c.cwd, 1)
	}
	return found
}

func (c *checker) checkFile(target Target, in *Interpreter) {
	base := c.cwd
	if target.Base != "" {
		base = c.join(c.cwd, target.Base)
	}
	file := c.join(base, target.Name)
	if mount := c.mountOf(file); mount != "" {
		c.unchecked(FileMissing, "%s is on the volume mounted at %s, not in the image", file, mount)
		return
	}
	candidates := []string{file}
	if c.entry.Tool == "node" || c.entry.Tool == "nodejs" {
		// require.resolve: the file, FILE.js/.json/.node, a directory's
		// package.json main or index.js.
		for _, ext := range []string{".js", ".mjs", ".cjs", ".json", ".node", "/index.js", "/package.json"} {
			candidates = append(candidates, file+ext)
		}
	}
	for _, candidate := range candidates {
		if node, err := c.r.fs.Stat(candidate); err == nil && (node.Type == rootfs.Regular || c.entry.Tool == "fastapi" && node.Type == rootfs.Dir) {
			return
		}
	}
	if unsure := c.relativeUnsure(path.Join(target.Base, target.Name)); unsure != "" && !strings.HasPrefix(target.Name, "/") {
		c.unchecked(FileMissing, "%s: the working dir is known only at run time (%s)", target.Name, unsure)
		return
	}
	c.problem(Problem{Kind: FileMissing, Reason: NotFound, Word: target.Word, Target: target.Name, Path: file,
		Interpreter: in, Siblings: c.siblings(file), WorkingDir: base, Store: target.Base != ""})
}

// checkImports checks the unconditional imports of a module file. module
// is its dotted name ("" for a script run as __main__ outside any
// package); first are the entries before the interpreter's own (the
// script's dir or the working dir); depth 0 is the entry module, whose
// app-local imports are followed once.
//
// It returns why the imports after this module's own import may come from
// elsewhere: the module changes sys.path, or could not be read.
func (c *checker) checkImports(file, module string, in *Interpreter, first []string, script bool, depth int, importer string) string {
	node, err := c.r.fs.Stat(file)
	if err != nil || node.Type != rootfs.Regular {
		return ""
	}
	facts := c.r.img.Facts(node)
	if facts == nil || facts.Text == nil {
		if node.Size > image.MaxSource {
			c.unchecked(ImportMissing, "%s: its source is over %d KiB and not read", file, image.MaxSource>>10)
			return file + " was not read"
		}
		// Asked for: until it is read, the check stays unchecked, and the
		// imports after it are still looked at so their files are asked
		// for in the same read.
		c.r.needs = append(c.r.needs, node)
		c.unchecked(ImportMissing, "%s: content not read", file)
		return ""
	}
	imports, err := pysource.ParseImports(facts.Text)
	if err != nil {
		c.unchecked(ImportMissing, "%s: not read as Python source: %v", file, err)
		return file + " was not read"
	}
	changed := ""
	if imports.PathChangedAt > 0 {
		changed = fmt.Sprintf("%s changes sys.path at line %d", file, imports.PathChangedAt)
	}
	entries := sysPath(in, first)
	search := &searchPath{r: c.r, entries: entries, version: in.Version}
	isPackage := path.Base(file) == "__init__.py"
	stopped := ""
	missed := 0 // imports reported missing, or not decided
	for _, imp := range imports.Unconditional {
		if imports.PathChangedAt > 0 && imp.Line > imports.PathChangedAt {
			c.unchecked(ImportMissing, "%s: the imports after line %d are not checked: the module changes sys.path there", file, imports.PathChangedAt)
			break
		}
		if missed == maxMissed {
			stopped = fmt.Sprintf("%d before them are missing or undecided already", maxMissed)
		}
		if stopped != "" {
			c.unchecked(ImportMissing, "%s: the imports after line %d are not checked: %s", file, imp.Line-1, stopped)
			break
		}
		base := Problem{Kind: ImportMissing, Reason: NotFound, Word: -1, Path: file, Line: imp.Line, Interpreter: in,
			SysPath: entries, Importer: importer, Layer: c.r.img.LayerOf(node), LayerDigest: c.r.img.LayerDigest(node)}
		if imp.Level > 0 {
			if script && module == "" {
				base.Reason, base.Target = RelativeInScript, strings.Repeat(".", imp.Level)+imp.Module
				c.problem(base)
				continue
			}
			stopped = c.checkRelative(imp, file, module, isPackage, in, first, base, depth)
			continue
		}
		top, _, _ := strings.Cut(imp.Module, ".")
		if stdlibModules[top] {
			continue
		}
		search.otherABI = nil
		found, missing, denied := c.findAsUser(search, imp.Module)
		if denied != nil {
			missed++
			base.Reason, base.Target, base.Module, base.Denied = Unreadable, imp.Module, imp.Module, denied
			base.From, base.Names = imp.From, imp.Names
			c.problem(base)
			continue
		}
		if missing != "" {
			local := found.Entry != "" && !installed(in, found.Entry)
			if missing != top && !local {
				continue // a submodule of an installed package (six.moves): not looked for
			}
			missed++
			if unsure := c.missingUnsure(in, search, missing); unsure != "" {
				c.unchecked(ImportMissing, "%s line %d: module %s is not in the image's import path, but %s", file, imp.Line, missing, unsure)
				continue
			}
			base.Target, base.Module, base.OtherABI, base.OtherSites = imp.Module, missing, search.otherABI, c.otherSite(missing, in)
			c.problem(base)
			continue
		}
		if installed(in, found.Entry) {
			c.analysis.imported[top] = true
		} else if depth == 0 {
			stopped = c.follow(found, imp.Module, imp, in, first, file)
		}
	}
	return changed
}

// follow reads an app module the entry imports, one level in.
func (c *checker) follow(found Found, module string, imp pysource.Import, in *Interpreter, first []string, importer string) string {
	files := []string{found.File}
	if len(found.Dirs) > 0 && imp.From {
		for _, name := range imp.Names {
			search := &searchPath{r: c.r, entries: found.Dirs, version: in.Version}
			if sub, missing := search.find(name); missing == "" {
				files = append(files, sub.File)
			}
		}
	}
	stopped := ""
	for i, file := range files {
		if !strings.HasSuffix(file, ".py") || c.followed >= maxFollowed {
			continue
		}
		c.followed++
		name := module
		if i > 0 {
			name += "." + strings.TrimSuffix(path.Base(file), ".py")
		}
		if reason := c.checkImports(file, name, in, first, false, 1, importer); reason != "" && stopped == "" {
			stopped = reason
		}
	}
	return stopped
}

// checkRelative checks `from .mod import x` against the importing
// module's package directory.
func (c *checker) checkRelative(imp pysource.Import, file, module string, isPackage bool, in *Interpreter, first []string, base Problem, depth int) string {
	// The import is relative to the module's package (a package's
	// __init__ is its own), each dot after the first one package up; a
	// module in no package, or a package of fewer parts than dots, fails
	// (importlib._bootstrap's _sanity_check and _resolve_name: "attempted
	// relative import with no known parent package", "… beyond top-level
	// package").
	pkg := module
	if !isPackage {
		pkg = ""
		if dot := strings.LastIndexByte(module, '.'); dot >= 0 {
			pkg = module[:dot]
		}
	}
	parts := strings.Split(pkg, ".")
	if pkg == "" || len(parts) < imp.Level {
		base.Reason, base.Target, base.Module = RelativeBeyondTop, strings.Repeat(".", imp.Level)+imp.Module, pkg
		c.problem(base)
		return ""
	}
	pkg = strings.Join(parts[:len(parts)-imp.Level+1], ".")
	dir := path.Dir(file)
	for level := 1; level < imp.Level; level++ {
		dir = path.Dir(dir)
	}
	if imp.Module == "" {
		return "" // from . import name: names may be attributes
	}
	search := &searchPath{r: c.r, entries: []string{dir}, version: in.Version}
	found, missing := search.find(imp.Module)
	if missing != "" {
		base.Target, base.Module = strings.Repeat(".", imp.Level)+imp.Module, pkg+"."+missing
		c.problem(base)
		return ""
	}
	if depth == 0 {
		return c.follow(found, pkg+"."+imp.Module, imp, in, first, file)
	}
	return ""
}
