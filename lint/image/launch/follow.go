package launch

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/launch/shell"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// maxWrapperDepth bounds how many wrapper scripts in a row are followed:
// real images have one or two (tini → entrypoint.sh → server).
const maxWrapperDepth = 8

// run examines a program the container execs with argv and, when it is a
// shell wrapper (a shell script, or a shell given -c or a script file),
// follows it to the programs it starts, which get the same checks: the
// image's entrypoint is often a script, and the server it runs is what
// has to exist and be executable.
func (c *checker) run(node *rootfs.Node, resolved string, argv []string, depth int) {
	before := len(c.analysis.Problems)
	c.examine(node, resolved, argv[0], 0)
	if len(c.analysis.Problems) > before {
		// It does not start, so what it would run never runs; it is still
		// what the container is meant to run.
		c.addRun(Run{Argv: argv, Path: resolved, Via: append([]Hop(nil), c.via...), Fails: true})
		return
	}
	script, commands, wrapper := c.follow(node, resolved, argv)
	if !wrapper && depth < maxWrapperDepth && c.switchedArgv(resolved, argv, depth) {
		return
	}
	if !wrapper {
		// A process supervisor runs the programs it is configured with
		// beside itself: they are side runs of its run.
		withBefore, from := len(c.with), len(c.analysis.Runs)
		if depth < maxWrapperDepth && c.supervise(resolved, argv, depth) {
			for i := from; i < len(c.analysis.Runs); i++ {
				c.analysis.Runs[i].Side = true
				c.with = append(c.with, i)
			}
		}
		c.addRun(Run{Argv: argv, Path: resolved, Via: append([]Hop(nil), c.via...)})
		c.with = c.with[:withBefore]
		return
	}
	if depth >= maxWrapperDepth {
		c.analysis.Unchecked = append(c.analysis.Unchecked, fmt.Sprintf("%s: more than %d wrapper scripts in a row, not followed", script, maxWrapperDepth))
		return
	}
	// Branches are not evaluated, so a candidate that would fail may be one
	// the script never takes: its problems count only when no candidate
	// starts, and are otherwise said as what was not checked.
	type outcome struct{ first, last int }
	var failed []outcome
	started := false
	for _, command := range commands {
		if len(command.Argv) == 0 || strings.HasPrefix(command.Argv[0], "-") {
			continue // args passed on as the command in a branch that adds the program first
		}
		first := len(c.analysis.Problems)
		// What the script started before it runs beside it, and is checked
		// with it: a server started with & before `tail -f /dev/null`.
		withBefore := len(c.with)
		for _, side := range command.Before {
			if len(side.Argv) == 0 || strings.HasPrefix(side.Argv[0], "-") {
				continue
			}
			from := len(c.analysis.Runs)
			hop := hopOf(script, side)
			hop.Then, hop.ThenLine, hop.ThenExec = command.Argv, command.Line, command.Exec
			c.start(hop, side.Argv, depth)
			for i := from; i < len(c.analysis.Runs); i++ {
				c.analysis.Runs[i].Side = true
				c.with = append(c.with, i)
			}
		}
		hop := hopOf(script, command)
		hop.ExecBy = c.execBy[script]
		c.start(hop, command.Argv, depth)
		c.with = c.with[:withBefore]
		if last := len(c.analysis.Problems); last > first {
			failed = append(failed, outcome{first, last})
		} else {
			started = true
		}
	}
	if !started || len(failed) == 0 {
		return
	}
	var kept []Problem
	next := 0
	for _, f := range failed {
		kept = append(kept, c.analysis.Problems[next:f.first]...)
		for _, p := range c.analysis.Problems[f.first:f.last] {
			c.analysis.NotTaken = append(c.analysis.NotTaken, NotTaken{Script: script, Problem: p, AfterUnchecked: len(c.analysis.Unchecked)})
		}
		next = f.last
	}
	c.analysis.Problems = append(kept, c.analysis.Problems[next:]...)
}

