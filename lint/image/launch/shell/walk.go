package shell

import (
	"mvdan.cc/sh/v3/syntax"
)

// list runs stmts in order on every open path and returns the paths still
// open after them; paths that exec or exit end in fr.proc.
func (f *follower) list(fr frame, paths []*path, stmts []*syntax.Stmt) []*path {
	for _, s := range stmts {
		line := fr.src.line(s.Pos())
		if len(paths) == 0 || !f.step(line, len(paths)) {
			break
		}
		var next []*path
		for _, p := range paths {
			next = append(next, f.stmt(fr, p, s)...)
		}
		paths = f.merge(line, next)
	}
	return paths
}

// merge drops paths that are the same as an earlier one, which keeps a run
// of ifs that change nothing from doubling the paths each time.
func (f *follower) merge(line int, paths []*path) []*path {
	var out []*path
	for _, p := range paths {
		duplicate := false
		for _, q := range out {
			if !f.step(line, 1+p.vars.len()>>5) {
				return out
			}
			if p.same(q) {
				duplicate = true
				break
			}
		}
		if !duplicate {
			out = append(out, p)
		}
	}
	if len(out) > maxPaths {
		if !f.pathsDropped {
			f.note(because(line, "the script branches more than %d ways; the rest are not followed", maxPaths))
			f.pathsDropped = true
		}
		out = out[:maxPaths]
	}
	return out
}

func (f *follower) stmt(fr frame, p *path, s *syntax.Stmt) []*path {
	if p.returning {
		return []*path{p} // the rest of the function is skipped
	}
	if s.Background || s.Coprocess || s.Disown {
		p.background(f.subshell(fr, p, func(fr frame, q *path) []*path { return f.command(fr, q, s.Cmd) }))
		return []*path{p}
	}
	return f.command(fr, p, s.Cmd)
}

func (f *follower) command(fr frame, p *path, cmd syntax.Command) []*path {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		return f.call(fr, p, c)
	case *syntax.DeclClause:
		f.declare(fr, p, c)
		return []*path{p}
	case *syntax.FuncDecl:
		if c.Name != nil && c.Body != nil {
			f.step(fr.src.line(c.Pos()), p.funcs.len())
			p.funcs.set(c.Name.Value, function{body: c.Body, src: fr.src})
		}
		return []*path{p}
	case nil, *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause:
		return []*path{p}
	}
	line := fr.src.line(cmd.Pos())
	if !f.enter(line) {
		return []*path{p}
	}
	defer f.leave()
	switch c := cmd.(type) {
	case *syntax.Block:
		return f.list(fr, []*path{p}, c.Stmts)
	case *syntax.Subshell:
		p.setLast(f.subshell(fr, p, func(fr frame, q *path) []*path { return f.list(fr, []*path{q}, c.Stmts) }))
		return []*path{p}
	case *syntax.IfClause:
		return f.ifClause(fr, p, c)
	case *syntax.CaseClause:
		return f.caseClause(fr, p, c)
	case *syntax.WhileClause:
		// The body is followed once: a keep-alive loop (while true; do
		// sleep 3600; done) lives on its body's last program.
		p.testing++
		tested := f.list(fr, []*path{p}, c.Cond)
		for _, q := range tested {
			q.testing--
		}
		return f.list(fr, tested, c.Do)
	case *syntax.ForClause:
		if iter, ok := c.Loop.(*syntax.WordIter); ok {
			f.setVar(p, iter.Name.Value, binding{runtime: "$" + iter.Name.Value + " is set by a for loop"})
		}
		return f.list(fr, []*path{p}, c.Do)
	case *syntax.BinaryCmd:
		return f.binary(fr, p, c)
	case *syntax.TimeClause:
		if c.Stmt == nil {
			return []*path{p}
		}
		return f.stmt(fr, p, c.Stmt)
	case *syntax.CoprocClause:
		p.background(f.subshell(fr, p, func(fr frame, q *path) []*path { return f.stmt(fr, q, c.Stmt) }))
		return []*path{p}
	}
	return []*path{p}
}

