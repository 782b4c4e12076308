package launch

import (
	"debug/elf"
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/elfinfo"
	"github.com/modellint/modellint/lint/image/launch/shell"
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
	// SwitchFails: a wrapper that changes the user (gosu, su-exec,
	// setpriv, runuser, chroot, s6-setuidgid) exits before it runs the
	// program.
	SwitchFails
)

// Problem is one reason the start would fail: what stops it (Reason) and
// the facts a message about it needs. Which fields are set depends on the
// Reason; each Reason's comment names them.
type Problem struct {
	Kind   Kind
	Reason Reason
	// Path is the in-image path the problem is about, written "asked ->
	// resolved" when symlinks lead elsewhere; for NotInPath the bare name
	// that was looked up.
	Path string
	// Layer describes the layer that wrote Path ("layer 2/3 sha256:…"), or
	// is empty when the path does not exist.
	Layer string
	// LayerDigest is that layer's diff ID.
	LayerDigest string
	// Via are the wrapper scripts that led to Path, outermost first; empty
	// when the problem is on argv[0]'s own start.
	Via []Hop
	// ByShell says a shell running a wrapper's command reports the failure
	// ("Permission denied", exit 126; "command not found", exit 127)
	// rather than the runtime's exec.
	ByShell bool
	// Name is the command or script file as the wrapper writes it, which
	// the shell's message repeats.
	Name string
	// ExecBy is the execline or s6 program of a run script that execs
	// Path (fdmove, exec, s6-setuidgid …) and reports the failure, "" when
	// the runtime or a shell does.
	ExecBy string
	// Relation says Path was needed by the script Of: as its #!
	// interpreter, or as the program /usr/bin/env in its #! line looks up.
	// Zero when Path is on the start path itself.
	Relation Relation
	// Of is the file that needed Path: the script of Relation, or for
	// LoaderMissing the binary linked for the loader.
	Of string
	// At is the path component where resolving Path stopped.
	At string
	// Type is what Path is, for NotRegularFile.
	Type rootfs.Type
	// Mode, UID and GID are Path's, or At's for ParentNotSearchable.
	Mode     fs.FileMode
	UID, GID uint32
	// Blocked are, for ParentNotSearchable, every directory above Path
	// that User may not enter, topmost (At) first.
	Blocked []Dir
	// User is who the container runs as.
	User User
	// PathValue is the PATH a bare name was looked up in.
	PathValue string
	// Candidates are the files a PATH lookup found but User may not run.
	Candidates []Candidate
	// Interpreter is the program a CRLF #! line names, carriage return
	// included.
	Interpreter string
	// Loaders are the ELF loaders the image has, for LoaderMissing (a glibc
	// binary on a musl image shows as ld-musl-* present).
	Loaders []string
	// Library is the soname a binary needs.
	Library string
	// Searched are the directories the loader searched for Library.
	Searched []string
	// Missing are the symbol versions Library does not define, oldest
	// first; Newest is the highest it defines with the same prefix
	// (GLIBC_…), "" when it defines none.
	Missing []string
	Newest  string
	// LibraryPath and LibraryLayer are where the image's Library is and
	// the layer that wrote it.
	LibraryPath, LibraryLayer string
	// Machine is what an ELF is built for; Arch is the nodes'.
	Machine elf.Machine
	Arch    string
	// Switch says how a wrapper that changes the user fails, in its
	// words; SwitchDenied that it fails because User, not root, may not
	// switch.
	Switch       string
	SwitchDenied bool
	// SwitchFile is the image's file the wrapper did not find Name's
	// user or group in (/etc/passwd, /etc/group), "" when it failed for
	// another reason.
	SwitchFile string
}

// Reason says what stops the start, finer than Kind.
type Reason int