// switchedArgv follows an argv that starts with a wrapper changing the
// user (command: [gosu, app, serve], ENTRYPOINT ["su-exec", "app", …],
// s6-setuidgid app serve) to the program the wrapper execs, as start does
// for the same words in a script: the switch is checked against the
// image's accounts, and the program is looked up and checked as the user
// it switched to. It says whether argv starts with such a wrapper.
func (c *checker) switchedArgv(resolved string, argv []string, depth int) bool {
	var hop Hop
	var program []string
	switch base := path.Base(argv[0]); {
	case base == "s6-setuidgid" || base == "s6-applyuidgid":
		// s6's chain-loaders read their argv as a run script's words.
		words := make([]ExeclineWord, len(argv))
		for i, word := range argv {
			words[i] = ExeclineWord{Text: word}
		}
		command, execBy, reason := peelExecline(words)
		if reason != "" || len(command.Switches) == 0 {
			return false
		}
		hop, program = hopOf(resolved, command), command.Argv
		hop.ExecBy = execBy
	default:
		wrapped, ok := shell.Unwrap(argv)
		if !ok || len(wrapped.Switches) == 0 {
			return false
		}
		program = wrapped.Argv
		hop = Hop{Script: resolved, Program: program[0], Exec: true, ExecBy: wrapped.ExecBy, Env: wrapped.Env, Switches: wrapped.Switches,
			Init: wrapped.Init}
	}
	// The wrapper execs the program itself, looking a bare name up in
	// PATH as execvp or Go's exec.LookPath (gosu, main.go) does.
	hop.Wrapper = true
	c.start(hop, program, depth)
	return true
}

// hopOf is the hop from a script to a command it runs.
func hopOf(script string, command shell.Command) Hop {
	return Hop{Script: script, Line: command.Line, Program: command.Argv[0], ArgvEnv: command.ArgvEnv, Exec: command.Exec, Background: command.Background,
		Dir: command.Dir, DirUnknown: command.DirUnknown, Env: command.Env, EnvUnknown: command.EnvUnknown, Tainted: command.Tainted,
		After: command.After, AfterLine: command.AfterLine, Switches: command.Switches, Init: command.Init,
		TermTrap: command.TermTrap}
}

// start follows a command a wrapper script runs, through hop, as the
// user the hop's wrappers switch to.
func (c *checker) start(hop Hop, argv []string, depth int) {
	c.via = append(c.via, hop)
	defer func(user User, home string, homeSet bool) {
		c.user, c.home, c.homeSet = user, home, homeSet
	}(c.user, c.home, c.homeSet)
	for _, sw := range hop.Switches {
		if c.accounts != "" && !byNumbers(sw) {
			// The accounts may not be the image's by then: who the name is,
			// and whether it exists, is known only at run time.
			c.user = User{Via: sw.Wrapper, From: sw.Wrapper, Unresolved: c.accounts}
			c.home = ""
			c.homeSet = c.homeSet || sw.Wrapper == "su-exec" || sw.Wrapper == "runuser" || sw.ResetEnv
			continue
		}
		switched := SwitchUser(c.user, sw, c.img)
		if switched.Denied {
			found, setuidRoot := c.wrapperFile(sw.Wrapper)
			if hop.Wrapper && path.Base(hop.Script) == sw.Wrapper {
				// The container execs the wrapper itself: that file, not
				// PATH's, is the one that runs.
				node, err := c.fs.Stat(hop.Script)
				found, setuidRoot = err == nil, err == nil && node.Mode&0o4000 != 0 && node.UID == 0
			}
			switch {
			case setuidRoot && !c.spec.NoNewPrivileges:
				// A setuid-root wrapper runs as root whoever starts it,
				// unless no_new_privs (allowPrivilegeEscalation: false) is set.
				root := c.user
				root.UID = 0
				switched = SwitchUser(root, sw, c.img)
			case !found || c.mayGainSetuid():
				// Not the file the shell runs, or capabilities the runtime
				// may grant a non-root user: what it is allowed is not known.
				switched = Switched{User: User{Via: sw.Wrapper, From: sw.Wrapper, Unresolved: "whether " + sw.Wrapper + " may switch is not known"}}
			}
		}
		if switched.Fails != "" {
			c.problem(nil, Problem{Kind: SwitchFails, Reason: UserSwitchFails, Path: sw.Wrapper, Name: switchSpec(sw),
				Switch: switched.Fails, SwitchDenied: switched.Denied, SwitchFile: switched.Missing, User: c.user})
			c.addRun(Run{Argv: argv, Via: append([]Hop(nil), c.via...), Fails: true})
			c.via = c.via[:len(c.via)-1]
			return
		}
		c.user = switched.User
		if switched.SetsHome {
			c.home, c.homeSet = switched.Home, true
		}
	}
	find := c.findProgram
	if hop.ExecBy != "" {
		// execline's programs exec as execvp does, which passes over a
		// file it may not run, as exec.LookPath does.
		find = c.findArgv0
	}
	before := len(c.analysis.Problems)
	if next, nextResolved, ok := find(argv[0]); ok {
		c.run(next, nextResolved, argv, depth+1)
	} else {
		for i := before; hop.ExecBy != "" && i < len(c.analysis.Problems); i++ {
			c.analysis.Problems[i].ExecBy, c.analysis.Problems[i].Name = hop.ExecBy, argv[0]
		}
		c.addRun(Run{Argv: argv, Via: append([]Hop(nil), c.via...), Fails: true})
	}
	c.via = c.via[:len(c.via)-1]
}

