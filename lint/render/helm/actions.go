package helm

import (
	"maps"
	"slices"
	"strings"
	"text/template/parse"

	"github.com/modellint/modellint/lint/manifest"
)

// valueActions returns, per 1-based template line, the values path each
// output action on it reads ("resources" for `{{ toYaml .Values.resources }}`),
// "" for an output action that reads no value (include, .Release.Name).
// Control actions (if, range, end) and assignments write nothing and are left
// out. A template that does not parse yields nil: rendering already succeeded,
// so this only loses the values lines, never the template lines.
func valueActions(name, source string) map[int][]string {
	tree := parse.New(name)
	tree.Mode = parse.SkipFuncCheck
	treeSet := map[string]*parse.Tree{}
	if _, err := tree.Parse(source, "{{", "}}", treeSet); err != nil {
		return nil
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
	actions := map[int][]string{}
	var walk func(node parse.Node, dot *string)
	walk = func(node parse.Node, dot *string) {
		switch n := node.(type) {
		case *parse.ListNode:
			if n == nil {
				return
			}
			for _, child := range n.Nodes {
				walk(child, dot)
			}
		case *parse.ActionNode:
			if len(n.Pipe.Decl) == 0 {
				path, _ := pipeValues(n.Pipe, dot)
				actions[lineOf(n.Pos)] = append(actions[lineOf(n.Pos)], path)
			}
		case *parse.TemplateNode:
			actions[lineOf(n.Pos)] = append(actions[lineOf(n.Pos)], "")
		case *parse.IfNode:
			walk(n.List, dot)
			walk(n.ElseList, dot)
		case *parse.WithNode:
			// Inside {{ with .Values.x }}, "." is .Values.x.
			if path, ok := pipeValues(n.Pipe, dot); ok {
				walk(n.List, &path)
			} else {
				walk(n.List, nil)
			}
			walk(n.ElseList, dot)
		case *parse.RangeNode:
			walk(n.List, nil) // "." is an element: which one is not known here
			walk(n.ElseList, dot)
		}
	}
	root := ""
	for _, name := range slices.Sorted(maps.Keys(treeSet)) { // defines parse into trees of their own
		walk(treeSet[name].Root, &root)
	}
	return actions
}

// pipeValues finds the values path a pipeline reads: the first .Values field
// (or $.Values, or "." inside a with) among the arguments of its first
// command. dot is the values path "." stands for, nil when unknown, "" at the
// top of a template where "." is the root, not .Values.
func pipeValues(pipe *parse.PipeNode, dot *string) (string, bool) {
	if pipe == nil || len(pipe.Cmds) == 0 {
		return "", false
	}
	for _, arg := range pipe.Cmds[0].Args {
		switch a := arg.(type) {
		case *parse.FieldNode:
			if dot != nil && *dot == "" && len(a.Ident) > 0 && a.Ident[0] == "Values" {
				return joinKeys("", a.Ident[1:]), true
			}
			if dot != nil && *dot != "" {
				return joinKeys(*dot, a.Ident), true
			}
		case *parse.VariableNode:
			if len(a.Ident) > 1 && a.Ident[0] == "$" && a.Ident[1] == "Values" {
				return joinKeys("", a.Ident[2:]), true
			}
		case *parse.DotNode:
			if dot != nil && *dot != "" {
				return *dot, true
			}
		case *parse.PipeNode:
			if path, ok := pipeValues(a, dot); ok {
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
