package helm

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/template/parse"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint/manifest"
)

// valueActions returns, per 1-based template line, the values path each
// output action on it reads ("resources" for `{{ toYaml .Values.resources }}`),
// "" for an output action that reads no value (include, .Release.Name).
// Control actions (if, range, end) and assignments write nothing and are left
// out. Inside a range over values, the path goes through the range's element,
// written with the range's placeholder (see elementPath), and ranges holds
// those ranges by the offset of their pipeline. Inside a helper (a define),
// "." is the helper's argument, helperArg; args holds, per line that
// includes one helper, the values path of its argument, and chosen, for the
// lines of a helper that its argument chose to write or not (the branches
// of an if or with on it, `{{- if .limitMemory }}`), the values path the
// innermost such condition reads. A template that does not parse
// yields nil: rendering already succeeded, so this only loses the values
// lines, never the template lines.
func valueActions(name, source string) (actions map[int][]string, ranges map[int]rangeKey, args map[int]string, chosen map[int]string) {
	tree := parse.New(name)
	tree.Mode = parse.SkipFuncCheck
	treeSet := map[string]*parse.Tree{}
	if _, err := tree.Parse(source, "{{", "}}", treeSet); err != nil {
		return nil, nil, nil, nil
	}
	lineStarts := []int{0}
	for i := range len(source) {
		if source[i] == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	lineOf := func(pos parse.Pos) int {
		line := 0
		for line+1 < len(lineStarts) && lineStarts[line+1] <= int(pos) {
			line++
		}
		return line + 1
	}
	actions, ranges, args, chosen = map[int][]string{}, map[int]rangeKey{}, map[int]string{}, map[int]string{}
	byArgument := func(pipe *parse.PipeNode, in scope, branches ...*parse.ListNode) {
		if path, ok := pipeValues(pipe, in); ok && strings.HasPrefix(path, helperArg) {
			lines := map[int]bool{}
			for _, branch := range branches {
				nodeLines(branch, lineOf, lines)
			}
			for line := range lines { // inner conditions come later and win
				chosen[line] = path
			}
		}
	}
	var walk func(node parse.Node, in scope)
	walk = func(node parse.Node, in scope) {
		switch n := node.(type) {
		case *parse.ListNode:
			if n == nil {
				return
			}
			for _, child := range n.Nodes {
				walk(child, in)
			}
		case *parse.ActionNode:
			if len(n.Pipe.Decl) == 0 {
				path, ok := pipeValues(n.Pipe, in)
				if name, root := includeOfRoot(n.Pipe, in); !ok && root {
					path = includePrefix + name
				}
				if arg, ok := includeArg(n.Pipe, in); ok {
					args[lineOf(n.Pos)] = arg
				}
				actions[lineOf(n.Pos)] = append(actions[lineOf(n.Pos)], path)
			} else if !n.Pipe.IsAssign && len(n.Pipe.Decl) == 1 {
				// {{ $spec := .Values.spec }}: $spec reads the values path.
				if path, ok := pipeValues(n.Pipe, in); ok {
					in.vars[n.Pipe.Decl[0].Ident[0]] = path
				} else {
					delete(in.vars, n.Pipe.Decl[0].Ident[0])
				}
			}
		case *parse.TemplateNode:
			actions[lineOf(n.Pos)] = append(actions[lineOf(n.Pos)], "")
		case *parse.IfNode:
			byArgument(n.Pipe, in, n.List, n.ElseList)
			walk(n.List, in.inner())
			walk(n.ElseList, in.inner())
		case *parse.WithNode:
			// Inside {{ with .Values.x }}, "." is .Values.x; inside
			// {{ with $ }}, the root again.
			byArgument(n.Pipe, in, n.List, n.ElseList)
			body := in.inner()
			if isRoot(n.Pipe) {
				body.dot = &rootDot
			} else if path, ok := pipeValues(n.Pipe, in); ok {
				body.dot = &path
			} else {
				body.dot = nil
			}
			walk(n.List, body)
			walk(n.ElseList, in.inner())
		case *parse.RangeNode:
			// "." is an element; which one, the marks of the body's lines
			// tell (see markTemplateKeys).
			body := in.inner()
			body.dot = nil
			if path, ok := pipeValues(n.Pipe, in); ok && path != "" && readsOnly(n.Pipe) {
				if key, ok := keyOf(n.Pipe); ok {
					ranges[int(n.Pipe.Pos)] = key
					element := elementPath(path, int(n.Pipe.Pos))
					body.dot = &element
					if decl := n.Pipe.Decl; len(decl) > 0 {
						body.vars[decl[len(decl)-1].Ident[0]] = element
					}
				}
			}
			walk(n.List, body)
			walk(n.ElseList, in.inner())
		}
	}
	for _, define := range slices.Sorted(maps.Keys(treeSet)) { // defines parse into trees of their own
		dot := &rootDot
		if define != name {
			dot = &argDot
		}
		walk(treeSet[define].Root, scope{dot: dot, vars: map[string]string{}})
	}
	return actions, ranges, args, chosen
}

// nodeLines records the 1-based lines a template node spans.
func nodeLines(node parse.Node, lineOf func(parse.Pos) int, lines map[int]bool) {
	switch n := node.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, child := range n.Nodes {
			nodeLines(child, lineOf, lines)
		}
	case *parse.TextNode:
		for line := lineOf(n.Pos); line <= lineOf(n.Pos+parse.Pos(max(len(n.Text)-1, 0))); line++ {
			lines[line] = true
		}
	case *parse.IfNode:
		lines[lineOf(n.Pos)] = true
		nodeLines(n.List, lineOf, lines)
		nodeLines(n.ElseList, lineOf, lines)
	case *parse.WithNode:
		lines[lineOf(n.Pos)] = true
		nodeLines(n.List, lineOf, lines)
		nodeLines(n.ElseList, lineOf, lines)
	case *parse.RangeNode:
		lines[lineOf(n.Pos)] = true
		nodeLines(n.List, lineOf, lines)
		nodeLines(n.ElseList, lineOf, lines)
	default:
		lines[lineOf(node.Position())] = true
	}
}