// addRun records a program the container ends up running, with the side
// runs started on the way to it.
func (c *checker) addRun(run Run) {
	run.User, run.Home, run.HomeSet = c.user, c.home, c.homeSet
	if len(c.with) > 0 {
		run.With = append([]int(nil), c.with...)
	}
	c.analysis.Runs = append(c.analysis.Runs, run)
}

// keeps says which commands a wrapper starts before its last one are
// followed: known servers and interpreters, which may be the server.
func (c *checker) keeps(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	if Interpreter(path.Base(argv[0])) {
		return true
	}
	return c.spec.Serves != nil && c.spec.Serves(argv)
}

// Interpreter reports program names of language runtimes that run an app:
// the app, not the runtime, may be the server.
func Interpreter(base string) bool {
	switch base {
	case "node", "java", "ruby", "Rscript", "julia", "deno", "bun":
		return true
	}
	version, ok := strings.CutPrefix(base, "python")
	return ok && strings.Trim(version, "0123456789.") == ""
}

// follow parses a shell wrapper and returns the commands it ends by
// running; wrapper is false for anything that is not a shell wrapper. What
// cannot be followed is recorded as unchecked.
func (c *checker) follow(node *rootfs.Node, resolved string, argv []string) (script string, commands []shell.Command, wrapper bool) {
	lookup := func(name string) (string, bool) { return Lookup(c.spec.Env, name) }
	options := shell.Options{Keep: c.keeps}
	facts := c.img.Facts(node)
	var result *shell.Result
	var err error
	var scriptText []byte
	switch {
	case facts.IsScript() && image.IsShellScript(facts.Head):
		script = resolved
		if facts.Text == nil {
			reason := "its content was not read"
			if node.Size > shell.MaxScriptBytes {
				reason = fmt.Sprintf("a shell script larger than %d KiB", shell.MaxScriptBytes>>10)
			}
			c.analysis.Unchecked = append(c.analysis.Unchecked, resolved+": "+reason+", not followed to the program it runs")
			return script, nil, true
		}
		result, err = shell.FollowWith(facts.Text, argv[0], argv[1:], lookup, options)
		scriptText = facts.Text
	case facts.IsScript() && IsExecline(facts.Head) && !c.supervises(resolved, argv):
		return resolved, c.followExecline(node, resolved, facts), true
	case facts.IsELF() && (shell.IsShell(path.Base(resolved)) || shell.IsShell(path.Base(argv[0]))):
		command, name, args, file, ok := ShellOperands(argv)
		switch {
		case !ok:
			return "", nil, false // an interactive shell, or one reading stdin: it is the program
		case file != "":
			scriptNode, scriptResolved, found := c.checkReadable(file)
			if !found {
				return file, nil, true
			}
			script = scriptResolved
			text := c.img.Facts(scriptNode)
			if text == nil || text.Text == nil {
				// A script run as sh's operand needs no #! line, so the first
				// read may not have kept its text: a targeted read does.
				c.analysis.Needs = append(c.analysis.Needs, scriptNode)
				c.analysis.Unchecked = append(c.analysis.Unchecked, scriptResolved+": the script's content was not read, not followed to the program it runs")
				return script, nil, true
			}
			result, err = shell.FollowWith(text.Text, file, args, lookup, options)
			scriptText = text.Text
		default:
			script = resolved + " -c"
			result, err = shell.FollowCommandStringWith(command, name, args, lookup, options)
			scriptText = []byte(command)
		}
	default:
		return "", nil, false
	}
	if err != nil {
		c.analysis.Unchecked = append(c.analysis.Unchecked, fmt.Sprintf("%s: %v", script, err))
		return script, nil, true
	}
	if c.accounts == "" {
		c.accounts = accountsChanged(script, scriptText)
	}
	for _, reason := range result.Unresolved {
		c.analysis.Unchecked = append(c.analysis.Unchecked, script+": "+reason)
	}
	return script, result.Commands, true
}