// subshell runs body in a child process that starts as a copy of p, and
// returns the commands the child may end by running.
func (f *follower) subshell(fr frame, p *path, body func(frame, *path) []*path) ([]Command, []reason) {
	child := fr
	child.proc = &process{env: fr.proc.env}
	start := p.fork()
	start.jobs, start.jobsUnknown = nil, nil // the parent's jobs are not the child's to wait for
	start.ran = nil                          // the child's finals carry what it started; the parent keeps its own
	return f.finals(child.proc, body(child, start))
}

func (f *follower) ifClause(fr frame, p *path, c *syntax.IfClause) []*path {
	line := fr.src.line(c.Pos())
	var out []*path
	// notTaken are the paths on which every condition so far failed.
	notTaken := []*path{p}
	for clause := c; clause != nil; clause = clause.Else {
		if !clause.ThenPos.IsValid() { // else
			return f.merge(line, append(out, f.list(fr, notTaken, clause.Then)...))
		}
		var next []*path
		for _, q := range notTaken {
			before := q.programs
			q.testing++
			for _, held := range f.list(fr, []*path{q}, clause.Cond) {
				held.testing--
				failed := held.fork()
				if failed.programs != before {
					failed.forgetLast()
				}
				out = append(out, f.list(fr, []*path{held}, clause.Then)...)
				next = append(next, failed)
			}
		}
		notTaken = f.merge(line, next)
	}
	return f.merge(line, append(out, notTaken...))
}

func (f *follower) caseClause(fr frame, p *path, c *syntax.CaseClause) []*path {
	var out []*path
	for i, item := range c.Items {
		branch := []*path{p.fork()}
		for _, next := range c.Items[i:] {
			branch = f.list(fr, branch, next.Stmts)
			if next.Op != syntax.Fallthrough {
				break
			}
		}
		out = append(out, branch...)
		if matchesAnything(item) {
			return f.merge(fr.src.line(c.Pos()), out) // the clauses after it are never reached
		}
	}
	return f.merge(fr.src.line(c.Pos()), append(out, p))
}

func matchesAnything(item *syntax.CaseItem) bool {
	for _, pattern := range item.Patterns {
		if lit := pattern.Lit(); lit == "*" {
			return true
		}
	}
	return false
}

func (f *follower) binary(fr frame, p *path, c *syntax.BinaryCmd) []*path {
	if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
		// Every element runs in its own subshell; the pipeline's exit is
		// the last one's.
		p.setLast(f.subshell(fr, p, func(fr frame, q *path) []*path { return f.stmt(fr, q, c.Y) }))
		return []*path{p}
	}
	before := p.programs
	var out []*path
	if c.Op == syntax.OrStmt {
		p.testing++ // X || Y: X may fail and the script go on, so X is a test
	}
	for _, q := range f.stmt(fr, p, c.X) {
		if c.Op == syntax.OrStmt {
			q.testing--
		}
		failed := q.fork()
		if failed.programs != before {
			failed.forgetLast()
		}
		if c.Op == syntax.AndStmt {
			out = append(out, f.stmt(fr, q, c.Y)...)
			out = append(out, failed)
		} else {
			out = append(out, q)
			out = append(out, f.stmt(fr, failed, c.Y)...)
		}
	}
	return f.merge(fr.src.line(c.OpPos), out)
}

// callFunction runs a function's body with the call's arguments as its
// positional parameters.
func (f *follower) callFunction(fr frame, p *path, fn function, args []field, line int) []*path {
	if fr.calls >= maxCallDepth {
		p.setLast(nil, []reason{because(line, "function calls nest deeper than %d; the inner ones are not followed", maxCallDepth)})
		return []*path{p}
	}
	if !f.enter(line) {
		return []*path{p}
	}
	defer f.leave()
	saved := p.args
	p.args = args
	inner := frame{src: fn.src, proc: fr.proc, calls: fr.calls + 1, shells: fr.shells, inFunction: true}
	out := f.stmt(inner, p, fn.body)
	for _, q := range out {
		q.args, q.returning = saved, false
	}
	return out
}
