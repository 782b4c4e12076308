package shell

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// field is one word of a command after expansion.
type field struct {
	text string
	// unknown says why text is the word as written rather than its value
	// ("$SERVER is not set"); empty when text is the value.
	unknown string
	// env names the environment variable the word is the whole value of
	// ("$MODEL_ID", "${MODEL_ID:-default}" with MODEL_ID set), as the
	// process started with it; "" for any other word.
	env string
}

func knownFields(texts []string) []field {
	fields := make([]field, len(texts))
	for i, t := range texts {
		fields[i] = field{text: t}
	}
	return fields
}

// environNames are the fields' env, nil when none has one.
func environNames(fields []field) []string {
	if !slices.ContainsFunc(fields, func(f field) bool { return f.env != "" }) {
		return nil
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.env
	}
	return names
}

func texts(fields []field) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.text
	}
	return out
}

// runtimeOnly are variables the shell or the container runtime sets when
// the environment does not.
var runtimeOnly = map[string]bool{
	"HOME": true, "PWD": true, "OLDPWD": true, "HOSTNAME": true, "UID": true, "EUID": true, "PPID": true,
	"SHLVL": true, "BASHPID": true, "RANDOM": true, "SRANDOM": true, "SECONDS": true, "LINENO": true,
	"EPOCHSECONDS": true, "EPOCHREALTIME": true, "OPTIND": true, "OPTARG": true, "REPLY": true, "_": true,
}

// expandWords expands a command's words; usedArgs says whether they
// expand positional parameters.
func (f *follower) expandWords(fr frame, p *path, line int, words []*syntax.Word) (argv []field, usedArgs, ok bool) {
	for _, w := range words {
		fields, used := f.expandWord(fr, p, line, w)
		argv = append(argv, fields...)
		usedArgs = usedArgs || used
		if len(argv) > maxWords {
			return nil, usedArgs, false
		}
	}
	return argv, usedArgs, true
}

func (f *follower) expandWord(fr frame, p *path, line int, w *syntax.Word) ([]field, bool) {
	if len(w.Parts) == 1 {
		if dq, ok := w.Parts[0].(*syntax.DblQuoted); ok && onlyAllArgs(dq.Parts) {
			// Each argument stays its own word, as known as it is.
			return slices.Clone(p.args), true
		}
	}
	e := &expansion{f: f, fr: fr, p: p, line: line}
	e.parts(w.Parts, false)
	e.flush() // the last field, which may be the one past maxWords
	if e.unknown != "" {
		return []field{{text: fr.src.written(w), unknown: e.unknown}}, e.usedArgs
	}
	if len(e.fields) == 1 {
		e.fields[0].env = f.environName(fr, p, w, e.fields[0].text)
	}
	return e.fields, e.usedArgs
}

// environName is the environment variable a word expanded to text is the
// whole value of: "$NAME" or "${NAME}", quoted or not, or with a default
// (${NAME:-…}, ${NAME-…}) that was not taken, when the script did not set
// NAME itself; "" otherwise.
func (f *follower) environName(fr frame, p *path, w *syntax.Word, text string) string {
	parts := w.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return ""
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	if !ok || pe.Param == nil || !syntax.ValidName(pe.Param.Value) || pe.Excl || pe.Length || pe.Width || pe.IsSet ||
		pe.Names != 0 || pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.Flags != nil || pe.NestedParam != nil ||
		len(pe.Modifiers) > 0 {
		return ""
	}
	if pe.Exp != nil && pe.Exp.Op != syntax.DefaultUnset && pe.Exp.Op != syntax.DefaultUnsetOrNull {
		return ""
	}
	b, ok := f.variable(fr, p, pe.Param.Value)
	if !ok || !b.environ || b.unset || b.runtime != "" || b.value != text {
		return ""
	}
	return pe.Param.Value
}

// expandString expands a word to one string, as an assignment does: no
// field splitting, and "$@" joined with spaces.
func (f *follower) expandString(fr frame, p *path, line int, w *syntax.Word) (text, unknown string) {
	e := &expansion{f: f, fr: fr, p: p, line: line, joined: true}
	return e.join(w)
}