// rootObjects are the fields of the root context besides .Values.
var rootObjects = map[string]bool{"Release": true, "Chart": true, "Capabilities": true, "Template": true, "Files": true, "Subcharts": true}

// argDot is "." at the top of a helper: its argument, which the including
// line names (see includeArg). A values path starting with helperArg goes
// through it.
const helperArg = "⟨arg⟩"

var argDot = helperArg

// includeArg finds the values path of what a pipeline passes to the helper
// it includes: `include "x" $spec` in a range over values, `include "x"
// .Values.resources`.
func includeArg(pipe *parse.PipeNode, in scope) (string, bool) {
	if pipe == nil || len(pipe.Cmds) == 0 || len(pipe.Cmds[0].Args) != 3 {
		return "", false
	}
	if ident, ok := pipe.Cmds[0].Args[0].(*parse.IdentifierNode); !ok || ident.Ident != "include" {
		return "", false
	}
	arg := &parse.PipeNode{Cmds: []*parse.CommandNode{{Args: pipe.Cmds[0].Args[2:]}}}
	path, ok := pipeValues(arg, in)
	return path, ok && path != "" && !strings.HasPrefix(path, helperArg)
}

// includePrefix starts the action path of `{{ include "NAME" . }}`: the
// helper's values path, when it only passes one value through (see
// passedThrough).
const includePrefix = "include:"

// includeOfRoot finds the helper a pipeline includes with the root context
// (`include "x" .` at the top of a template, `include "x" $`).
func includeOfRoot(pipe *parse.PipeNode, in scope) (string, bool) {
	if pipe == nil || len(pipe.Cmds) == 0 {
		return "", false
	}
	args := pipe.Cmds[0].Args
	if len(args) != 3 {
		return "", false
	}
	if ident, ok := args[0].(*parse.IdentifierNode); !ok || ident.Ident != "include" {
		return "", false
	}
	name, ok := args[1].(*parse.StringNode)
	if !ok {
		return "", false
	}
	switch arg := args[2].(type) {
	case *parse.DotNode:
		return name.Text, in.dot != nil && (*in.dot == "" || *in.dot == helperArg)
	case *parse.VariableNode:
		return name.Text, len(arg.Ident) == 1 && arg.Ident[0] == "$"
	}
	return "", false
}

