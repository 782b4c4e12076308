package shell

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// invocation is one simple command after expansion.
type invocation struct {
	argv []field
	line int
	// env holds the assignments for this command only (FOO=bar prog, env
	// FOO=bar prog), which a nested shell or a function sees.
	env map[string]binding
	// usedArgs: the words expand positional parameters ("$@", $1).
	usedArgs bool
	exec     bool
}

func (f *follower) call(fr frame, p *path, c *syntax.CallExpr) []*path {
	line := fr.src.line(c.Pos())
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			f.assignment(fr, p, line, a, false)
		}
		return []*path{p}
	}
	// The words are expanded before the prefix assignments take effect, as
	// a shell does: FOO=bar prog $FOO passes the old $FOO.
	argv, usedArgs, ok := f.expandWords(fr, p, line, c.Args)
	if !ok {
		p.setLast(nil, []reason{because(line, "the command expands to more than %d words; it is not followed", maxWords)})
		return []*path{p}
	}
	inv := invocation{argv: argv, line: line, usedArgs: usedArgs}
	for _, a := range c.Assigns {
		if a.Name == nil || a.Array != nil || a.Index != nil {
			continue
		}
		text, unknown := f.expandString(fr, p, line, a.Value)
		inv.setEnv(a.Name.Value, text, unknown)
	}
	return f.run(fr, p, inv)
}

func (inv *invocation) setEnv(name, text, unknown string) {
	if inv.env == nil {
		inv.env = map[string]binding{}
	}
	inv.env[name] = binding{value: text, runtime: unknown, exported: true}
}

// run follows one expanded command: exec, a builtin, a function, a wrapper
// such as env or gosu, a nested sh -c, or the program itself.
func (f *follower) run(fr frame, p *path, inv invocation) []*path {
	if len(inv.argv) > 0 && inv.argv[0] == (field{text: "exec"}) {
		inv.exec = true
		inv.argv = execOperands(inv.argv[1:])
	}
	if len(inv.argv) == 0 {
		if inv.usedArgs {
			return f.unknownProgram(fr, p, inv, "runs its arguments, and there are none")
		}
		return []*path{p} // exec >file only redirects; a word that expands to nothing runs nothing
	}
	if inv.argv[0].unknown != "" {
		return f.unknownProgram(fr, p, inv, inv.argv[0].unknown)
	}
	name := inv.argv[0].text
	if !inv.exec {
		if name == "command" && len(inv.argv) > 1 && (inv.argv[1].text == "-v" || inv.argv[1].text == "-V") {
			return []*path{p} // a lookup, not a run
		}
		if builtin, ok := builtins[name]; ok {
			if name != "exit" && name != "return" && name != "wait" {
				p.ranAfter(texts(inv.argv), inv.line)
			}
			return builtin(f, fr, p, inv)
		}
		if fn, ok := p.funcs.get(name); ok {
			// The function sees the command's assignments; that they
			// outlast the call here is what POSIX mode does too.
			for name, b := range inv.env {
				f.setVar(p, name, b)
			}
			return f.callFunction(fr, p, fn, inv.argv[1:], inv.line)
		}
	}
	unwrapped := unwrap(inv.argv, inv.line)
	switch {
	case unwrapped.empty != "" && inv.usedArgs:
		return f.unknownProgram(fr, p, inv, "runs its arguments, and there are none")
	case unwrapped.empty != "":
		return f.unknownProgram(fr, p, inv, unwrapped.empty+" is given no program to run")
	case unwrapped.program[0].unknown != "":
		return f.unknownProgram(fr, p, inv, unwrapped.program[0].unknown)
	}
	for _, a := range unwrapped.assigns {
		name, text, _ := strings.Cut(a.text, "=")
		inv.setEnv(name, text, a.unknown)
	}
	inv.argv = unwrapped.program
	switches, underInit := unwrapped.switches, unwrapped.init
	if shell, script, rest, ok := shellScript(inv.argv); ok {
		return f.nestedShell(fr, p, inv, shell, script, rest, switches, underInit)
	}
	command := Command{Argv: texts(inv.argv), ArgvEnv: environNames(inv.argv), Line: inv.line, Exec: inv.exec, Switches: switches, Init: underInit}
	if dir, ok := p.vars.get(cwdKey); ok {
		command.Dir, command.DirUnknown = dir.value, dir.runtime
	}
	command.Env, command.EnvUnknown = exportedEnv(p, inv)
	for _, r := range p.taint {
		command.Tainted = append(command.Tainted, fmt.Sprintf("line %d: %s", r.line, r.text))
	}
	return f.finish(fr, p, inv.exec, []Command{command}, nil)
}