const (
	// NoCommand: neither the manifest nor the image sets a command.
	NoCommand Reason = iota + 1
	// Missing: Path does not exist.
	Missing
	// MissingParent: At, a directory above Path, does not exist.
	MissingParent
	// ParentNotDirectory: At, a component above Path, is not a directory.
	ParentNotDirectory
	// SymlinkLoop: resolving Path loops at At.
	SymlinkLoop
	// IsDirectory: Path is a directory.
	IsDirectory
	// NotRegularFile: Path is a Type (a device, a fifo) exec refuses.
	NotRegularFile
	// ParentNotSearchable: At, the topmost directory above Path that User
	// may not enter, has Mode, UID and GID; Blocked are it and the others
	// below it (the shell reports it when ByShell, for Name).
	ParentNotSearchable
	// NoExecuteBit: Path has Mode, UID and GID without an execute bit for
	// User (the shell reports it when ByShell, for Name).
	NoExecuteBit
	// NotInPath: the bare name Path is in no directory of PathValue.
	NotInPath
	// InPathNotExecutable: the PATH lookup found only Candidates that User
	// may not execute; Path is the first.
	InPathNotExecutable
	// ShellScriptMissing: Path, the script file a shell is given (Name as
	// written), does not exist.
	ShellScriptMissing
	// EmptyFile: Path is empty.
	EmptyFile
	// UnknownFormat: Path is neither an ELF binary nor a #! script.
	UnknownFormat
	// EmptyShebang: Path's #! line names no interpreter.
	EmptyShebang
	// CRLFShebang: Path has Windows line endings, so its #! line names
	// Interpreter with a trailing carriage return.
	CRLFShebang
	// TooManyInterpreters: Path starts a chain of more than
	// MaxInterpreterDepth #! interpreters.
	TooManyInterpreters
	// LoaderMissing: Path is the PT_INTERP loader Of was linked for, and
	// it is not in the image; Loaders are the ones that are.
	LoaderMissing
	// LibraryNotFound: Path needs Library, which is in none of Searched.
	LibraryNotFound
	// VersionNotDefined: Path needs the Missing versions of Library, which
	// the image's LibraryPath does not define (up to Newest).
	VersionNotDefined
	// MachineMismatch: Path is built for Machine, the nodes are Arch.
	MachineMismatch
	// UserSwitchFails: Path, a wrapper given the user spec Name, cannot
	// switch to it, as Switch says: the user or a group is not in the
	// image, or User, not root, may not switch.
	UserSwitchFails
)

// Relation says how a script needs a file that fails.
type Relation int

const (
	// ShebangInterpreter: the file is the #! interpreter of the script.
	ShebangInterpreter Relation = iota + 1
	// EnvLookup: the file is what /usr/bin/env in the #! line looks up.
	EnvLookup
)

// Candidate is a file a PATH lookup found and may not run.
type Candidate struct {
	Path     string // "asked -> resolved" when symlinks lead elsewhere
	Mode     fs.FileMode
	UID, GID uint32
}

// NotTaken is a problem of a command a wrapper script may run, left
// unreported because another command of the script starts: branches are
// not evaluated, so the script may never take this one.
type NotTaken struct {
	Script  string
	Problem Problem
	// AfterUnchecked is how many Unchecked entries came before it, so both
	// can be read in the order the start was replayed.
	AfterUnchecked int
}

// Hop is one wrapper script followed to the command it runs.
type Hop struct {
	Script string // in-image path of the script
	Line   int    // where it runs Program
	// Program is the command's argv[0] as the script writes it after
	// expansion (a bare name, looked up in PATH, or a path).
	Program string
	Exec    bool
	// Dir is where the script's cd moved before it ran Program (relative
	// to the directory the script started in unless absolute), "" when
	// it stayed; DirUnknown says why that is known only at run time.
	Dir, DirUnknown string
	// Env, EnvUnknown and Tainted are what the script exports to
	// Program, and what it did that was not followed (shell.Command's).
	Env, EnvUnknown, Tainted []string
	// Background says the script starts Program with &.
	Background bool
	// Then is the command the script goes on to end on when Program is
	// not it (Program was started before, in the background or not), and
	// ThenLine where; ThenExec says it is exec'd.
	Then     []string
	ThenLine int
	ThenExec bool
	// After is the builtin the script goes on to once Program returns,
	// at AfterLine (shell.Command's): the script does not end on it.
	After     []string
	AfterLine int
	// ArgvEnv names, for each word of the command the script runs, the
	// environment variable the word is the whole value of, as the script
	// started with it (shell.Command's); nil when none is.
	ArgvEnv []string
	// ExecBy is, for an execline script, the program that execs Program
	// (its last chain-loader, or execlineb): it looks Program up as
	// execvp does, not as a shell.
	ExecBy string
	// Switches are the changes of user the wrappers before Program make
	// (exec gosu app server, s6-setuidgid app): Program, and all it
	// runs, runs as the user they switch to.
	Switches []shell.Switch
	// Init is the init the script runs Program under (exec tini --
	// server), "" when none: shell.Command's.
	Init string
	// TermTrap is, when the script waits for Program started with &, the
	// line of its trap on TERM then, 0 when none: shell.Command's.
	TermTrap int
	// Wrapper says the hop is no script but a wrapper exec'd with
	// Program in its own argv (command: [gosu, app, serve]): Script is
	// the wrapper's in-image path, Line 0, and ExecBy the wrapper that
	// execs Program.
	Wrapper bool
}