// passedThrough returns, for each helper a template defines that writes
// nothing but one value read from the root context's values
// (`{{ required "msg" .Values.image }}`, perhaps through a variable), that
// value's path: the values line is where a user changes what the helper
// writes.
func passedThrough(name, source string) map[string]string {
	tree := parse.New(name)
	tree.Mode = parse.SkipFuncCheck
	treeSet := map[string]*parse.Tree{}
	if _, err := tree.Parse(source, "{{", "}}", treeSet); err != nil {
		return nil
	}
	helpers := map[string]string{}
	for define, body := range treeSet {
		if define == name || body.Root == nil {
			continue
		}
		in := scope{dot: &rootDot, vars: map[string]string{}}
		passed, outputs := "", 0
		for _, node := range body.Root.Nodes {
			switch n := node.(type) {
			case *parse.TextNode:
				if strings.TrimSpace(string(n.Text)) != "" {
					outputs = 2
				}
			case *parse.ActionNode:
				path, ok := pipeValues(n.Pipe, in)
				switch {
				case len(n.Pipe.Decl) == 1 && !n.Pipe.IsAssign && ok:
					in.vars[n.Pipe.Decl[0].Ident[0]] = path
				case len(n.Pipe.Decl) == 0 && ok && path != "":
					passed, outputs = path, outputs+1
				default:
					outputs = 2
				}
			default:
				outputs = 2
			}
		}
		if outputs == 1 {
			helpers[define] = passed
		}
	}
	return helpers
}

// rootDot is "." at the top of a template: the root, not .Values.
var rootDot = ""

// scope is what a template's names stand for at a point: "." (nil when
// unknown, rootDot at the root) and the variables holding values paths.
type scope struct {
	dot  *string
	vars map[string]string
}

// inner is the scope inside a control structure: its variables end with it.
func (s scope) inner() scope {
	return scope{dot: s.dot, vars: maps.Clone(s.vars)}
}

// isRoot reports whether a pipeline is just $, the root.
func isRoot(pipe *parse.PipeNode) bool {
	if pipe == nil || len(pipe.Decl) > 0 || len(pipe.Cmds) != 1 || len(pipe.Cmds[0].Args) != 1 {
		return false
	}
	v, ok := pipe.Cmds[0].Args[0].(*parse.VariableNode)
	return ok && len(v.Ident) == 1 && v.Ident[0] == "$"
}

// readsOnly reports whether a pipeline is one value, with no function
// applied: a range over `int .Values.count` iterates a number (which takes
// no key variable), over `until 3` a list that is not the values'.
func readsOnly(pipe *parse.PipeNode) bool {
	if len(pipe.Cmds) != 1 || len(pipe.Cmds[0].Args) != 1 {
		return false
	}
	switch pipe.Cmds[0].Args[0].(type) {
	case *parse.FieldNode, *parse.VariableNode, *parse.DotNode:
		return true
	}
	return false
}

// rangeKey is how the marked render learns a range's element: the variable
// holding its key (index or map key), and the text to insert at the range's
// pipeline to declare it when the chart does not.
type rangeKey struct {
	variable string
	declare  string
}

// keyOf finds or makes the key variable of a range: `range $i, $spec := …`
// has one; `range $spec := …` and `range …` are given one. A range that
// assigns to an existing variable (`range $spec = …`) is left alone.
func keyOf(pipe *parse.PipeNode) (rangeKey, bool) {
	variable := "$modellintKey" + strconv.Itoa(int(pipe.Pos))
	switch {
	case len(pipe.Decl) == 2:
		return rangeKey{variable: pipe.Decl[0].Ident[0]}, true
	case pipe.IsAssign:
		return rangeKey{}, false
	case len(pipe.Decl) == 1:
		return rangeKey{variable: variable, declare: variable + ", "}, true
	case len(pipe.Decl) == 0:
		return rangeKey{variable: variable, declare: variable + ", $modellintElement" + strconv.Itoa(int(pipe.Pos)) + " := "}, true
	}
	return rangeKey{}, false
}

// A values path through a range's element holds the range's placeholder,
// "[@OFFSET]" (OFFSET: where the range's pipeline starts in the template),
// until the key of the element a line was rendered for replaces it (see
// resolveElements).
var elementPlaceholder = lazyregexp.New(`\[@(\d+)\]`)

func elementPath(path string, offset int) string {
	return path + "[@" + strconv.Itoa(offset) + "]"
}

