package helm

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/modellint/modellint/internal/lazyregexp"
)

// Go templates copy the text outside actions verbatim, through range, if,
// with, include and indent. So a chart is rendered a second time with a mark
// at the end of every template line; a line of that output carries the mark
// of the template line that wrote it, or is followed by the mark of the line
// whose action generated it (toYaml, include). The marked output has the same
// lines as the real one, which is what lets the marks be trusted.

// markPattern matches one mark: template file number and line, then the
// key of the element of each range over values the line is in, as
// "@OFFSET=" and the key in base64 JSON (see markTemplateKeys).
var markPattern = lazyregexp.New(`⟦(\d+):(\d+)((?:@\d+=[A-Za-z0-9+/=]*)*)⟧`)

func mark(file, line int) string {
	return "⟦" + strconv.Itoa(file) + ":" + strconv.Itoa(line) + "⟧"
}

// markInRanges is a line's mark inside ranges over values: the template
// writes each enclosing range's key into it. A key is cut at maxMarkKey
// bytes, so a map with long keys cannot swell the marked render past the
// renderer's memory bound; a cut key is no JSON, and the element unknown.
func markInRanges(file, line int, ranges []openRange) string {
	var b strings.Builder
	b.WriteString("⟦" + strconv.Itoa(file) + ":" + strconv.Itoa(line))
	for _, r := range ranges {
		if r.key != "" && !r.inElse {
			b.WriteString("@" + strconv.Itoa(r.offset) + "={{ " + r.key + " | toJson | trunc " + strconv.Itoa(maxMarkKey) + " | b64enc }}")
		}
	}
	b.WriteString("⟧")
	return b.String()
}

const maxMarkKey = 64

// openRange is a control structure the marking is inside: for a range over
// values, its key variable and where its pipeline starts. In a range's else
// the key variable holds the whole pipeline, so it is not written.
type openRange struct {
	key    string
	offset int
	inElse bool
}

// controlWord is the keyword an action starts with ("range", "end", "else"),
// "" for any other action and for comments.
func controlWord(action string) string {
	inner := strings.TrimPrefix(action, "{{")
	if len(inner) >= 2 && inner[0] == '-' && isSpace(inner[1]) {
		inner = inner[1:]
	}
	inner = strings.TrimLeft(inner, " \t\r\n")
	end := 0
	for end < len(inner) && inner[end] >= 'a' && inner[end] <= 'z' {
		end++
	}
	return inner[:end]
}

// segment is a run of template text, or one action or comment ({{ ... }}).
type segment struct {
	text      string
	action    bool
	trimRight bool // the action ends with "-}}", which eats the whitespace after it
}

// scanTemplate splits template source into text and actions, following the
// lexer of text/template: strings and raw strings inside actions may hold
// "}}", comments are /* */ right inside the delimiters.
func scanTemplate(source string) []segment {
	var segments []segment
	for len(source) > 0 {
		start := strings.Index(source, "{{")
		if start < 0 {
			segments = append(segments, segment{text: source})
			break
		}
		if start > 0 {
			segments = append(segments, segment{text: source[:start]})
		}
		end := actionEnd(source, start)
		action := source[start:end]
		trimRight := strings.HasSuffix(action, "-}}") && len(action) >= 5 && isSpace(action[len(action)-4])
		segments = append(segments, segment{text: action, action: true, trimRight: trimRight})
		source = source[end:]
	}
	return segments
}

