package shell

import (
	"maps"
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

// binding is what the script knows about one variable.
type binding struct {
	value string
	// unset: the script unset it, so it expands to nothing and hides the
	// environment.
	unset bool
	// runtime says why the value is only known at run time ("$X is read at
	// run time"); empty when value is it.
	runtime  string
	exported bool
	// environ says the value is the environment's, as the process
	// started with it: the script did not set it.
	environ bool
}

// function is a function the script defined, with the text it was parsed from.
type function struct {
	body *syntax.Stmt
	src  *source
}

// path is one way through the script: what it has set so far and the
// program it would end on if it ended here.
type path struct {
	vars  cowMap[binding]
	funcs cowMap[function]
	name  string  // $0
	args  []field // positional parameters; replaced, never written in place
	// last are the programs whose exit would end the script here;
	// lastUnknown says why some of them could not be followed.
	last        []Command
	lastUnknown []reason
	// after and afterLine are the first builtin run after the foreground
	// programs of last returned (Command.After).
	after     []string
	afterLine int
	// jobs are the programs started with &, which a `wait` makes last.
	jobs        []Command
	jobsUnknown []reason
	// programs counts the programs run so far, to tell a condition that
	// ran one from a test.
	programs int
	// taint says what may have changed the path that was not followed (a
	// sourced file); it holds for whatever the path ends on.
	taint []reason
	// returning: a `return` ran, so the rest of the function is skipped.
	returning bool
	// ran are the programs the path started so far that the follower keeps
	// (Options.Keep), foreground and background, in order; testing counts
	// the if/while conditions being run, whose programs are not kept.
	ran     []Command
	testing int
	keep    func(argv []string) bool
	// termTrap is the line of the trap on TERM in effect, 0 when none.
	termTrap int
}

func newPath(name string, args []field) *path { return &path{name: name, args: args} }

// fork copies the path for a branch; the copies share their maps until
// one of them writes.
func (p *path) fork() *path {
	q := *p
	q.vars = p.vars.fork()
	q.funcs = p.funcs.fork()
	return &q
}

func (p *path) setLast(cmds []Command, unknown []reason) {
	p.last, p.lastUnknown = cmds, unknown
	p.after, p.afterLine = nil, 0
	p.programs++
	p.record(cmds)
}

// maxRan bounds the programs a path keeps as started before its final one.
const maxRan = 16

// record keeps the programs of cmds the keep function wants, with those
// they started before them, as started on the path.
func (p *path) record(cmds []Command) {
	keep := p.keep
	if keep == nil || p.testing > 0 {
		return
	}
	add := func(c Command) {
		c.Before = nil
		if len(p.ran) < maxRan && keep(c.Argv) && !slices.ContainsFunc(p.ran, c.equal) {
			p.ran = append(slices.Clip(p.ran), c)
		}
	}
	for _, c := range cmds {
		for _, b := range c.Before {
			add(b)
		}
		add(c)
	}
}

// withBefore gives each of cmds the programs the path started before it.
func (p *path) withBefore(cmds []Command) []Command {
	if len(p.ran) == 0 {
		return cmds
	}
	out := make([]Command, len(cmds))
	for i, c := range cmds {
		var before []Command
		for _, r := range p.ran {
			if !r.equal(Command{Argv: c.Argv, Line: c.Line, Exec: c.Exec, Background: c.Background}) &&
				!slices.ContainsFunc(c.Before, r.equal) && len(before) < maxRan {
				before = append(before, r)
			}
		}
		c.Before = append(before, c.Before...)[:min(len(before)+len(c.Before), maxRan)]
		out[i] = c
	}
	return out
}

// ranAfter notes a builtin run once the path's foreground programs have
// returned: the script goes on past them.
func (p *path) ranAfter(argv []string, line int) {
	if p.afterLine == 0 && slices.ContainsFunc(p.last, func(c Command) bool { return !c.Background }) {
		p.after, p.afterLine = argv, line
	}
}

// withAfter gives the foreground commands of cmds the builtin the path
// ran after them.
func (p *path) withAfter(cmds []Command) []Command {
	if p.afterLine == 0 {
		return cmds
	}
	out := slices.Clone(cmds)
	for i := range out {
		if !out[i].Background {
			out[i].After, out[i].AfterLine = p.after, p.afterLine
		}
	}
	return out
}

// forgetLast is for a program that failed: it is not what the script
// serves on.
func (p *path) forgetLast() { p.last, p.lastUnknown, p.after, p.afterLine = nil, nil, nil, 0 }

// background starts jobs; until a foreground program runs, the script
// ends on them.
func (p *path) background(cmds []Command, unknown []reason) {
	cmds = slices.Clone(cmds)
	for i := range cmds {
		cmds[i].Background = true
	}
	p.jobs = append(slices.Clip(p.jobs), cmds...)[:min(len(p.jobs)+len(cmds), maxCommands)]
	p.jobsUnknown = distinct(append(slices.Clip(p.jobsUnknown), unknown...))
	p.setLast(p.jobs, p.jobsUnknown)
}

// wait makes the jobs started so far what the script ends on.
func (p *path) wait() {
	if len(p.jobs) > 0 || len(p.jobsUnknown) > 0 {
		p.last, p.lastUnknown = slices.Clone(p.jobs), p.jobsUnknown
		for i := range p.last {
			p.last[i].TermTrap = p.termTrap
		}
		p.jobs, p.jobsUnknown = nil, nil
		p.after, p.afterLine = nil, 0
	}
}

func (p *path) taintWith(r reason) {
	if !slices.Contains(p.taint, r) && len(p.taint) < maxUnresolved {
		p.taint = append(slices.Clip(p.taint), r)
	}
}

// same reports whether two paths go on alike, so one of them can be dropped.
func (p *path) same(o *path) bool {
	return p.name == o.name && p.returning == o.returning && slices.Equal(p.args, o.args) &&
		slices.EqualFunc(p.last, o.last, Command.equal) && slices.Equal(p.lastUnknown, o.lastUnknown) &&
		p.afterLine == o.afterLine && slices.Equal(p.after, o.after) &&
		slices.EqualFunc(p.jobs, o.jobs, Command.equal) && slices.Equal(p.jobsUnknown, o.jobsUnknown) &&
		slices.Equal(p.taint, o.taint) && slices.EqualFunc(p.ran, o.ran, Command.equal) && p.testing == o.testing &&
		p.termTrap == o.termTrap &&
		p.vars.equal(o.vars) && p.funcs.equal(o.funcs)
}

// cowMap is a map shared by forked paths until one of them writes to it.
type cowMap[V comparable] struct {
	m     *map[string]V
	owned bool
}

func (c cowMap[V]) get(key string) (V, bool) {
	if c.m == nil {
		var zero V
		return zero, false
	}
	v, ok := (*c.m)[key]
	return v, ok
}

func (c cowMap[V]) len() int {
	if c.m == nil {
		return 0
	}
	return len(*c.m)
}

func (c *cowMap[V]) set(key string, v V) {
	c.own()
	(*c.m)[key] = v
}

func (c *cowMap[V]) delete(key string) {
	if _, ok := c.get(key); ok {
		c.own()
		delete(*c.m, key)
	}
}

func (c *cowMap[V]) own() {
	if c.owned {
		return
	}
	m := make(map[string]V, c.len()+1)
	if c.m != nil {
		maps.Copy(m, *c.m)
	}
	c.m, c.owned = &m, true
}

func (c *cowMap[V]) fork() cowMap[V] {
	c.owned = false
	return cowMap[V]{m: c.m}
}

func (c cowMap[V]) equal(o cowMap[V]) bool {
	if c.m == o.m || c.len() == 0 && o.len() == 0 {
		return true
	}
	return c.m != nil && o.m != nil && maps.Equal(*c.m, *o.m)
}