// followExecline reads an execline script (an s6 run script) to the
// program its chain-loaders end up execing into; nil, with the reason
// recorded, when it cannot be followed.
func (c *checker) followExecline(node *rootfs.Node, resolved string, facts *image.FileFacts) []shell.Command {
	if facts.Text == nil {
		reason := "its content was not read"
		if node.Size > shell.MaxScriptBytes {
			reason = fmt.Sprintf("an execline script larger than %d KiB", shell.MaxScriptBytes>>10)
		} else {
			c.analysis.Needs = append(c.analysis.Needs, node)
		}
		c.analysis.Unchecked = append(c.analysis.Unchecked, resolved+": "+reason+", not followed to the program it runs")
		return nil
	}
	words, err := ParseExecline(facts.Text)
	if err != nil {
		c.analysis.Unchecked = append(c.analysis.Unchecked, fmt.Sprintf("%s: an execline script of a shape not read (%v), not followed to the program it runs", resolved, err))
		return nil
	}
	command, execBy, reason := peelExecline(words)
	if reason != "" {
		c.analysis.Unchecked = append(c.analysis.Unchecked, fmt.Sprintf("%s: %s, not followed to the program it runs", resolved, reason))
		return nil
	}
	if c.execBy == nil {
		c.execBy = map[string]string{}
	}
	c.execBy[resolved] = execBy
	return []shell.Command{command}
}

// ShellOperands reads a shell's argv: `sh -c [OPTIONS] [--] STRING [NAME
// [ARGS…]]` gives the command string (-c only says the first operand is
// one, as KubeRay's `/bin/bash -c -- STRING` relies on), `sh [OPTIONS]
// [--] FILE [ARGS…]` the script file; ok is false for a shell with neither.
func ShellOperands(argv []string) (command, name string, args []string, file string, ok bool) {
	commandString := false
	for i := 1; i < len(argv); i++ {
		word := argv[i]
		switch {
		case word == "--":
			return shellOperands(argv, i+1, commandString)
		case strings.HasPrefix(word, "-") && strings.Contains(word[1:], "c") && !strings.HasPrefix(word, "--"):
			commandString = true
		case strings.HasPrefix(word, "-") || strings.HasPrefix(word, "+"):
			if word == "-o" || word == "+o" {
				i++ // -o OPTION
			}
		default:
			return shellOperands(argv, i, commandString)
		}
	}
	return "", "", nil, "", false
}

// shellOperands reads the operands of a shell's argv from first on.
func shellOperands(argv []string, first int, commandString bool) (command, name string, args []string, file string, ok bool) {
	if first >= len(argv) {
		return "", "", nil, "", false
	}
	if !commandString {
		return "", "", argv[first+1:], argv[first], true
	}
	name = argv[0]
	if first+1 < len(argv) {
		name, args = argv[first+1], argv[first+2:]
	}
	return argv[first], name, args, "", true
}

// checkReadable finds a script file a shell is given to read.
func (c *checker) checkReadable(file string) (*rootfs.Node, string, bool) {
	absolute := c.absolute(file)
	node, resolved, err := c.fs.Resolve(absolute, true)
	if err != nil || node.Type != rootfs.Regular {
		c.problem(nil, Problem{Kind: NotFound, Reason: ShellScriptMissing, Path: absolute, ByShell: true, Name: file})
		return nil, "", false
	}
	return node, resolved, true
}