// sub is an expansion to one string inside this one, as deep as it is.
func (e *expansion) sub(pattern bool) *expansion {
	return &expansion{f: e.f, fr: e.fr, p: e.p, line: e.line, joined: true, pattern: pattern, depth: e.depth}
}

func (e *expansion) join(w *syntax.Word) (text, unknown string) {
	if w == nil {
		return "", ""
	}
	e.parts(w.Parts, false)
	return e.cur.String(), e.unknown
}

// expansion builds the fields of one word.
type expansion struct {
	f    *follower
	fr   frame
	p    *path
	line int
	// joined: build one string (assignments, patterns) instead of fields.
	joined bool
	// pattern: quoted text is quoted for pattern matching, unquoted text
	// keeps its pattern meaning.
	pattern bool

	fields []field
	cur    strings.Builder
	open   bool // the current field has begun, even if empty ("")
	depth  int

	// unknown says why the word cannot be expanded; once set, the rest of
	// the word is not looked at.
	unknown  string
	usedArgs bool
}

func (e *expansion) parts(parts []syntax.WordPart, quoted bool) {
	if e.depth >= maxNesting {
		e.unknown = fmt.Sprintf("a word nests deeper than %d expansions", maxNesting)
		return
	}
	e.depth++
	defer func() { e.depth-- }()
	for _, part := range parts {
		if e.unknown != "" {
			return
		}
		if !e.f.step(e.line, 1) {
			e.unknown = "the script is too long to follow"
			return
		}
		switch x := part.(type) {
		case *syntax.Lit:
			if e.pattern && !quoted {
				e.literal(x.Value) // a backslash escapes in the pattern itself
			} else {
				e.text(unescape(x.Value, quoted), quoted)
			}
		case *syntax.SglQuoted:
			value := x.Value
			if x.Dollar {
				value = ansiC(value)
			}
			e.text(value, true)
		case *syntax.DblQuoted:
			if !onlyAllArgs(x.Parts) {
				e.open = true // "" is an empty word, "$@" without arguments none
			}
			e.parts(x.Parts, true)
		case *syntax.ParamExp:
			e.param(x, quoted)
		case *syntax.CmdSubst:
			if x.Backquotes {
				e.unknown = "the command is built at run time (`…`)"
			} else {
				e.unknown = "the command is built at run time ($(…))"
			}
		case *syntax.ArithmExp:
			e.unknown = "the command is built at run time ($((…)))"
		case *syntax.ProcSubst:
			e.unknown = "the command is built at run time (" + x.Op.String() + "…))"
		case *syntax.ExtGlob, *syntax.BraceExp:
			e.literal(e.fr.src.written(x)) // patterns are left as written, like globs
		default:
			e.unknown = "the word uses syntax that is not followed"
		}
	}
}

// text adds text that is not split: literal or quoted.
func (e *expansion) text(s string, quoted bool) {
	if e.pattern && quoted {
		s = pattern.QuoteMeta(s, 0)
	}
	e.literal(s)
}

func (e *expansion) literal(s string) {
	if e.cur.Len()+len(s) > maxWordBytes {
		e.unknown = fmt.Sprintf("a word expands to more than %d bytes", maxWordBytes)
		return
	}
	e.f.step(e.line, len(s)>>8)
	e.cur.WriteString(s)
	e.open = true
}

// emit adds a parameter's value: as it is when quoted, field-split when not.
func (e *expansion) emit(value string, quoted bool) {
	if quoted || e.joined {
		e.text(value, quoted)
		return
	}
	if !e.f.step(e.line, len(value)>>4) {
		e.unknown = "the script is too long to follow"
		return
	}
	words := strings.FieldsFunc(value, isIFS)
	if value != "" && isIFS(rune(value[0])) {
		e.flush()
	}
	for i, w := range words {
		if i > 0 {
			e.flush()
		}
		if e.unknown != "" {
			return
		}
		e.literal(w)
	}
	if value != "" && isIFS(rune(value[len(value)-1])) {
		e.flush()
	}
}

func isIFS(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }

// flush ends the current field.
func (e *expansion) flush() {
	if e.joined || !e.open {
		return
	}
	if len(e.fields) >= maxWords {
		e.unknown = fmt.Sprintf("a word expands to more than %d words", maxWords)
		return
	}
	e.fields = append(e.fields, field{text: e.cur.String()})
	e.cur.Reset()
	e.open = false
}

