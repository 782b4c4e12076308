// Package message keeps what modellint says about bad input readable
// whatever the input holds: a value is quoted at most MaxQuoted bytes of
// it, an error is one line of at most about MaxLine bytes, and control
// characters are escaped before they are printed. Any package may import it.
package message

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	// MaxQuoted bounds the part of a value an error quotes: enough to
	// recognise it, where a hostile config or manifest value may be megabytes.
	MaxQuoted = 80
	// MaxLine bounds an error line: its start names the input, its end
	// says what went wrong, and a chart's include recursion or a library's
	// message quoting a whole document would otherwise run to megabytes.
	MaxLine = 1024
	// MaxFinding bounds a finding's message, which explains the failure
	// and the fix at more length than an error (the longest are ~800
	// bytes) but may quote a manifest's value too.
	MaxFinding = 2048
)

// Quote quotes value for a message, Go-style, at most MaxQuoted bytes of
// it (never cutting a character), with a count of what was left out.
func Quote(value string) string {
	if len(value) <= MaxQuoted {
		return strconv.Quote(value)
	}
	cut := MaxQuoted
	for cut > 0 && !utf8.RuneStart(value[cut]) {
		cut--
	}
	return strconv.Quote(value[:cut]) + fmt.Sprintf("… (%d more bytes)", len(value)-cut)
}

// Line makes text one line (runs of white space, newlines among them,
// become one space) of at most about MaxLine bytes (see Cap), its other
// control characters escaped (see Escape): it is printed as it is.
func Line(text string) string {
	return Cap(Escape(strings.Join(strings.Fields(text), " ")), MaxLine)
}

// Cap bounds text to about limit bytes: past that, its start (six tenths
// of limit, which names the input) and its end (three tenths, which says
// what went wrong) are kept around a count of the bytes left out, never
// cutting a character.
func Cap(text string, limit int) string {
	if len(text) <= limit {
		return text
	}
	head, tail := limit*6/10, limit*3/10
	for head > 0 && !utf8.RuneStart(text[head]) {
		head--
	}
	start := len(text) - tail
	for start < len(text) && !utf8.RuneStart(text[start]) {
		start++
	}
	return fmt.Sprintf("%s … (%d bytes left out) … %s", text[:head], start-head, text[start:])
}

// Lines is an io.Writer for a library's log output: it keeps the first
// Limit lines (0: DefaultLines), each made one bounded Line, and counts the
// rest, holding at most one partial line of at most MaxLine bytes.
type Lines struct {
	Limit   int
	kept    []string
	dropped int
	partial []byte
	extra   int // bytes of the partial line past what it keeps
}

// DefaultLines is how many lines a Lines keeps unless told.
const DefaultLines = 20

func (l *Lines) Write(p []byte) (int, error) {
	written := len(p)
	for len(p) > 0 {
		end := bytes.IndexByte(p, '\n')
		chunk := p
		if end >= 0 {
			chunk = p[:end]
		}
		keep := min(max(MaxLine-len(l.partial), 0), len(chunk))
		l.partial = append(l.partial, chunk[:keep]...)
		l.extra += len(chunk) - keep
		if end < 0 {
			break
		}
		l.finish()
		p = p[end+1:]
	}
	return written, nil
}

func (l *Lines) finish() {
	line := Line(string(l.partial))
	if l.extra > 0 {
		line += fmt.Sprintf(" … (%d more bytes)", l.extra)
	}
	l.partial, l.extra = l.partial[:0], 0
	if line == "" {
		return
	}
	limit := l.Limit
	if limit <= 0 {
		limit = DefaultLines
	}
	if len(l.kept) < limit {
		l.kept = append(l.kept, line)
	} else {
		l.dropped++
	}
}

// Lines returns the lines kept, a last partial line among them, and a
// count of the ones left out as a last line when there are any.
func (l *Lines) Lines() []string {
	if len(l.partial) > 0 || l.extra > 0 {
		l.finish()
	}
	lines := append([]string(nil), l.kept...)
	if l.dropped > 0 {
		lines = append(lines, fmt.Sprintf("… and %d more lines", l.dropped))
	}
	return lines
}

// Bytes writes a size the way people read it: 2.4 GiB, 512 KiB, 20 B.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	value, exp := float64(n)/unit, 0
	for value >= unit && exp < 5 {
		value /= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", value, "KMGTPE"[exp])
}