// Analysis is the start path of one container and what would stop it.
type Analysis struct {
	// Steps are the files exec'd in order: argv[0], its interpreter …
	Steps    []string
	Problems []Problem
	// Unchecked says what could not be checked (facts missing or broken),
	// so a rule reports skipped instead of passed.
	Unchecked []string
	// NotTaken are problems of branches that may not run; they too leave
	// the start unchecked rather than failing.
	NotTaken []NotTaken
	// Needs are files whose ELF facts were wanted but not captured.
	Needs []*rootfs.Node
	// User is who the container starts as; a run's own User says who its
	// program runs as.
	User User
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
	// Side says a wrapper script starts the program before the one it
	// ends on (a server started with & before `tail -f /dev/null`): it
	// runs beside the runs whose With name it, not instead of them.
	Side bool
	// With are the indexes in Runs of the side runs started before this
	// one on its way through the wrapper scripts.
	With []int
	// User is who the program runs as: the container's user, or the one
	// a wrapper on the way switched to (User.Via names it). HomeSet says
	// such a wrapper set HOME, to Home ("" when it is not known).
	User    User
	Home    string
	HomeSet bool
}

// ArgvEnv names, for each word of Argv, the environment variable the
// wrapper script that ran it took the word whole from (its last hop's
// ArgvEnv); nil when none did, or when what runs is not the command the
// script wrote.
func (r Run) ArgvEnv() []string {
	if len(r.Via) == 0 || len(r.Argv) == 0 {
		return nil
	}
	hop := r.Via[len(r.Via)-1]
	if len(hop.ArgvEnv) != len(r.Argv) || hop.Program != r.Argv[0] {
		return nil
	}
	return hop.ArgvEnv
}

// MaxInterpreterDepth is the kernel's limit on nested #! interpreters
// (BINPRM recursion in fs/exec.c).
const MaxInterpreterDepth = 4