// exportedEnv lists what the script exports to a command, its own
// prefix assignments last (so they win when read in order).
func exportedEnv(p *path, inv invocation) (env, unknown []string) {
	add := func(name string, b binding) {
		switch {
		case b.unset || !b.exported:
		case b.runtime != "":
			unknown = append(unknown, name)
		default:
			env = append(env, name+"="+b.value)
		}
	}
	if p.vars.m != nil {
		for _, name := range slices.Sorted(maps.Keys(*p.vars.m)) {
			if name != cwdKey {
				add(name, (*p.vars.m)[name])
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(inv.env)) {
		add(name, inv.env[name])
	}
	return env, unknown
}

// cwdKey holds the directory `cd` moved to among a path's variables: no
// shell name can spell it, so no expansion reads it.
const cwdKey = "\x00cwd"

// cdBuiltin records where cd and pushd move to, so a relative script or
// module the next program is given resolves from there.
func cdBuiltin(f *follower, _ frame, p *path, inv invocation) []*path {
	operands := inv.argv[1:]
	for len(operands) > 0 && len(operands[0].text) > 1 && operands[0].text[0] == '-' && operands[0].unknown == "" {
		operands = operands[1:] // -L, -P, -e
	}
	var b binding
	switch {
	case len(operands) == 0:
		b.runtime = "cd with no directory moves to $HOME"
	case operands[0].unknown != "":
		b.runtime = fmt.Sprintf("line %d: cd %s: %s", inv.line, operands[0].text, operands[0].unknown)
	case operands[0].text == "-":
		b.runtime = fmt.Sprintf("line %d: cd - moves to the previous directory", inv.line)
	default:
		b.value = operands[0].text
		if previous, ok := p.vars.get(cwdKey); ok && !strings.HasPrefix(b.value, "/") {
			b.value, b.runtime = previous.value+"/"+b.value, previous.runtime
		}
	}
	f.setVar(p, cwdKey, b)
	return []*path{p}
}

func popdBuiltin(f *follower, _ frame, p *path, inv invocation) []*path {
	f.setVar(p, cwdKey, binding{runtime: fmt.Sprintf("line %d: popd returns to a directory of the stack", inv.line)})
	return []*path{p}
}

// baseName is a program's name without its directory (/usr/bin/env is env).
func baseName(program string) string {
	return program[strings.LastIndexByte(program, '/')+1:]
}

// finish ends the path on cmds when they were exec'd, and otherwise makes
// them the path's last programs; unknown are the programs among them that
// could not be followed.
func (f *follower) finish(fr frame, p *path, exec bool, cmds []Command, unknown []reason) []*path {
	if exec {
		fr.proc.end(p, cmds, unknown)
		return nil
	}
	p.setLast(cmds, unknown)
	return []*path{p}
}

// unknownProgram is a command whose program could not be followed, and why;
// that matters only if the script ends on it.
func (f *follower) unknownProgram(fr frame, p *path, inv invocation, why string) []*path {
	return f.finish(fr, p, inv.exec, nil, []reason{{line: inv.line, text: why}})
}

// execOperands skips exec's own options: exec [-cl] [-a name] [--] cmd.
func execOperands(args []field) []field {
	for i := 0; i < len(args); i++ {
		a := args[i].text
		switch {
		case a == "--":
			return args[i+1:]
		case a == "-a":
			i++
		case len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], "cl") != "":
			return args[i:]
		}
	}
	return nil
}