// value is a parameter as the script knows it at one point.
type value struct {
	text string
	set  bool
	// absent: neither the script nor the environment sets it.
	absent bool
	// unknown: the value is only known at run time, and why.
	unknown string
}

func (e *expansion) value(name string) value {
	switch {
	case name == "#":
		return value{text: strconv.Itoa(len(e.p.args)), set: true}
	case name == "0":
		return value{text: e.p.name, set: true}
	case name[0] >= '1' && name[0] <= '9':
		e.usedArgs = true
		n, err := strconv.Atoi(name)
		if err != nil || n > len(e.p.args) {
			return value{}
		}
		arg := e.p.args[n-1]
		return value{text: arg.text, set: true, unknown: arg.unknown}
	case !syntax.ValidName(name):
		return value{unknown: "$" + name + " is only known at run time"}
	}
	b, ok := e.f.variable(e.fr, e.p, name)
	switch {
	case !ok && runtimeOnly[name]:
		return value{unknown: "$" + name + " is only known at run time"}
	case !ok:
		return value{absent: true}
	case b.unset:
		return value{}
	}
	return value{text: b.value, set: b.runtime == "", unknown: b.runtime}
}

func (e *expansion) param(pe *syntax.ParamExp, quoted bool) {
	if pe.Param == nil || pe.Param.Value == "" || pe.Excl || pe.Names != 0 || pe.Index != nil || pe.Slice != nil ||
		pe.Repl != nil || pe.Width || pe.IsSet || pe.Flags != nil || pe.NestedParam != nil || len(pe.Modifiers) > 0 {
		e.unknown = e.fr.src.written(pe) + " is not followed"
		return
	}
	name := pe.Param.Value
	if name == "@" || name == "*" {
		e.allArgs(pe, name, quoted)
		return
	}
	v := e.value(name)
	switch {
	case v.unknown != "":
		e.unknown = v.unknown
	case pe.Length:
		e.emit(strconv.Itoa(utf8.RuneCountInString(v.text)), quoted)
	case pe.Exp != nil:
		e.operator(pe, v, quoted)
	case v.absent:
		e.unknown = "$" + name + " is not set"
	default:
		e.emit(v.text, quoted)
	}
}

func (e *expansion) operator(pe *syntax.ParamExp, v value, quoted bool) {
	name, op, word := pe.Param.Value, pe.Exp.Op, pe.Exp.Word
	orNull := op == syntax.DefaultUnsetOrNull || op == syntax.AssignUnsetOrNull ||
		op == syntax.AlternateUnsetOrNull || op == syntax.ErrorUnsetOrNull
	empty := !v.set || orNull && v.text == ""
	switch op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
		if !empty {
			e.emit(v.text, quoted)
		} else if word != nil {
			e.parts(word.Parts, quoted)
		}
	case syntax.AssignUnset, syntax.AssignUnsetOrNull:
		if !empty {
			e.emit(v.text, quoted)
			return
		}
		if !syntax.ValidName(name) {
			e.unknown = e.fr.src.written(pe) + " is not followed"
			return
		}
		text, unknown := e.sub(false).join(word)
		e.f.assign(e.fr, e.p, name, text, unknown, false)
		if unknown != "" {
			e.unknown = unknown
			return
		}
		e.emit(text, quoted)
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		if !empty && word != nil {
			e.parts(word.Parts, quoted)
		}
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		if empty {
			e.unknown = "$" + name + " is not set"
			return
		}
		e.emit(v.text, quoted)
	case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		if v.absent {
			e.unknown = "$" + name + " is not set"
			return
		}
		pat, unknown := e.patternOf(word)
		if unknown != "" {
			e.unknown = unknown
			return
		}
		trimmed, ok := e.trim(v.text, pat, op)
		if !ok {
			e.unknown = e.fr.src.written(pe) + " is not followed"
			return
		}
		e.emit(trimmed, quoted)
	default:
		e.unknown = e.fr.src.written(pe) + " is not followed"
	}
}

