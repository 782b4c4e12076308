package launch

import (
	"debug/elf"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/elfinfo"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// Kind classifies what would stop the container from starting.
type Kind int

const (
	// NotFound: argv[0] does not exist (exit 127, or "executable file not
	// found in $PATH").
	NotFound Kind = iota + 1
	// NotExecutable: argv[0] exists without an execute bit for the user
	// ("permission denied", exit 126).
	NotExecutable
	// InterpreterMissing: a #! interpreter, an ELF loader, or a program
	// named through /usr/bin/env is missing; or the file is neither script
	// nor ELF ("exec format error").
	InterpreterMissing
	// VersionMissing: a binary needs a symbol version (GLIBC_2.34) its
	// library does not define.
	VersionMissing
	// LibraryMissing: a DT_NEEDED library is nowhere the loader looks.
	LibraryMissing
	// ArchMismatch: an ELF on the start path is built for another CPU.
	ArchMismatch
)

// Problem is one reason the start would fail, with the in-image path and
// the layer that wrote it.
type Problem struct {
	Kind Kind
	// Path is the in-image path the problem is about.
	Path string
	// Layer describes the layer that wrote Path ("layer 2/3 sha256:…"), or
	// is empty when the path does not exist.
	Layer string
	// LayerDigest is that layer's diff ID.
	LayerDigest string
	// Detail says what is wrong, in words that fit after the path.
	Detail string
	// Via are the wrapper scripts that led to Path, outermost first; empty
	// when the problem is on argv[0]'s own start.
	Via []Hop
}

// Hop is one wrapper script followed to the command it runs.
type Hop struct {
	Script string // in-image path of the script
	Line   int    // where it runs Program
	// Program is the command's argv[0] as the script writes it after
	// expansion (a bare name, looked up in PATH, or a path).
	Program string
	Exec    bool
}

// Analysis is the start path of one container and what would stop it.
type Analysis struct {
	// Steps are the files exec'd in order: argv[0], its interpreter …
	Steps    []string
	Problems []Problem
	// Unchecked says what could not be checked (facts missing or broken),
	// so a rule reports skipped instead of passed.
	Unchecked []string
	// Needs are files whose ELF facts were wanted but not captured.
	Needs []*rootfs.Node
	User  User
	// Runs are the programs the container ends up running, after wrapper
	// scripts and `sh -c` strings were followed: one per candidate (a
	// script's branches may run different programs).
	Runs []Run
}

// Run is one program the container ends up running.
type Run struct {
	Argv []string
	// Path is the program's resolved in-image path ("" when not found).
	Path string
	Via  []Hop
	// Fails says the program cannot start (see Problems): it is what the
	// container is meant to run, for recognising the server.
	Fails bool
}

// maxInterpreterDepth is the kernel's limit on nested #! interpreters
// (BINPRM recursion in fs/exec.c).
const maxInterpreterDepth = 4

// Analyze replays the start of a container against the image.
func Analyze(img *image.Image, spec Spec, targetArch string) *Analysis {
	a := &Analysis{User: ResolveUser(spec, img)}
	fs := img.FS()
	if fs == nil {
		a.Unchecked = append(a.Unchecked, "the image's layers were not read")
		return a
	}
	if len(spec.Argv) == 0 {
		a.Problems = append(a.Problems, Problem{Kind: NotFound, Detail: "neither the manifest nor the image sets a command " +
			"(no command/args, ENTRYPOINT or CMD): the runtime fails with \"no command specified\""})
		return a
	}
	c := &checker{img: img, fs: fs, spec: spec, analysis: a, arch: targetArch}
	node, resolved, ok := c.findArgv0(spec.Argv[0])
	if !ok {
		a.Runs = append(a.Runs, Run{Argv: spec.Argv, Fails: true})
		return a
	}
	c.run(node, resolved, spec.Argv, 0)
	return a
}

type checker struct {
	img      *image.Image
	fs       *rootfs.FS
	spec     Spec
	analysis *Analysis
	arch     string
	// via is the chain of wrapper scripts being followed.
	via []Hop
}

func (c *checker) problem(kind Kind, node *rootfs.Node, where, format string, args ...any) {
	p := Problem{Kind: kind, Path: where, Detail: fmt.Sprintf(format, args...), Via: append([]Hop(nil), c.via...)}
	if node != nil {
		p.Layer, p.LayerDigest = c.img.LayerOf(node), c.img.LayerDigest(node)
	}
	c.analysis.Problems = append(c.analysis.Problems, p)
}

// absolute joins a relative path to the working directory.
func (c *checker) absolute(name string) string {
	if strings.HasPrefix(name, "/") {
		return path.Clean(name)
	}
	return path.Join("/", c.spec.WorkingDir, name)
}

// findArgv0 locates argv[0] as runc does (Go's exec.LookPath inside the
// container): a name with a slash is used as is; a bare name is looked up
// in PATH, skipping candidates that are not executable for the user.
func (c *checker) findArgv0(name string) (*rootfs.Node, string, bool) {
	if strings.Contains(name, "/") {
		return c.checkExecutable(c.absolute(name), name, NotFound, NotExecutable)
	}
	pathValue, _ := Lookup(c.spec.Env, "PATH")
	var denied []string
	var deniedNode *rootfs.Node
	for _, dir := range strings.Split(pathValue, ":") {
		if dir == "" || !strings.HasPrefix(dir, "/") {
			continue // relative PATH entries are refused by exec.LookPath (ErrDot)
		}
		candidate := path.Join(dir, name)
		node, resolved, err := c.fs.Resolve(candidate, true)
		if err != nil || node.Type == rootfs.Dir {
			continue
		}
		if node.Type == rootfs.Regular && c.analysis.User.CanExecute(node.Mode, node.UID, node.GID) && c.searchable(resolved) == "" {
			c.analysis.Steps = append(c.analysis.Steps, resolved)
			return node, resolved, true
		}
		denied = append(denied, fmt.Sprintf("%s (%s, owner %d:%d)", describeLink(candidate, resolved), node.FileMode(), node.UID, node.GID))
		if deniedNode == nil {
			deniedNode = node
		}
	}
	if len(denied) > 0 {
		c.problem(NotExecutable, deniedNode, denied[0],
			"is in $PATH but not executable for %s, so the runtime skips it and fails with \"executable file not found in $PATH\" "+
				"(candidates: %s)", c.analysis.User, strings.Join(denied, ", "))
		return nil, "", false
	}
	c.problem(NotFound, nil, name, "is not in any $PATH directory of the image (PATH=%s): the runtime fails with "+
		"\"executable file not found in $PATH\"", pathValue)
	return nil, "", false
}

func describeLink(asked, resolved string) string {
	if asked == resolved {
		return asked
	}
	return asked + " -> " + resolved
}

// checkExecutable resolves an absolute path and checks it can be exec'd.
func (c *checker) checkExecutable(absolute, written string, missing, denied Kind) (*rootfs.Node, string, bool) {
	node, resolved, err := c.fs.Resolve(absolute, true)
	if err != nil {
		var pathErr *rootfs.PathError
		detail := "does not exist in the image"
		if errors.As(err, &pathErr) {
			switch {
			case errors.Is(err, rootfs.ErrLoop):
				detail = "is a symlink loop (" + pathErr.At + "): \"too many levels of symbolic links\""
			case errors.Is(err, rootfs.ErrNotDir):
				detail = "does not exist: " + pathErr.At + " is not a directory"
			case pathErr.At != absolute:
				detail = "does not exist in the image (" + pathErr.At + " is missing)"
			}
		}
		c.problem(missing, nil, absolute, "%s", detail)
		return nil, "", false
	}
	where := describeLink(absolute, resolved)
	switch {
	case node.Type == rootfs.Dir:
		c.problem(missing, node, where, "is a directory, not a program")
		return nil, "", false
	case node.Type != rootfs.Regular:
		c.problem(denied, node, where, "is a %s, not a program", node.Type)
		return nil, "", false
	}
	if blocked := c.searchable(resolved); blocked != "" {
		c.problem(denied, node, where, "cannot be reached by %s: directory %s", c.analysis.User, blocked)
		return nil, "", false
	}
	if !c.analysis.User.CanExecute(node.Mode, node.UID, node.GID) {
		c.problem(denied, node, where, "has mode %s (owner %d:%d): no execute bit for %s, so exec fails with \"permission denied\"",
			node.FileMode(), node.UID, node.GID, c.analysis.User)
		return nil, "", false
	}
	c.analysis.Steps = append(c.analysis.Steps, resolved)
	return node, resolved, true
}

// searchable checks the user may enter every directory above a path; it
// returns the first directory that stops them, described.
func (c *checker) searchable(resolved string) string {
	dir := path.Dir(resolved)
	for dir != "/" && dir != "." {
		node, err := c.fs.Lstat(dir)
		if err == nil && node.Type == rootfs.Dir && !c.analysis.User.CanSearch(node.Mode, node.UID, node.GID) {
			return fmt.Sprintf("%s has mode %s (owner %d:%d)", dir, node.FileMode(), node.UID, node.GID)
		}
		dir = path.Dir(dir)
	}
	return ""
}

// examine follows what the kernel does with an exec'd file: a script runs
// its #! interpreter, a dynamic ELF its PT_INTERP loader and libraries.
func (c *checker) examine(node *rootfs.Node, resolved, written string, depth int) {
	facts := c.img.Facts(node)
	if facts == nil {
		c.analysis.Needs = append(c.analysis.Needs, node)
		c.analysis.Unchecked = append(c.analysis.Unchecked, resolved+": content not read")
		return
	}
	switch {
	case facts.IsScript():
		c.examineScript(node, resolved, facts, depth)
	case facts.IsELF():
		c.examineELF(node, resolved, facts)
	case len(facts.Head) == 0:
		c.problem(InterpreterMissing, node, resolved, "is an empty file: exec fails with \"exec format error\"")
	default:
		c.problem(InterpreterMissing, node, resolved, "is neither an ELF binary nor a script with a #! line: exec fails with "+
			"\"exec format error\"; add a shebang line or point the command at an interpreter")
	}
}

// Shebang is a parsed #! line.
type Shebang struct {
	Interpreter string
	Argument    string
	CRLF        bool
}

// ParseShebang reads a #! line the way Linux does (fs/binfmt_script.c):
// the interpreter runs to the first blank, the rest is one argument.
func ParseShebang(head []byte) (Shebang, bool) {
	if len(head) < 2 || head[0] != '#' || head[1] != '!' {
		return Shebang{}, false
	}
	line := string(head[2:])
	if end := strings.IndexByte(line, '\n'); end >= 0 {
		line = line[:end]
	}
	var s Shebang
	if strings.HasSuffix(line, "\r") {
		s.CRLF = true
		line = strings.TrimSuffix(line, "\r")
	}
	line = strings.Trim(line, " \t")
	interpreter, argument, _ := strings.Cut(strings.ReplaceAll(line, "\t", " "), " ")
	s.Interpreter, s.Argument = interpreter, strings.TrimSpace(argument)
	return s, true
}

func (c *checker) examineScript(node *rootfs.Node, resolved string, facts *image.FileFacts, depth int) {
	if depth >= maxInterpreterDepth {
		c.problem(InterpreterMissing, node, resolved, "starts a chain of more than %d #! interpreters: exec fails with ELOOP", maxInterpreterDepth)
		return
	}
	shebang, _ := ParseShebang(facts.Head)
	if shebang.Interpreter == "" {
		c.problem(InterpreterMissing, node, resolved, "has an empty #! line: exec fails with \"exec format error\"")
		return
	}
	if shebang.CRLF {
		target := shebang.Interpreter
		if shebang.Argument != "" {
			target = shebang.Argument
		}
		c.problem(InterpreterMissing, node, resolved, "has Windows line endings: its #! line names %q (with a trailing carriage "+
			"return), which does not exist, so exec fails with \"no such file or directory\"; convert it to LF (dos2unix, "+
			"or .gitattributes `*.sh text eol=lf`)", target+"\\r")
		return
	}
	interpNode, interpResolved, ok := c.checkExecutable(c.absolute(shebang.Interpreter), shebang.Interpreter, InterpreterMissing, InterpreterMissing)
	if !ok {
		c.relabel(resolved, "its #! interpreter ")
		return
	}
	c.examine(interpNode, interpResolved, shebang.Interpreter, depth+1)
	if path.Base(shebang.Interpreter) == "env" && shebang.Argument != "" {
		program := envProgram(shebang.Argument)
		if program == "" {
			return
		}
		target, targetResolved, ok := c.findArgv0(program)
		if !ok {
			c.relabel(resolved, "/usr/bin/env in its #! line looks up ")
			// env reports the failure itself, with its own words.
			last := &c.analysis.Problems[len(c.analysis.Problems)-1]
			last.Kind = InterpreterMissing
			return
		}
		c.examine(target, targetResolved, program, depth+1)
	}
}

// relabel prefixes the last problem's detail with the script that led to it.
func (c *checker) relabel(script, relation string) {
	last := &c.analysis.Problems[len(c.analysis.Problems)-1]
	last.Detail = fmt.Sprintf("(%s%s) %s", relation, "of "+script, last.Detail)
}

// envProgram is the program `env ARGUMENT` execs: the first word that is
// not an option or a NAME=value assignment.
func envProgram(argument string) string {
	for _, word := range strings.Fields(argument) {
		if strings.HasPrefix(word, "-") || strings.Contains(word, "=") {
			continue
		}
		return word
	}
	return ""
}

// machines maps OCI architectures to ELF machines.
var machines = map[string]elf.Machine{
	"amd64": elf.EM_X86_64, "386": elf.EM_386, "arm64": elf.EM_AARCH64, "arm": elf.EM_ARM,
	"ppc64le": elf.EM_PPC64, "s390x": elf.EM_S390, "riscv64": elf.EM_RISCV, "mips64le": elf.EM_MIPS, "loong64": elf.EM_LOONGARCH,
}

// ArchOfMachine names an ELF machine the way OCI platforms do.
func ArchOfMachine(machine elf.Machine) string {
	for arch, m := range machines {
		if m == machine && arch != "mips64le" {
			return arch
		}
	}
	return machine.String()
}

func (c *checker) examineELF(node *rootfs.Node, resolved string, facts *image.FileFacts) {
	if facts.ELF == nil {
		if facts.ELFError != "" {
			c.analysis.Unchecked = append(c.analysis.Unchecked, resolved+": "+facts.ELFError)
			return
		}
		c.analysis.Needs = append(c.analysis.Needs, node)
		c.analysis.Unchecked = append(c.analysis.Unchecked, resolved+": ELF tables not read")
		return
	}
	info := facts.ELF
	if want, ok := machines[c.arch]; ok && info.Machine != want {
		c.problem(ArchMismatch, node, resolved, "is built for %s (%s) but the nodes are %s: exec fails with \"exec format error\"",
			ArchOfMachine(info.Machine), info.Machine, c.arch)
		return
	}
	if info.Interp != "" {
		loader, err := c.fs.Stat(info.Interp)
		if err != nil || loader.Type != rootfs.Regular {
			c.problem(InterpreterMissing, nil, info.Interp, "is the loader %s was linked for (PT_INTERP), and it is not in the image: exec "+
				"fails with \"no such file or directory\" although the binary exists%s", resolved, c.loaderHint(info.Interp))
			return
		}
	}
	if !info.Dynamic {
		return
	}
	libraries := map[string]*rootfs.Node{}
	for _, soname := range info.Needed {
		lib, where := c.findLibrary(soname, info, resolved)
		if lib == nil {
			if runtimeInjected(soname) {
				continue
			}
			c.problem(LibraryMissing, nil, resolved, "needs %s, which is in none of the directories the loader searches (%s): the "+
				"process fails with \"error while loading shared libraries: %s: cannot open shared object file\"",
				soname, strings.Join(where, ":"), soname)
			continue
		}
		libraries[soname] = lib
	}
	for _, need := range info.VersionNeeds {
		lib := libraries[need.File]
		if lib == nil {
			continue // reported as missing above, or injected at run time
		}
		libFacts := c.img.Facts(lib)
		if libFacts == nil || (libFacts.ELF == nil && libFacts.ELFError == "") {
			c.analysis.Needs = append(c.analysis.Needs, lib)
			c.analysis.Unchecked = append(c.analysis.Unchecked, lib.Path()+": ELF tables not read")
			continue
		}
		if libFacts.ELF == nil {
			c.analysis.Unchecked = append(c.analysis.Unchecked, lib.Path()+": "+libFacts.ELFError)
			continue
		}
		defined := map[string]bool{}
		for _, version := range libFacts.ELF.VersionDefs {
			defined[version] = true
		}
		var missing []string
		for _, version := range need.Versions {
			if !defined[version] {
				missing = append(missing, version)
			}
		}
		if len(missing) == 0 {
			continue
		}
		sortVersions(missing)
		newest := newestVersion(libFacts.ELF.VersionDefs, missing[0])
		c.problem(VersionMissing, node, resolved, "needs %s from %s, but the image's %s (%s) defines versions only up to %s: the "+
			"process fails with \"%s: version `%s' not found (required by %s)\"",
			strings.Join(missing, ", "), need.File, lib.Path(), c.img.LayerOf(lib), newest, lib.Path(), missing[len(missing)-1], resolved)
	}
}

// loaderHint explains a missing loader when the image has another libc's.
func (c *checker) loaderHint(interp string) string {
	var present []string
	for _, dir := range []string{"/lib", "/lib64", "/usr/lib"} {
		node, err := c.fs.Stat(dir)
		if err != nil || node.Type != rootfs.Dir {
			continue
		}
		for _, name := range node.Children() {
			if strings.HasPrefix(name, "ld-musl-") || strings.HasPrefix(name, "ld-linux") {
				present = append(present, path.Join(dir, name))
			}
		}
	}
	if len(present) == 0 {
		return ""
	}
	hint := fmt.Sprintf("; the image has %s", strings.Join(present, ", "))
	if strings.Contains(interp, "ld-linux") && strings.Contains(present[0], "musl") {
		hint += ": a glibc binary on a musl (Alpine) image — build it for musl, link it statically, or use a glibc base image"
	} else if strings.Contains(interp, "musl") && strings.Contains(present[0], "ld-linux") {
		hint += ": a musl binary on a glibc image — build it for glibc or link it statically"
	}
	return hint
}

// runtimeInjected are libraries the NVIDIA container toolkit mounts into
// GPU containers from the host driver; an image must not ship them
// (libcuda.so is part of the driver, not the toolkit).
func runtimeInjected(soname string) bool {
	for _, prefix := range []string{"libcuda.so", "libnvidia-", "libnvcuvid.so", "libnvoptix.so", "libGLX_nvidia.so",
		"libEGL_nvidia.so", "libGLESv2_nvidia.so", "libvdpau_nvidia.so", "libdxcore.so"} {
		if strings.HasPrefix(soname, prefix) {
			return true
		}
	}
	return false
}

// findLibrary searches as ld.so does (ld.so(8)): DT_RPATH (when there is
// no DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, the ld.so.conf directories,
// then the default directories. It returns the searched list on failure.
func (c *checker) findLibrary(soname string, info *elfinfo.Info, binary string) (*rootfs.Node, []string) {
	if strings.Contains(soname, "/") {
		node, err := c.fs.Stat(c.absolute(soname))
		if err == nil && node.Type == rootfs.Regular {
			return node, nil
		}
		return nil, []string{soname}
	}
	origin := path.Dir(binary)
	expand := func(dirs []string) []string {
		var out []string
		for _, dir := range dirs {
			dir = strings.ReplaceAll(strings.ReplaceAll(dir, "${ORIGIN}", origin), "$ORIGIN", origin)
			if strings.HasPrefix(dir, "/") {
				out = append(out, dir)
			}
		}
		return out
	}
	var dirs []string
	if len(info.RunPath) == 0 {
		dirs = append(dirs, expand(info.RPath)...)
	}
	if value, ok := Lookup(c.spec.Env, "LD_LIBRARY_PATH"); ok {
		dirs = append(dirs, expand(strings.Split(value, ":"))...)
	}
	dirs = append(dirs, expand(info.RunPath)...)
	dirs = append(dirs, c.configuredLibraryDirs()...)
	dirs = append(dirs, defaultLibraryDirs(info)...)
	seen := map[string]bool{}
	var searched []string
	for _, dir := range dirs {
		if seen[dir] {
			continue
		}
		seen[dir] = true
		searched = append(searched, dir)
		node, err := c.fs.Stat(path.Join(dir, soname))
		if err == nil && node.Type == rootfs.Regular {
			return node, nil
		}
	}
	return nil, searched
}

// configuredLibraryDirs reads /etc/ld.so.conf and the files it includes.
func (c *checker) configuredLibraryDirs() []string {
	var dirs []string
	var read func(file string, depth int)
	read = func(file string, depth int) {
		data, ok := c.img.ReadText(file)
		if !ok || depth > 4 {
			return
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if comment := strings.IndexByte(line, '#'); comment >= 0 {
				line = strings.TrimSpace(line[:comment])
			}
			switch {
			case line == "":
			case strings.HasPrefix(line, "include "):
				pattern := strings.TrimSpace(strings.TrimPrefix(line, "include "))
				if !strings.HasPrefix(pattern, "/") {
					pattern = path.Join(path.Dir(file), pattern)
				}
				dirNode, err := c.fs.Stat(path.Dir(pattern))
				if err != nil || dirNode.Type != rootfs.Dir {
					continue
				}
				for _, name := range dirNode.Children() {
					if matched, _ := path.Match(path.Base(pattern), name); matched {
						read(path.Join(path.Dir(pattern), name), depth+1)
					}
				}
			case strings.HasPrefix(line, "/"):
				dirs = append(dirs, line)
			}
		}
	}
	read("/etc/ld.so.conf", 0)
	return dirs
}

// defaultLibraryDirs are the trusted directories of glibc and musl, plus
// Debian's multiarch directories (which ld.so.cache usually lists).
func defaultLibraryDirs(info *elfinfo.Info) []string {
	triplet := map[elf.Machine]string{elf.EM_X86_64: "x86_64-linux-gnu", elf.EM_AARCH64: "aarch64-linux-gnu",
		elf.EM_PPC64: "powerpc64le-linux-gnu", elf.EM_S390: "s390x-linux-gnu", elf.EM_ARM: "arm-linux-gnueabihf",
		elf.EM_386: "i386-linux-gnu", elf.EM_RISCV: "riscv64-linux-gnu"}[info.Machine]
	dirs := []string{}
	if info.Class == elf.ELFCLASS64 {
		dirs = append(dirs, "/lib64", "/usr/lib64")
	}
	if triplet != "" {
		dirs = append(dirs, "/lib/"+triplet, "/usr/lib/"+triplet)
	}
	return append(dirs, "/lib", "/usr/lib", "/usr/local/lib")
}

// sortVersions orders GLIBC_2.9 before GLIBC_2.34.
func sortVersions(versions []string) {
	sort.Slice(versions, func(i, j int) bool { return versionLess(versions[i], versions[j]) })
}

func versionLess(a, b string) bool {
	prefixA, numbersA := splitVersion(a)
	prefixB, numbersB := splitVersion(b)
	if prefixA != prefixB {
		return prefixA < prefixB
	}
	for i := 0; i < len(numbersA) && i < len(numbersB); i++ {
		if numbersA[i] != numbersB[i] {
			return numbersA[i] < numbersB[i]
		}
	}
	return len(numbersA) < len(numbersB)
}

func splitVersion(version string) (string, []int) {
	prefix, rest, found := strings.Cut(version, "_")
	if !found {
		return version, nil
	}
	var numbers []int
	for _, part := range strings.Split(rest, ".") {
		n := 0
		for _, ch := range part {
			if ch < '0' || ch > '9' {
				break
			}
			n = n*10 + int(ch-'0')
		}
		numbers = append(numbers, n)
	}
	return prefix, numbers
}

// newestVersion is the highest definition with the same prefix as like
// (GLIBC_…), for messages.
func newestVersion(defs []string, like string) string {
	prefix, _ := splitVersion(like)
	newest := ""
	for _, def := range defs {
		if p, _ := splitVersion(def); p == prefix && (newest == "" || versionLess(newest, def)) {
			newest = def
		}
	}
	if newest == "" {
		return "none of " + prefix + "_*"
	}
	return newest
}