// nestedShell follows `sh -c SCRIPT [NAME [ARGS…]]` as a child process,
// which runs as the user the wrappers before it switched to, under the
// init before it.
func (f *follower) nestedShell(fr frame, p *path, inv invocation, shell string, script field, rest []field, switches []Switch, underInit string) []*path {
	if script.unknown != "" {
		return f.unknownProgram(fr, p, inv, script.unknown)
	}
	if fr.shells >= maxShellDepth {
		return f.unknownProgram(fr, p, inv, fmt.Sprintf("%s -c nests deeper than %d shells; the inner ones are not followed", shell, maxShellDepth))
	}
	file, err := parse([]byte(script.text))
	if err != nil {
		return f.unknownProgram(fr, p, inv, fmt.Sprintf("the %s -c script does not parse: %s", shell, oneLine(err)))
	}
	if !f.enter(inv.line) {
		return []*path{p}
	}
	defer f.leave()
	name, args := inv.argv[0].text, rest
	if len(rest) > 0 {
		name, args = rest[0].text, rest[1:]
	}
	child := frame{
		src:    &source{text: []byte(script.text), lineOffset: inv.line - 1},
		proc:   &process{env: f.childEnv(fr, p, inv.env)},
		shells: fr.shells + 1,
	}
	start := newPath(name, slices.Clone(args))
	start.keep = p.keep
	cmds, unknown := f.finals(child.proc, f.list(child, []*path{start}, file.Stmts))
	for i := range cmds {
		// The string's commands replace the nested shell at most: the
		// script's own shell is replaced only when it execs that shell,
		// whose last command dash and ash exec in turn.
		cmds[i].Exec = inv.exec
		if cmds[i].Init == "" {
			cmds[i].Init = underInit
		}
		if len(switches) > 0 {
			cmds[i].Switches = append(slices.Clone(switches), cmds[i].Switches...)
			cmds[i].Before = slices.Clone(cmds[i].Before)
			for j := range cmds[i].Before {
				cmds[i].Before[j].Switches = append(slices.Clone(switches), cmds[i].Before[j].Switches...)
			}
		}
	}
	return f.finish(fr, p, inv.exec, cmds, unknown)
}

// childEnv is the environment a child process starts with: the command's
// own assignments, then what the script exported, then what it inherited.
func (f *follower) childEnv(fr frame, p *path, own map[string]binding) func(string) (binding, bool) {
	vars, inherited := p.vars, fr.proc.env
	return func(name string) (binding, bool) {
		if b, ok := own[name]; ok {
			return b, true
		}
		if b, ok := vars.get(name); ok {
			if b.unset || !b.exported {
				return binding{}, false
			}
			return b, true
		}
		return inherited(name)
	}
}

// shells are the programs whose scripts and -c strings are followed.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true, "ksh": true, "mksh": true, "zsh": true}

// IsShell reports whether a program's base name is a shell whose scripts
// this package follows (busybox counts: its sh applet is the shell).
func IsShell(base string) bool { return shells[base] || base == "busybox" }

// shellScript finds the script of `sh [options] -c SCRIPT [NAME [ARGS…]]`.
func shellScript(argv []field) (shell string, script field, rest []field, ok bool) {
	shell, i := baseName(argv[0].text), 1
	if shell == "busybox" && len(argv) > 1 {
		shell, i = argv[1].text, 2
	}
	if !shells[shell] {
		return "", field{}, nil, false
	}
	command := false
	for ; i < len(argv); i++ {
		a := argv[i].text
		if a == "--" || a == "-" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' && a[0] != '+' {
			break
		}
		if strings.HasPrefix(a, "--") {
			if a == "--rcfile" || a == "--init-file" {
				i++
			}
			continue
		}
		command = command || a[0] == '-' && strings.ContainsRune(a, 'c')
		if strings.ContainsAny(a[1:], "oO") {
			i++ // -o pipefail
		}
	}
	if !command || i >= len(argv) {
		return "", field{}, nil, false
	}
	return shell, argv[i], argv[i+1:], true
}