// Analyze replays the start of a container against the image.
func Analyze(img *image.Image, spec Spec, targetArch string) *Analysis {
	a := &Analysis{User: ResolveUser(spec, img)}
	fs := img.FS()
	if fs == nil {
		a.Unchecked = append(a.Unchecked, "the image's layers were not read")
		return a
	}
	if len(spec.Argv) == 0 {
		a.Problems = append(a.Problems, Problem{Kind: NotFound, Reason: NoCommand})
		return a
	}
	c := &checker{img: img, fs: fs, spec: spec, analysis: a, arch: targetArch, user: a.User, accounts: spec.AccountsMounted}
	node, resolved, ok := c.findArgv0(spec.Argv[0])
	if !ok {
		a.Runs = append(a.Runs, Run{Argv: spec.Argv, Fails: true, User: a.User})
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
	// with are the side runs started on the way to the command followed.
	with []int
	// libraryDirs are the ld.so.conf directories, read once.
	libraryDirs     []string
	libraryDirsRead bool
	// execBy are, by execline script, the program that execs the one it
	// ends on.
	execBy map[string]string
	// user is who the program being followed runs as: the container's
	// user until a wrapper switches it; home is the HOME a wrapper set
	// (homeSet).
	user    User
	home    string
	homeSet bool
	// accounts says why the accounts may not be the image's when a
	// wrapper looks a user up: a script followed adds or changes them
	// (useradd, usermod), or a supervisor's init scripts may.
	accounts string
}

// problem records p with the wrapper chain that led to it and the layer
// that wrote node (nil when the path does not exist).
func (c *checker) problem(node *rootfs.Node, p Problem) {
	p.Via = append([]Hop(nil), c.via...)
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
	var denied []Candidate
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
		if c.runnable(node, resolved) {
			c.analysis.Steps = append(c.analysis.Steps, resolved)
			return node, resolved, true
		}
		denied = append(denied, Candidate{Path: describeLink(candidate, resolved), Mode: node.FileMode(), UID: node.UID, GID: node.GID})
		if deniedNode == nil {
			deniedNode = node
		}
	}
	if len(denied) > 0 {
		c.problem(deniedNode, Problem{Kind: NotExecutable, Reason: InPathNotExecutable, Path: denied[0].Path,
			User: c.user, Candidates: denied})
		return nil, "", false
	}
	c.problem(nil, Problem{Kind: NotFound, Reason: NotInPath, Path: name, PathValue: pathValue})
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
		problem := Problem{Kind: missing, Reason: Missing, Path: absolute}
		var pathErr *rootfs.PathError
		if errors.As(err, &pathErr) {
			switch {
			case errors.Is(err, rootfs.ErrLoop):
				problem.Reason, problem.At = SymlinkLoop, pathErr.At
			case errors.Is(err, rootfs.ErrNotDir):
				problem.Reason, problem.At = ParentNotDirectory, pathErr.At
			case pathErr.At != absolute:
				problem.Reason, problem.At = MissingParent, pathErr.At
			}
		}
		c.problem(nil, problem)
		return nil, "", false
	}
	where := describeLink(absolute, resolved)
	switch {
	case node.Type == rootfs.Dir:
		c.problem(node, Problem{Kind: missing, Reason: IsDirectory, Path: where})
		return nil, "", false
	case node.Type != rootfs.Regular:
		c.problem(node, Problem{Kind: denied, Reason: NotRegularFile, Path: where, Type: node.Type})
		return nil, "", false
	}
	if blocked := BlockingDirs(c.fs, c.user, resolved); len(blocked) > 0 {
		c.problem(node, notSearchable(denied, where, blocked, c.user))
		return nil, "", false
	}
	if !c.user.CanExecute(node.Mode, node.UID, node.GID) {
		c.problem(node, Problem{Kind: denied, Reason: NoExecuteBit, Path: where,
			Mode: node.FileMode(), UID: node.UID, GID: node.GID, User: c.user})
		return nil, "", false
	}
	c.analysis.Steps = append(c.analysis.Steps, resolved)
	return node, resolved, true
}

// runnable says the user may exec a file: a regular file with an execute
// bit for them, in directories they may enter.
func (c *checker) runnable(node *rootfs.Node, resolved string) bool {
	return node.Type == rootfs.Regular && c.user.CanExecute(node.Mode, node.UID, node.GID) &&
		len(BlockingDirs(c.fs, c.user, resolved)) == 0
}

