package shell

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// MaxScriptBytes is the largest script Follow reads; entrypoint wrappers are
// a few KiB, and the bound keeps every other limit below meaningful.
const MaxScriptBytes = 64 << 10

const (
	maxCommands   = 32       // candidate final commands in one result
	maxPaths      = 32       // ways through the script followed at once
	maxUnresolved = 32       // reasons kept in one result
	maxNesting    = 64       // compound statements and expansions inside each other
	maxCallDepth  = 8        // function calls inside function calls
	maxShellDepth = 4        // sh -c inside sh -c
	maxWordBytes  = 64 << 10 // one word after expansion
	maxWords      = 1024     // words of one command after expansion
	maxSteps      = 1 << 20  // work units for one Follow, so input of any shape ends
)

// Result is what a script ends by running.
type Result struct {
	// Commands are the candidate final commands, in source order. A script has one when it is
	// straight-line; an if/elif/else or case whose branches end differently gives one per branch.
	Commands []Command
	// Unresolved says, one entry per reason, what could not be followed statically (e.g.
	// "line 4: the command is built at run time ($(…))", "line 7: $SERVER is not set"), so the
	// caller reports the check as skipped rather than passed.
	Unresolved []string
}

// Command is one program the script may end by running.
type Command struct {
	Argv []string // fully expanded words; Argv[0] is the program as written after expansion (a bare name or a path)
	// ArgvEnv names, for each word of Argv, the environment variable the
	// word is the whole value of ("${MODEL_ID}" as the script started with
	// it), "" for the others; nil when no word is one.
	ArgvEnv []string
	Line    int // 1-based line in the script where the command starts
	// Exec says the command replaces the shell running the script (it is
	// run through `exec`, or a -c string the script execs ends on it)
	// rather than running as the script's last command.
	Exec bool
	// Dir is the directory a `cd` (or pushd) before the command moved to,
	// relative to where the script started when it is not absolute; ""
	// when the script did not change directory. DirUnknown says why the
	// directory is known only at run time (`cd "$APP_HOME"` unset, `cd -`).
	Dir, DirUnknown string
	// Env are the variables the script exported before the command
	// (NAME=value, in name order), the command's own prefix assignments
	// last; EnvUnknown names those whose value is known only at run time.
	Env, EnvUnknown []string
	// Tainted says what the script did that was not followed and may have
	// changed the command's environment or directory (a sourced file).
	Tainted []string
	// Background says the command was started with & (and the script
	// ends on it through `wait`, or it is one of Before).
	Background bool
	// After is the first builtin the script runs once the command has
	// returned (`echo done`, at AfterLine), when it goes on instead of
	// ending on it: the script, not the command, is then what ends the
	// container. An exit or return right after the command is ending on
	// it.
	After     []string
	AfterLine int
	// Before are the programs the way through the script that ends on the
	// command started earlier and Options.Keep kept (a server started with
	// & before `tail -f /dev/null`), in order; their own Before is empty.
	Before []Command
	// Switches are the changes of user the wrappers before the program
	// make (exec gosu app server), in order: the program runs as the
	// last one's user.
	Switches []Switch
	// Init is the init the program runs under, when a wrapper before it
	// is one (tini, dumb-init): the init, not the program, is the process
	// the script starts, and it passes signals on to the program.
	Init string
	// TermTrap is, for a command started with & that the script waits
	// for, the line of the trap on TERM in effect when it does, 0 when
	// none: a shell runs a trap while it waits (unlike while a foreground
	// command runs), and the trap may pass the signal on.
	TermTrap int
}

// Options tune what Follow keeps.
type Options struct {
	// Keep says which programs the script starts before its final one are
	// kept as the final command's Before (servers, interpreters); nil
	// keeps none. Programs run as an if or while condition are not kept.
	Keep func(argv []string) bool
}

// Follow parses a shell script (the whole file text; a leading #! line is fine) and returns the
// commands it ends by running. args are the script's positional parameters ($1…, "$@", $*, $#),
// name is $0. lookup gives the environment (the image ENV and the pod env); variables the script
// assigns itself (X=..., export X=..., readonly/declare/local X=..., ${X:=default}) are tracked in
// order and win over lookup after their assignment.
func Follow(text []byte, name string, args []string, lookup func(string) (string, bool)) (*Result, error) {
	return FollowWith(text, name, args, lookup, Options{})
}

// FollowWith is Follow with options.
func FollowWith(text []byte, name string, args []string, lookup func(string) (string, bool), opts Options) (*Result, error) {
	if len(text) > MaxScriptBytes {
		return nil, fmt.Errorf("shell script is %d bytes, over the %d-byte limit", len(text), MaxScriptBytes)
	}
	file, err := parse(text)
	if err != nil {
		return nil, fmt.Errorf("parse shell script: %s", oneLine(err))
	}
	f := &follower{}
	proc := &process{env: environment(lookup)}
	fr := frame{src: &source{text: text}, proc: proc}
	start := newPath(name, knownFields(args))
	start.keep = opts.Keep
	commands, unresolved := f.finals(proc, f.list(fr, []*path{start}, file.Stmts))
	return &Result{Commands: commands, Unresolved: report(append(unresolved, f.notes...))}, nil
}

// FollowCommandString is Follow for `sh -c STRING [NAME [ARGS...]]`: STRING is the script,
// NAME is $0, ARGS the positional parameters.
func FollowCommandString(command string, name string, args []string, lookup func(string) (string, bool)) (*Result, error) {
	return Follow([]byte(command), name, args, lookup)
}