// maxWrappers bounds wrappers inside wrappers (env nohup tini -- prog).
const maxWrappers = 8

// unwrapped is what the wrappers at the head of a command's words leave
// to run.
type unwrapped struct {
	// program is what the last wrapper execs: the words themselves when
	// they start with none, one whose first word is known only at run
	// time when a wrapper is given such a program.
	program []field
	// switches are the changes of user on the way, in order; assigns the
	// NAME=value words env sets for the program.
	switches []Switch
	assigns  []field
	// execBy is the base name of the last wrapper, which execs program;
	// "" when there is none.
	execBy string
	// empty names the wrapper given no program to run, "" when each is.
	empty string
	// init is the last init on the way (inits), "" when none.
	init string
}

// unwrap takes the wrappers (env, tini, nohup …) and the wrappers that
// switch the user (gosu, su-exec, setpriv, runuser, chroot) off the head of argv,
// the words of a command run at line.
func unwrap(argv []field, line int) unwrapped {
	u := unwrapped{program: argv}
	for range maxWrappers {
		if len(u.program) == 0 || u.program[0].unknown != "" {
			break
		}
		wrapper := baseName(u.program[0].text)
		var program, assigns []field
		if switcher, ok := switchers[wrapper]; ok {
			var sw Switch
			if program, sw, ok = switcher(u.program[1:]); !ok {
				break // runuser without -u runs the user's shell: it is the program
			}
			if sw.Wrapper, sw.Line = wrapper, line; sw.changes() {
				u.switches = append(u.switches, sw)
			}
		} else if unwrap, ok := wrappers[wrapper]; ok {
			program, assigns = unwrap(u.program[1:])
			if inits[wrapper] {
				u.init = wrapper
			}
		} else {
			break
		}
		u.program, u.execBy = program, wrapper
		u.assigns = append(u.assigns, assigns...)
		if len(program) == 0 {
			u.empty = wrapper
			break
		}
	}
	return u
}

// Wrapped is a program exec'd through wrappers, as Unwrap reads it.
type Wrapped struct {
	// Argv is what the last wrapper execs, ExecBy that wrapper's base
	// name.
	Argv   []string
	ExecBy string
	// Switches are the changes of user on the way (Line 0: the words are
	// no script's); Env the NAME=value env sets for the program; Init
	// the last init on the way (tini, dumb-init), "" when none.
	Switches []Switch
	Env      []string
	Init     string
}

// Unwrap reads the wrappers at the head of an argv a program is exec'd
// with (a container's command: gosu app serve, env A=1 su-exec app serve)
// as the same words are read in a script; ok is false when argv starts
// with no wrapper, or one is given no program.
func Unwrap(argv []string) (w Wrapped, ok bool) {
	fields := make([]field, len(argv))
	for i, word := range argv {
		fields[i] = field{text: word}
	}
	u := unwrap(fields, 0)
	if u.execBy == "" || u.empty != "" {
		return Wrapped{}, false
	}
	w = Wrapped{Argv: texts(u.program), ExecBy: u.execBy, Switches: u.switches, Init: u.init}
	for _, a := range u.assigns {
		w.Env = append(w.Env, a.text)
	}
	return w, true
}

// wrappers run the program named in their arguments; each returns that
// program's argv and any NAME=value it sets for it.
var wrappers = map[string]func(args []field) (program, assigns []field){
	"env":       envProgram,
	"nohup":     optionsThen(),
	"command":   optionsThen(),
	"nice":      optionsThen("-n", "--adjustment"),
	"tini":      optionsThen("-p", "-e"),
	"dumb-init": optionsThen("-r", "--rewrite"),
	"stdbuf":    optionsThen("-i", "-o", "-e"),
	"timeout": func(args []field) ([]field, []field) {
		program, _ := optionsThen("-s", "--signal", "-k", "--kill-after")(args)
		if len(program) == 0 {
			return nil, nil
		}
		return program[1:], nil // after the duration
	},
}