// actionEnd returns the offset just past the "}}" closing the action that
// starts at start, or the end of source for an unterminated one.
func actionEnd(source string, start int) int {
	i := start + 2
	inner := source[i:]
	if len(inner) >= 2 && inner[0] == '-' && isSpace(inner[1]) {
		inner = strings.TrimLeft(inner[1:], " \t\r\n")
	}
	if strings.HasPrefix(inner, "/*") {
		commentStart := len(source) - len(inner)
		if close := strings.Index(source[commentStart:], "*/"); close >= 0 {
			if end := strings.Index(source[commentStart+close:], "}}"); end >= 0 {
				return commentStart + close + end + 2
			}
		}
		return len(source)
	}
	for i < len(source) {
		switch source[i] {
		case '"', '\'':
			quote := source[i]
			for i++; i < len(source) && source[i] != quote && source[i] != '\n'; i++ {
				if source[i] == '\\' {
					i++
				}
			}
			i++
		case '`':
			if end := strings.IndexByte(source[i+1:], '`'); end >= 0 {
				i += end + 2
			} else {
				return len(source)
			}
		case '}':
			if strings.HasPrefix(source[i:], "}}") {
				return i + 2
			}
			i++
		default:
			i++
		}
	}
	return len(source)
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// trimLeft reports whether an action starts with "{{- ", which eats the
// whitespace before it.
func (s segment) trimLeft() bool {
	return s.action && len(s.text) >= 4 && s.text[2] == '-' && isSpace(s.text[3])
}

// markTemplate appends the mark of file's line to every line end that is
// template text, and to the end of a last line without one. Line ends
// inside an action or comment, and those a "-}}" eats, get none: marking
// them would change the output's lines.
func markTemplate(source string, file int) string {
	return markTemplateKeys(source, file, nil)
}

// markTemplateKeys is markTemplate that also has each range over values
// (ranges, by the offset of its pipeline; see valueActions) declare a key
// variable, and the marks of the lines inside it carry the key: which
// element a rendered line was written for.
func markTemplateKeys(source string, file int, ranges map[int]rangeKey) string {
	var marked strings.Builder
	marked.Grow(len(source) + len(source)/4)
	line := 1
	eaten := false // only whitespace since an action ending in "-}}"
	segments := scanTemplate(source)
	var open []openRange
	markLine := func(file, line int) string {
		if len(ranges) == 0 {
			return mark(file, line)
		}
		return markInRanges(file, line, open)
	}
	offset := 0
	for i, seg := range segments {
		start := offset
		offset += len(seg.text)
		if seg.action {
			text := seg.text
			switch controlWord(text) {
			case "range":
				r := openRange{}
				for at, key := range ranges {
					if at > start && at < offset {
						text = text[:at-start] + key.declare + text[at-start:]
						r = openRange{key: key.variable, offset: at}
					}
				}
				open = append(open, r)
			case "if", "with", "define", "block":
				open = append(open, openRange{})
			case "else":
				if len(open) > 0 {
					open[len(open)-1].inElse = true
				}
			case "end":
				if len(open) > 0 {
					open = open[:len(open)-1]
				}
			}
			marked.WriteString(text)
			line += strings.Count(seg.text, "\n")
			eaten = seg.trimRight
			continue
		}
		text := seg.text
		// The whitespace before a "{{-" is eaten too, across any number of
		// line ends. The first of them keeps its mark (the mark ends up
		// right after the line's text, as the trim leaves it); a mark on a
		// later one would stop the trim and keep a line the real output
		// does not have.
		keep := len(text)
		if i+1 < len(segments) && segments[i+1].trimLeft() {
			tail := len(strings.TrimRight(text, " \t\r\n"))
			if first := strings.IndexByte(text[tail:], '\n'); first >= 0 {
				keep = tail + first + 1
			}
		}
		for {
			newline := strings.IndexByte(text, '\n')
			if newline < 0 {
				break
			}
			before := text[:newline]
			if strings.TrimSpace(before) != "" {
				eaten = false
			}
			trimmed := len(seg.text)-len(text)+newline >= keep
			if !eaten && !trimmed {
				cr := strings.HasSuffix(before, "\r")
				marked.WriteString(strings.TrimSuffix(before, "\r"))
				marked.WriteString(markLine(file, line))
				if cr {
					marked.WriteByte('\r')
				}
			} else {
				marked.WriteString(before)
			}
			marked.WriteByte('\n')
			line++
			text = text[newline+1:]
		}
		if strings.TrimSpace(text) != "" {
			eaten = false
		}
		marked.WriteString(text)
	}
	if source != "" && !strings.HasSuffix(source, "\n") && !eaten {
		// A last line without a line end is marked at the end of the
		// source: text there is output once, after everything else.
		marked.WriteString(markLine(file, line))
	}
	return marked.String()
}

// literalLines returns, per 1-based template line, the template's text on it
// outside actions and comments: what the line writes by itself.
func literalLines(source string) []string {
	lines := []string{""}
	for _, seg := range scanTemplate(source) {
		if seg.action {
			for range strings.Count(seg.text, "\n") {
				lines = append(lines, "")
			}
			continue
		}
		parts := strings.Split(seg.text, "\n")
		lines[len(lines)-1] += parts[0]
		lines = append(lines, parts[1:]...)
	}
	return append([]string{""}, lines...) // index 0 unused: lines are 1-based
}

// lineOrigin says which template line wrote one line of rendered output.
type lineOrigin struct {
	file int // index of the template file; -1 when unknown
	line int
	// generated is true when an action on the template line (toYaml, include)
	// wrote the text, rather than the line's own text.
	generated bool
	// run numbers the group of output lines one template line accounts for:
	// the lines its action generated, ending with the one carrying its mark.
	run int
	// lastFile and lastLine are the last mark of a line that carries
	// several: a helper's last line ends with the helper's mark, then the
	// mark of the template line that included it. lastFile is -1 otherwise.
	lastFile, lastLine int
	// keys are the keys of the elements the line was written for, by the
	// offset of their range's pipeline (see resolveElements).
	keys map[int]any
	// secondFile and secondKeys are the line's second mark, -1 for none: on
	// a helper's last line, the including line's mark (a mark after it may
	// start the range's next element).
	secondFile int
	secondKeys map[int]any
}

// rangeKeys reads the keys of a mark ("@17=MA==@40=ImEi").
func rangeKeys(text string) map[int]any {
	if text == "" {
		return nil
	}
	keys := map[int]any{}
	for _, part := range strings.Split(text[1:], "@") {
		offset, encoded, _ := strings.Cut(part, "=")
		at, err := strconv.Atoi(offset)
		if err != nil {
			continue
		}
		decoded, err := base64.StdEncoding.DecodeString(encoded)
		var key any
		if err != nil || json.Unmarshal(decoded, &key) != nil {
			continue
		}
		keys[at] = key
	}
	return keys
}

// readMarks attributes every line of a render to a template line, from the
// marked render of the same chart. literal reports whether a template line
// has text of its own. A mark in a helper's output that a template tests
// ({{ if $warning }}, eq, len) can change what renders, so the marked output
// without its marks is compared with the real one: when they differ, the
// lines are aligned by content, and the origins are trusted only when at
// least minAligned of the real lines found their marked twin. It returns nil
// when they are not.
func readMarks(marked, real string, literal func(file, line int) bool) []lineOrigin {
	origins := markOrigins(marked, literal)
	stripped := markPattern.ReplaceAllLiteralString(marked, "")
	if stripped == real {
		return origins
	}
	return alignOrigins(origins, strings.Split(stripped, "\n"), strings.Split(real, "\n"))
}

// minAligned is the share of real lines that must match a marked line.
const minAligned = 0.95

// alignOrigins maps the origins of the marked lines onto the real lines by
// the longest matching runs of equal lines; a real line with no twin takes
// the origin of the line before it, as a line it generated.
func alignOrigins(origins []lineOrigin, marked, real []string) []lineOrigin {
	matcher := difflib.NewMatcher(real, marked)
	aligned := make([]lineOrigin, len(real))
	matched := make([]bool, len(real))
	count := 0
	for _, block := range matcher.GetMatchingBlocks() {
		for k := range block.Size {
			aligned[block.A+k] = origins[block.B+k]
			matched[block.A+k] = true
		}
		count += block.Size
	}
	if float64(count) < minAligned*float64(len(real)) {
		return nil
	}
	previous := lineOrigin{file: -1, lastFile: -1, secondFile: -1}
	for i := range aligned {
		if matched[i] {
			previous = aligned[i]
			continue
		}
		aligned[i] = previous
		aligned[i].generated = true
	}
	return aligned
}

// markOrigins attributes every line of a marked render to the template line
// whose mark ends it, or the next mark after it.
func markOrigins(marked string, literal func(file, line int) bool) []lineOrigin {
	lines := strings.Split(marked, "\n")
	type found struct {
		file, line int
		keys       map[int]any
	}
	own := make([]*found, len(lines))
	second := make([]*found, len(lines))
	last := make([]*found, len(lines))
	for i, text := range lines {
		marks := markPattern.FindAllStringSubmatch(text, -1)
		for j, m := range marks {
			file, _ := strconv.Atoi(m[1])
			line, _ := strconv.Atoi(m[2])
			if j == 1 {
				second[i] = &found{file, line, rangeKeys(m[3])}
			}
			switch j {
			case 0:
				own[i] = &found{file, line, rangeKeys(m[3])}
			case len(marks) - 1:
				last[i] = &found{file: file, line: line}
			}
		}
	}
	origins := make([]lineOrigin, len(lines))
	next := &found{file: -1}
	for i := len(lines) - 1; i >= 0; i-- {
		if own[i] != nil {
			next = own[i]
		}
		origins[i] = lineOrigin{file: next.file, line: next.line, keys: next.keys}
	}
	run := 0
	first := true
	for i := range origins {
		origins[i].lastFile = -1
		if last[i] != nil {
			origins[i].lastFile, origins[i].lastLine = last[i].file, last[i].line
		}
		origins[i].secondFile = -1
		if second[i] != nil {
			origins[i].secondFile, origins[i].secondKeys = second[i].file, second[i].keys
		}
		origins[i].run = run
		origins[i].generated = !first || origins[i].file < 0 || !literal(origins[i].file, origins[i].line)
		first = own[i] != nil
		if first {
			run++
		}
	}
	return origins
}