// findProgram locates a command a shell script runs, as the shell does: a
// name with a slash is used as is; a bare name is searched in PATH, where
// a file without an execute bit fails with "Permission denied" (exit 126)
// when no executable one comes first, and no file with "command not found"
// (exit 127). A file in a directory the user may not enter is one the
// shell cannot stat, so it is never what fails with "Permission denied"
// for its mode: bash passes over it (findcmd.c, file_status) and says
// "command not found", dash keeps the EACCES (exec.c, find_command) and
// says "Permission denied", both with exit 127; either way the directory
// is what to fix.
func (c *checker) findProgram(name string) (*rootfs.Node, string, bool) {
	if strings.Contains(name, "/") {
		return c.checkExecutable(c.absolute(name), name, NotFound, NotExecutable)
	}
	pathValue, _ := Lookup(c.spec.Env, "PATH")
	var denied, unreachable *rootfs.Node
	deniedPath, unreachablePath := "", ""
	var blocked []Dir
	for _, dir := range strings.Split(pathValue, ":") {
		if dir == "" {
			dir = c.spec.WorkingDir // an empty PATH entry is the current directory for a shell
		}
		candidate := path.Join(c.absolute(dir), name)
		node, resolved, err := c.fs.Resolve(candidate, true)
		if err != nil || node.Type != rootfs.Regular {
			continue
		}
		if c.runnable(node, resolved) {
			c.analysis.Steps = append(c.analysis.Steps, resolved)
			return node, resolved, true
		}
		if dirs := BlockingDirs(c.fs, c.user, resolved); len(dirs) > 0 {
			if unreachable == nil {
				unreachable, unreachablePath, blocked = node, describeLink(candidate, resolved), dirs
			}
			continue
		}
		if denied == nil {
			denied, deniedPath = node, describeLink(candidate, resolved)
		}
	}
	switch {
	case denied != nil:
		c.problem(denied, Problem{Kind: NotExecutable, Reason: NoExecuteBit, Path: deniedPath, ByShell: true, Name: name,
			Mode: denied.FileMode(), UID: denied.UID, GID: denied.GID, User: c.user})
	case unreachable != nil:
		p := notSearchable(NotExecutable, unreachablePath, blocked, c.user)
		p.ByShell, p.Name = true, name
		c.problem(unreachable, p)
	default:
		c.problem(nil, Problem{Kind: NotFound, Reason: NotInPath, Path: name, ByShell: true, Name: name, PathValue: pathValue})
	}
	return nil, "", false
}

// wrapperFile finds a wrapper that switches the user in PATH, as the
// shell running it does, and says whether it is setuid root.
func (c *checker) wrapperFile(name string) (found, setuidRoot bool) {
	pathValue, _ := Lookup(c.spec.Env, "PATH")
	for _, dir := range strings.Split(pathValue, ":") {
		if !strings.HasPrefix(dir, "/") {
			continue
		}
		node, _, err := c.fs.Resolve(path.Join(dir, name), true)
		if err != nil || node.Type != rootfs.Regular {
			continue
		}
		return true, node.Mode&0o4000 != 0 && node.UID == 0
	}
	return false, false
}

// accountChanges are what a script may add or change accounts with at
// start: the shadow and busybox tools, or the files themselves (echo >>
// /etc/passwd, nss_wrapper).
var accountChanges = lazyregexp.New(`\b(useradd|adduser|usermod|groupadd|addgroup|groupmod|newusers|NSS_WRAPPER_PASSWD)\b|/etc/passwd|/etc/group`)

// accountsChanged says where a script may change the image's accounts
// before the wrappers it runs look a user up, "" when it does not.
func accountsChanged(script string, text []byte) string {
	loc := accountChanges.FindStringIndex(string(text))
	if loc == nil {
		return ""
	}
	line := 1 + strings.Count(string(text[:loc[0]]), "\n")
	return fmt.Sprintf("%s line %d may change the accounts at start (%s)", script, line, text[loc[0]:loc[1]])
}

// byNumbers says a switch names its user and groups by number and takes
// nothing from the accounts (gosu 1000:1000, s6-applyuidgid -u 1000 -g
// 1000): it switches to the same ids whatever the accounts are.
func byNumbers(sw shell.Switch) bool {
	numeric := func(s string) bool {
		_, err := strconv.ParseUint(s, 10, 32)
		return err == nil
	}
	switch sw.Wrapper {
	case "gosu", "setpriv", "s6-applyuidgid", "chroot":
	case "s6-setuidgid":
		uid, gid, ok := strings.Cut(sw.User, ":")
		return ok && numeric(uid) && numeric(gid)
	default:
		return false
	}
	if sw.User != "" && !numeric(sw.User) || sw.Group == "" && (sw.Wrapper == "gosu" || sw.Wrapper == "chroot") ||
		sw.Group != "" && !numeric(sw.Group) || sw.InitGroups {
		return false
	}
	for _, group := range sw.Groups {
		if !numeric(group) {
			return false
		}
	}
	return true
}

// mayGainSetuid says the container adds capabilities that would let a
// user other than root switch (SETUID, SETGID, ALL): whether the runtime
// gives them to a non-root process depends on it, so a switch is not
// judged.
func (c *checker) mayGainSetuid() bool {
	for _, capability := range c.spec.AddedCapabilities {
		switch strings.ToUpper(strings.TrimPrefix(strings.ToUpper(capability), "CAP_")) {
		case "SETUID", "SETGID", "ALL":
			return true
		}
	}
	return false
}