// inits are the wrappers that run their program as their child and pass
// the signals they get on to it: the container's init when exec'd.
var inits = map[string]bool{"tini": true, "dumb-init": true}

// optionsThen skips options, the listed ones with a value after them, up
// to the program.
func optionsThen(withValue ...string) func([]field) ([]field, []field) {
	return func(args []field) ([]field, []field) {
		for i := 0; i < len(args); i++ {
			a := args[i].text
			switch {
			case a == "--":
				return args[i+1:], nil
			case len(a) < 2 || a[0] != '-':
				return args[i:], nil
			case slices.Contains(withValue, a):
				i++
			}
		}
		return nil, nil
	}
}

// envProgram is env [-i] [-u NAME] [-S STRING] [NAME=value…] PROG.
func envProgram(args []field) ([]field, []field) {
	split := false
	i := 0
options:
	for ; i < len(args); i++ {
		a := args[i].text
		switch {
		case a == "--":
			i++
			break options
		case !split && (a == "-S" || a == "--split-string") && i+1 < len(args):
			// -S splits one string into the words after it, once.
			if args[i+1].unknown != "" {
				return args[i+1:], nil
			}
			args = append(knownFields(strings.Fields(args[i+1].text)), args[i+2:]...)
			i, split = -1, true
		case !split && (strings.HasPrefix(a, "-S") && len(a) > 2 || strings.HasPrefix(a, "--split-string=")):
			// -SSTRING and --split-string=STRING are -S STRING.
			if args[i].unknown != "" {
				return args[i:], nil
			}
			s, long := strings.CutPrefix(a, "--split-string=")
			if !long {
				s = a[2:]
			}
			args = append(knownFields(strings.Fields(s)), args[i+1:]...)
			i, split = -1, true
		case a == "-u" || a == "--unset" || a == "-C" || a == "--chdir":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			break options
		}
	}
	var assigns []field
	for ; i < len(args); i++ {
		name, _, ok := strings.Cut(args[i].text, "=")
		if !ok || !syntax.ValidName(name) {
			break
		}
		assigns = append(assigns, args[i])
	}
	return args[min(i, len(args)):], assigns
}

var builtins map[string]func(f *follower, fr frame, p *path, inv invocation) []*path

func init() {
	builtins = map[string]func(*follower, frame, *path, invocation) []*path{
		"exit":   exitBuiltin,
		"return": returnBuiltin,
		"set":    setBuiltin,
		"shift":  shiftBuiltin,
		"unset":  unsetBuiltin,
		"source": sourceBuiltin,
		".":      sourceBuiltin,
		"eval":   evalBuiltin,
		"read":   readBuiltin,
		"trap":   trapBuiltin,
		"wait": func(_ *follower, _ frame, p *path, _ invocation) []*path {
			p.wait()
			return []*path{p}
		},
	}
	builtins["cd"], builtins["pushd"], builtins["popd"] = cdBuiltin, cdBuiltin, popdBuiltin
	// These run no program and change nothing a command is built from.
	for _, name := range []string{
		"echo", "printf", "true", "false", ":", "dirs", "umask",
		"ulimit", "test", "[", "alias", "unalias", "hash", "type", "break", "continue", "shopt", "let",
		"jobs", "kill", "times", "enable", "history", "export", "readonly", "declare", "local", "typeset",
		"disown", "caller", "complete", "compgen", "compopt", "bind", "help", "logout", "suspend", "fg",
		"bg", "builtin", "getopts", "mapfile", "readarray",
	} {
		builtins[name] = func(_ *follower, _ frame, p *path, _ invocation) []*path { return []*path{p} }
	}
}