func (e *expansion) allArgs(pe *syntax.ParamExp, name string, quoted bool) {
	e.usedArgs = true
	args := e.p.args
	if pe.Length {
		e.emit(strconv.Itoa(len(args)), quoted)
		return
	}
	if pe.Exp != nil {
		switch pe.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
			if len(args) == 0 {
				if pe.Exp.Word != nil {
					e.parts(pe.Exp.Word.Parts, quoted)
				}
				return
			}
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			if len(args) > 0 && pe.Exp.Word != nil {
				e.parts(pe.Exp.Word.Parts, quoted)
			}
			return
		default:
			e.unknown = e.fr.src.written(pe) + " is not followed"
			return
		}
	}
	for _, a := range args {
		if a.unknown != "" {
			e.unknown = a.unknown
			return
		}
	}
	switch {
	case quoted && name == "*" || e.joined:
		e.text(strings.Join(texts(args), " "), quoted)
	default:
		for i, a := range args {
			if i > 0 {
				e.flush()
			}
			if e.unknown != "" {
				return
			}
			e.emit(a.text, quoted)
		}
	}
}

// onlyAllArgs reports whether double-quoted parts are just "$@".
func onlyAllArgs(parts []syntax.WordPart) bool {
	if len(parts) != 1 {
		return false
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	return ok && pe.Param != nil && pe.Param.Value == "@" && pe.Exp == nil && !pe.Length && !pe.Excl &&
		pe.Index == nil && pe.Slice == nil && pe.Repl == nil && pe.Names == 0
}

// maxPatternBytes bounds the patterns of ${X#…} and ${X%…}, whose match
// costs their length times the value's.
const maxPatternBytes = 256

func (e *expansion) patternOf(w *syntax.Word) (string, string) {
	sub := e.sub(true)
	pat, unknown := sub.join(w)
	e.usedArgs = e.usedArgs || sub.usedArgs
	return pat, unknown
}

// trim removes the shortest or longest prefix or suffix matching pat.
func (e *expansion) trim(s, pat string, op syntax.ParExpOperator) (string, bool) {
	suffix := op == syntax.RemSmallSuffix || op == syntax.RemLargeSuffix
	shortest := op == syntax.RemSmallPrefix || op == syntax.RemSmallSuffix
	if !pattern.HasMeta(pat, 0) {
		lit := unescape(pat, false)
		if suffix {
			return strings.TrimSuffix(s, lit), true
		}
		return strings.TrimPrefix(s, lit), true
	}
	if len(pat) > maxPatternBytes || !e.f.step(e.line, len(s)*(len(pat)+1)>>2) {
		return "", false
	}
	var mode pattern.Mode
	if shortest && !suffix {
		mode = pattern.Shortest
	}
	expr, err := pattern.Regexp(pat, mode)
	if err != nil {
		return "", false
	}
	switch {
	case !suffix:
		expr = "^(" + expr + ")"
	case shortest:
		expr = "^(?s:.*)(" + expr + ")$" // the greedy lead leaves the shortest suffix
	default:
		expr = "(" + expr + ")$" // the leftmost match is the longest suffix
	}
	rx, err := regexp.Compile(expr)
	if err != nil {
		return "", false
	}
	loc := rx.FindStringSubmatchIndex(s)
	if loc == nil {
		return s, true
	}
	return s[:loc[2]] + s[loc[3]:], true
}

// unescape removes the backslashes of an unquoted or double-quoted literal.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && (!quoted || strings.IndexByte("$`\"\\\n", s[i+1]) >= 0) {
			i++
			if s[i] == '\n' {
				continue
			}
			c = s[i]
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ansiC decodes the backslash escapes of $'…'.
func ansiC(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		if s[0] != '\\' || len(s) == 1 {
			b.WriteByte(s[0])
			s = s[1:]
			continue
		}
		switch s[1] {
		case 'e', 'E':
			b.WriteByte(0x1b)
			s = s[2:]
			continue
		case '"', '?':
			b.WriteByte(s[1])
			s = s[2:]
			continue
		}
		r, multibyte, tail, err := strconv.UnquoteChar(s, '\'')
		switch {
		case err != nil:
			b.WriteByte('\\') // bash keeps an escape it does not know
			s = s[1:]
		case multibyte:
			b.WriteRune(r)
			s = tail
		default:
			b.WriteByte(byte(r))
			s = tail
		}
	}
	return b.String()
}