// resolveElements replaces the placeholders of a values path with the keys
// of the elements a rendered line was written for: an index for a list, a
// key for a map. It reports false when a key is unknown.
func resolveElements(path string, keys map[int]any) (string, bool) {
	resolved, rest := "", path
	for {
		m := elementPlaceholder.FindStringIndex(rest)
		if m == nil {
			return resolved + rest, true
		}
		resolved += rest[:m[0]]
		offset, _ := strconv.Atoi(rest[m[0]+2 : m[1]-1]) // "[@OFFSET]"
		switch key := keys[offset].(type) {
		case float64: // keys cross as JSON
			resolved = manifest.IndexPath(resolved, int(key))
		case string:
			resolved = manifest.JoinPath(resolved, key)
		default:
			return "", false
		}
		rest = rest[m[1]:]
	}
}

// pipeValues finds the values path a pipeline reads: the first .Values field
// (or $.Values, a variable holding a values path, or "." inside a with or a
// range over values) among the arguments of its first command.
func pipeValues(pipe *parse.PipeNode, in scope) (string, bool) {
	if pipe == nil || len(pipe.Cmds) == 0 {
		return "", false
	}
	dot := in.dot
	for _, arg := range pipe.Cmds[0].Args {
		switch a := arg.(type) {
		case *parse.FieldNode:
			if dot != nil && (*dot == "" || *dot == helperArg) && len(a.Ident) > 0 && a.Ident[0] == "Values" {
				return joinKeys("", a.Ident[1:]), true
			}
			if dot != nil && *dot == helperArg && len(a.Ident) > 0 && rootObjects[a.Ident[0]] {
				continue // .Release.Name in a helper given the root
			}
			if dot != nil && *dot != "" {
				return joinKeys(*dot, a.Ident), true
			}
		case *parse.VariableNode:
			if len(a.Ident) > 1 && a.Ident[0] == "$" && a.Ident[1] == "Values" {
				return joinKeys("", a.Ident[2:]), true
			}
			if path, ok := in.vars[a.Ident[0]]; ok && a.Ident[0] != "$" {
				return joinKeys(path, a.Ident[1:]), true
			}
		case *parse.DotNode:
			if dot != nil && *dot != "" {
				return *dot, true
			}
		case *parse.PipeNode:
			if path, ok := pipeValues(a, in); ok {
				return path, true
			}
		}
	}
	return "", false
}

func joinKeys(path string, keys []string) string {
	for _, key := range keys {
		path = manifest.JoinPath(path, key)
	}
	return path
}

// helperCalls returns the 1-based lines of a template's output actions that
// call a helper ({{ include "x" . }}, {{ template "x" . }}), in order. A
// template that does not parse yields none.
func helperCalls(name, source string) []int {
	tree := parse.New(name)
	tree.Mode = parse.SkipFuncCheck
	treeSet := map[string]*parse.Tree{}
	if _, err := tree.Parse(source, "{{", "}}", treeSet); err != nil {
		return nil
	}
	lines := map[int]bool{}
	lineOf := func(pos parse.Pos) int { return 1 + strings.Count(source[:min(int(pos), len(source))], "\n") }
	var walk func(node parse.Node)
	walk = func(node parse.Node) {
		switch n := node.(type) {
		case *parse.ListNode:
			if n == nil {
				return
			}
			for _, child := range n.Nodes {
				walk(child)
			}
		case *parse.ActionNode:
			if len(n.Pipe.Decl) == 0 && callsInclude(n.Pipe) {
				lines[lineOf(n.Pos)] = true
			}
		case *parse.TemplateNode:
			lines[lineOf(n.Pos)] = true
		case *parse.IfNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.List)
			walk(n.ElseList)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(treeSet)) {
		walk(treeSet[name].Root)
	}
	return slices.Sorted(maps.Keys(lines))
}

// callsInclude reports whether a pipeline calls include, in any command or
// nested pipeline (`{{ include "x" . | nindent 4 }}`, `{{ tpl (include "x" .) . }}`).
func callsInclude(pipe *parse.PipeNode) bool {
	if pipe == nil {
		return false
	}
	for _, cmd := range pipe.Cmds {
		for _, arg := range cmd.Args {
			switch a := arg.(type) {
			case *parse.IdentifierNode:
				if a.Ident == "include" {
					return true
				}
			case *parse.PipeNode:
				if callsInclude(a) {
					return true
				}
			}
		}
	}
	return false
}