// exitBuiltin ends the path on its last program, unless it exits with a
// failure: then the script ends on an error, not on a program.
func exitBuiltin(_ *follower, fr frame, p *path, inv invocation) []*path {
	if len(inv.argv) > 1 && inv.argv[1].unknown == "" {
		if status, err := strconv.Atoi(inv.argv[1].text); err == nil && status != 0 {
			return nil
		}
	}
	fr.proc.end(p, p.withAfter(p.last), p.lastUnknown)
	return nil
}

func returnBuiltin(f *follower, fr frame, p *path, inv invocation) []*path {
	if !fr.inFunction {
		return exitBuiltin(f, fr, p, inv) // as dash does; bash goes on after an error
	}
	p.returning = true
	return []*path{p}
}

// setBuiltin sets the positional parameters: set -- a b, set -e a b.
func setBuiltin(_ *follower, _ frame, p *path, inv invocation) []*path {
	args := inv.argv[1:]
	for i := 0; i < len(args); i++ {
		a := args[i].text
		switch {
		case a == "--" || a == "-":
			p.args = slices.Clone(args[i+1:])
			return []*path{p}
		case a == "+":
			// A lone + sets nothing and is not an argument (bash, dash).
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			if strings.ContainsRune(a[1:], 'o') {
				i++ // -o pipefail
			}
		default:
			p.args = slices.Clone(args[i:])
			return []*path{p}
		}
	}
	return []*path{p}
}

func shiftBuiltin(f *follower, _ frame, p *path, inv invocation) []*path {
	n := 1
	if len(inv.argv) > 1 {
		count, err := strconv.Atoi(inv.argv[1].text)
		if inv.argv[1].unknown != "" || err != nil || count < 0 {
			p.taintWith(because(inv.line, "shift %s is not followed", inv.argv[1].text))
			return []*path{p}
		}
		n = count
	}
	if n <= len(p.args) {
		p.args = p.args[n:]
	}
	return []*path{p}
}

// trapBuiltin notes where the script sets a trap on TERM: trap ACTION
// SIGNAL…, where an action of - (or none, or a number first: POSIX's
// reset) puts the default back and an empty one ignores the signal. A
// word known only at run time may be either, so it counts as a trap.
func trapBuiltin(_ *follower, _ frame, p *path, inv invocation) []*path {
	operands := inv.argv[1:]
	if len(operands) > 0 && operands[0].text == "--" && operands[0].unknown == "" {
		operands = operands[1:]
	}
	if len(operands) == 0 || strings.HasPrefix(operands[0].text, "-") && operands[0].text != "-" {
		return []*path{p} // trap, trap -p, trap -l: a listing
	}
	action, signals := operands[0], operands[1:]
	reset := action.unknown == "" && (action.text == "-" || action.text == "")
	if len(signals) == 0 || action.unknown == "" && strings.Trim(action.text, "0123456789") == "" && action.text != "" {
		signals, reset = operands, true
	}
	for _, signal := range signals {
		name := strings.TrimPrefix(strings.ToUpper(signal.text), "SIG")
		switch {
		case signal.unknown != "" || action.unknown != "" && (name == "TERM" || name == "15"):
			p.termTrap = inv.line
		case name != "TERM" && name != "15":
		case reset:
			p.termTrap = 0
		default:
			p.termTrap = inv.line
		}
	}
	return []*path{p}
}

func unsetBuiltin(f *follower, _ frame, p *path, inv invocation) []*path {
	functions := false
	for _, a := range inv.argv[1:] {
		switch {
		case a.text == "-f":
			functions = true
		case a.text == "-v" || a.unknown != "":
		case functions:
			p.funcs.delete(a.text)
		default:
			f.setVar(p, a.text, binding{unset: true})
		}
	}
	return []*path{p}
}

