package report

import (
	"bytes"
	"io"
	"unicode"
)

// lineGuard passes a format's output through, escaping the first colon
// (\x3a, as message.Escape writes) of every line that starts "::" once its
// leading white space is trimmed: the GitHub Actions runner reads such a
// line of a step's output as a workflow command. The formats lay names and
// messages out in lines (a table wraps them, a suggestion block starts its
// lines with a file's text), so escaping the strings alone cannot keep a
// line from starting with "::"; the github format's own commands do not
// pass through it. It holds at most one partial line.
type lineGuard struct {
	w       io.Writer
	partial []byte
}

func (g *lineGuard) Write(p []byte) (int, error) {
	written := len(p)
	if len(g.partial) > 0 {
		end := bytes.IndexByte(p, '\n')
		if end < 0 {
			g.partial = append(g.partial, p...)
			return written, nil
		}
		g.partial = append(g.partial, p[:end+1]...)
		if err := g.writeLines(g.partial); err != nil {
			return 0, err
		}
		g.partial, p = g.partial[:0], p[end+1:]
	}
	whole := bytes.LastIndexByte(p, '\n') + 1
	if err := g.writeLines(p[:whole]); err != nil {
		return 0, err
	}
	g.partial = append(g.partial, p[whole:]...)
	return written, nil
}

// Flush writes the last line when it has no line end.
func (g *lineGuard) Flush() error {
	err := g.writeLines(g.partial)
	g.partial = g.partial[:0]
	return err
}

// writeLines writes text, whole lines, escaping where a line would start a
// command; text without such a line in one write.
func (g *lineGuard) writeLines(text []byte) error {
	if !bytes.Contains(text, []byte("::")) {
		_, err := g.w.Write(text) // no line can start a command
		return err
	}
	written := 0
	for start := 0; start < len(text); {
		line, next := text[start:], len(text)
		if end := bytes.IndexByte(line, '\n'); end >= 0 {
			line, next = line[:end], start+end+1
		}
		if trimmed := bytes.TrimLeftFunc(line, unicode.IsSpace); bytes.HasPrefix(trimmed, []byte("::")) {
			command := start + len(line) - len(trimmed)
			if _, err := g.w.Write(text[written:command]); err != nil {
				return err
			}
			if _, err := io.WriteString(g.w, `\x3a`); err != nil {
				return err
			}
			written = command + 1
		}
		start = next
	}
	_, err := g.w.Write(text[written:])
	return err
}