// notSearchable is the problem of a file at where that user cannot reach
// through the blocked directories, topmost first.
func notSearchable(kind Kind, where string, blocked []Dir, user User) Problem {
	top := blocked[0]
	return Problem{Kind: kind, Reason: ParentNotSearchable, Path: where, At: top.Path, Mode: top.Mode, UID: top.UID, GID: top.GID,
		Blocked: blocked, User: user}
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
		c.problem(node, Problem{Kind: InterpreterMissing, Reason: EmptyFile, Path: resolved})
	default:
		c.problem(node, Problem{Kind: InterpreterMissing, Reason: UnknownFormat, Path: resolved})
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
	if depth >= MaxInterpreterDepth {
		c.problem(node, Problem{Kind: InterpreterMissing, Reason: TooManyInterpreters, Path: resolved})
		return
	}
	shebang, _ := ParseShebang(facts.Head)
	if shebang.Interpreter == "" {
		c.problem(node, Problem{Kind: InterpreterMissing, Reason: EmptyShebang, Path: resolved})
		return
	}
	if shebang.CRLF {
		// The carriage return sticks to the line's end: to the interpreter,
		// or to its argument when there is one (env's program).
		target := shebang.Interpreter
		if shebang.Argument != "" {
			target = shebang.Argument
		}
		c.problem(node, Problem{Kind: InterpreterMissing, Reason: CRLFShebang, Path: resolved, Interpreter: target + "\r"})
		return
	}
	interpNode, interpResolved, ok := c.checkExecutable(c.absolute(shebang.Interpreter), shebang.Interpreter, InterpreterMissing, InterpreterMissing)
	if !ok {
		c.neededBy(resolved, ShebangInterpreter)
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
			c.neededBy(resolved, EnvLookup)
			// env reports the failure itself, with its own words.
			last := &c.analysis.Problems[len(c.analysis.Problems)-1]
			last.Kind = InterpreterMissing
			return
		}
		c.examine(target, targetResolved, program, depth+1)
	}
}

// neededBy marks the last problem as one of a file the script needs.
func (c *checker) neededBy(script string, relation Relation) {
	last := &c.analysis.Problems[len(c.analysis.Problems)-1]
	last.Relation, last.Of = relation, script
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
		c.problem(node, Problem{Kind: ArchMismatch, Reason: MachineMismatch, Path: resolved, Machine: info.Machine, Arch: c.arch})
		return
	}
	if info.Interp != "" {
		loader, err := c.fs.Stat(info.Interp)
		if err != nil || loader.Type != rootfs.Regular {
			c.problem(nil, Problem{Kind: InterpreterMissing, Reason: LoaderMissing, Path: info.Interp, Of: resolved,
				Loaders: c.presentLoaders()})
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
			c.problem(nil, Problem{Kind: LibraryMissing, Reason: LibraryNotFound, Path: resolved, Library: soname, Searched: where})
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
		c.problem(node, Problem{Kind: VersionMissing, Reason: VersionNotDefined, Path: resolved, Library: need.File,
			Missing: missing, Newest: newestVersion(libFacts.ELF.VersionDefs, missing[0]),
			LibraryPath: lib.Path(), LibraryLayer: c.img.LayerOf(lib)})
	}
}

// presentLoaders are the glibc and musl loaders the image has: a missing
// loader beside another libc's is a binary built for the wrong libc.
func (c *checker) presentLoaders() []string {
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
	return present
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

// Bounds on reading ld.so.conf and what it includes: ldconfig reads each
// file once, and real configurations are a dozen files of a line or two.
const (
	maxLibraryConfFiles = 256
	maxLibraryConfBytes = 4 << 20
	maxLibraryConfDirs  = 1024
)

// configuredLibraryDirs reads /etc/ld.so.conf and the files it includes,
// each once (a file including its own directory is read once, not again
// for every file of it).
func (c *checker) configuredLibraryDirs() []string {
	if c.libraryDirsRead {
		return c.libraryDirs
	}
	c.libraryDirsRead = true
	var dirs []string
	visited := map[string]bool{}
	var bytesRead int
	var read func(file string, depth int)
	read = func(file string, depth int) {
		if visited[file] || depth > 4 || len(visited) >= maxLibraryConfFiles || bytesRead > maxLibraryConfBytes {
			return
		}
		visited[file] = true
		data, ok := c.img.ReadText(file)
		if !ok {
			return
		}
		bytesRead += len(data)
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
			case strings.HasPrefix(line, "/") && len(dirs) < maxLibraryConfDirs:
				dirs = append(dirs, line)
			}
		}
	}
	read("/etc/ld.so.conf", 0)
	c.libraryDirs = dirs
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
// (GLIBC_…), "" when there is none.
func newestVersion(defs []string, like string) string {
	prefix, _ := splitVersion(like)
	newest := ""
	for _, def := range defs {
		if p, _ := splitVersion(def); p == prefix && (newest == "" || versionLess(newest, def)) {
			newest = def
		}
	}
	return newest
}