func sourceBuiltin(f *follower, _ frame, p *path, inv invocation) []*path {
	file := "named nowhere"
	if len(inv.argv) > 1 {
		file = inv.argv[1].text
	}
	p.taintWith(because(inv.line, "the sourced file %s is not followed", file))
	return []*path{p}
}

// evalBuiltin follows the string eval runs, in the same shell.
func evalBuiltin(f *follower, fr frame, p *path, inv invocation) []*path {
	for _, a := range inv.argv[1:] {
		if a.unknown != "" {
			p.taintWith(because(inv.line, "eval runs a string built at run time: %s", a.unknown))
			return []*path{p}
		}
	}
	text := strings.Join(texts(inv.argv[1:]), " ")
	file, err := parse([]byte(text))
	if err != nil {
		p.taintWith(because(inv.line, "the eval string does not parse: %s", oneLine(err)))
		return []*path{p}
	}
	if !f.enter(inv.line) {
		return []*path{p}
	}
	defer f.leave()
	inner := fr
	inner.src = &source{text: []byte(text), lineOffset: inv.line - 1}
	return f.list(inner, []*path{p}, file.Stmts)
}

// readBuiltin marks the variables read sets as known only at run time.
func readBuiltin(f *follower, _ frame, p *path, inv invocation) []*path {
	args := inv.argv[1:]
	for i := 0; i < len(args); i++ {
		a := args[i].text
		switch {
		case slices.Contains([]string{"-p", "-d", "-n", "-N", "-t", "-u", "-a", "-i"}, a):
			i++
		case syntax.ValidName(a):
			f.setVar(p, a, binding{runtime: "$" + a + " is read at run time"})
		}
	}
	return []*path{p}
}

// variable is what path p knows of a variable: the script's own value, or
// the environment its process started with.
func (f *follower) variable(fr frame, p *path, name string) (binding, bool) {
	if b, ok := p.vars.get(name); ok {
		return b, true
	}
	return fr.proc.env(name)
}

func (f *follower) setVar(p *path, name string, b binding) {
	if !p.vars.owned {
		f.step(0, p.vars.len()) // the copy a forked path makes on its first write
	}
	p.vars.set(name, b)
}

// assign sets a variable as NAME=value does: it stays exported if it was.
func (f *follower) assign(fr frame, p *path, name, text, unknown string, export bool) {
	old, ok := f.variable(fr, p, name)
	exported := export || ok && old.exported && !old.unset
	f.setVar(p, name, binding{value: text, runtime: unknown, exported: exported})
}

func (f *follower) assignment(fr frame, p *path, line int, a *syntax.Assign, export bool) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	switch {
	case a.Array != nil || a.Index != nil:
		f.setVar(p, name, binding{runtime: "$" + name + " is an array, which is not followed", exported: export})
		return
	case a.Naked:
		if old, ok := f.variable(fr, p, name); ok && export && !old.exported {
			old.exported = true
			f.setVar(p, name, old)
		}
		return
	}
	text, unknown := f.expandString(fr, p, line, a.Value)
	if a.Append && unknown == "" {
		if old, ok := f.variable(fr, p, name); ok && old.runtime != "" {
			unknown = old.runtime
		} else if ok && !old.unset {
			text = old.value + text
		}
	}
	f.assign(fr, p, name, text, unknown, export)
}

// declare follows export, readonly, declare, local and typeset.
func (f *follower) declare(fr frame, p *path, c *syntax.DeclClause) {
	line := fr.src.line(c.Pos())
	variant := c.Variant.Value
	export := variant == "export"
	for _, a := range c.Args {
		if a.Naked && a.Name == nil {
			if opt := a.Value.Lit(); strings.HasPrefix(opt, "-") && strings.Contains(opt, "x") {
				export = true // declare -x
			}
			continue
		}
		if a.Naked && a.Name != nil && variant == "local" {
			f.setVar(p, a.Name.Value, binding{unset: true}) // local X starts unset
			continue
		}
		f.assignment(fr, p, line, a, export)
	}
}