// FollowCommandStringWith is FollowCommandString with options.
func FollowCommandStringWith(command string, name string, args []string, lookup func(string) (string, bool), opts Options) (*Result, error) {
	return FollowWith([]byte(command), name, args, lookup, opts)
}

func parse(text []byte) (*syntax.File, error) {
	// Bash is the widest dialect that wrapper scripts are written in; a
	// POSIX script parses the same way under it.
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(text), "")
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

// reason is one thing that could not be followed.
type reason struct {
	line int // 0 when it is about no line in particular
	text string
}

func because(line int, format string, args ...any) reason {
	return reason{line: line, text: fmt.Sprintf(format, args...)}
}

// report orders reasons by line and drops repeats.
func report(reasons []reason) []string {
	slices.SortStableFunc(reasons, func(a, b reason) int { return cmp.Compare(a.line, b.line) })
	var out []string
	for _, r := range reasons {
		text := r.text
		if r.line > 0 {
			text = fmt.Sprintf("line %d: %s", r.line, r.text)
		}
		if slices.Contains(out, text) {
			continue
		}
		if len(out) == maxUnresolved {
			return append(out, "more reasons are left out")
		}
		out = append(out, text)
	}
	return out
}

// follower holds what one Follow gathers across every path and nested shell.
type follower struct {
	// notes are reasons that hold whichever command is final: the limits
	// that stopped following.
	notes     []reason
	steps     int
	exhausted bool
	depth     int
	// pathsDropped: paths over maxPaths were dropped, which is said once.
	pathsDropped bool
}

func (f *follower) note(r reason) {
	if len(f.notes) <= maxUnresolved && !slices.Contains(f.notes, r) {
		f.notes = append(f.notes, r)
	}
}

// step spends n work units and reports whether following may go on.
func (f *follower) step(line, n int) bool {
	if f.exhausted {
		return false
	}
	f.steps += n
	if f.steps > maxSteps {
		f.exhausted = true
		f.note(because(line, "the script takes more than %d steps to follow; the rest is not followed", maxSteps))
	}
	return !f.exhausted
}

// enter bounds how deep compound statements nest; leave undoes it.
func (f *follower) enter(line int) bool {
	if f.depth >= maxNesting {
		f.note(because(line, "statements nest deeper than %d; the inner ones are not followed", maxNesting))
		return false
	}
	f.depth++
	return true
}

func (f *follower) leave() { f.depth-- }

// source is the text statements were parsed from: the script, or a string
// inside it (sh -c, eval) whose lines count from the line it appears on.
type source struct {
	text       []byte
	lineOffset int
}

func (s *source) line(pos syntax.Pos) int { return int(pos.Line()) + s.lineOffset }

// written is a node's text as it appears in the source.
func (s *source) written(n syntax.Node) string {
	start, end := n.Pos().Offset(), n.End().Offset()
	if start > end || end > uint(len(s.text)) {
		return ""
	}
	return string(s.text[start:end])
}

// process is one shell process: the script, a subshell, or a nested sh -c.
type process struct {
	// env is the environment the process started with.
	env func(name string) (binding, bool)
	// ended and endedUnknown are what the paths that ended (exec, exit)
	// ended on.
	ended        []Command
	endedUnknown []reason
}

// end ends path p on cmds, and on programs that could not be followed.
func (proc *process) end(p *path, cmds []Command, unknown []reason) {
	proc.ended = append(proc.ended, p.withBefore(cmds)...)
	proc.endedUnknown = append(append(proc.endedUnknown, unknown...), p.taint...)
}

// finals are the commands proc may end by running, those of the paths that
// ended and then the last programs of the paths that ran to the end, with
// the reasons some of them are not known.
func (f *follower) finals(proc *process, open []*path) ([]Command, []reason) {
	all, unknown := slices.Clone(proc.ended), slices.Clone(proc.endedUnknown)
	for _, p := range open {
		all = append(all, p.withBefore(p.withAfter(p.last))...)
		unknown = append(append(unknown, p.lastUnknown...), p.taint...)
	}
	var out []Command
	for _, c := range all {
		if !slices.ContainsFunc(out, c.equal) {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Command) int { return cmp.Compare(a.Line, b.Line) })
	if len(out) > maxCommands {
		f.note(because(out[maxCommands].Line, "the script may end in more than %d commands; the rest are left out", maxCommands))
		out = out[:maxCommands]
	}
	return out, distinct(unknown)
}

// distinct drops repeats and keeps one reason past the limit, so report
// can say that more are left out.
func distinct(reasons []reason) []reason {
	var out []reason
	for _, r := range reasons {
		if !slices.Contains(out, r) && len(out) <= maxUnresolved {
			out = append(out, r)
		}
	}
	return out
}

func (c Command) equal(o Command) bool {
	return c.Line == o.Line && c.Exec == o.Exec && c.Background == o.Background && slices.Equal(c.Argv, o.Argv) &&
		slices.EqualFunc(c.Before, o.Before, Command.equal) && c.AfterLine == o.AfterLine && slices.Equal(c.After, o.After) &&
		slices.EqualFunc(c.Switches, o.Switches, Switch.equal) && c.Init == o.Init && c.TermTrap == o.TermTrap
}

func environment(lookup func(string) (string, bool)) func(string) (binding, bool) {
	return func(name string) (binding, bool) {
		if lookup == nil {
			return binding{}, false
		}
		value, ok := lookup(name)
		return binding{value: value, exported: true, environ: true}, ok
	}
}

// frame is where statements run: their source, their process, and how
// deep in function calls and nested shells they are.
type frame struct {
	src        *source
	proc       *process
	calls      int
	shells     int
	inFunction bool
}
