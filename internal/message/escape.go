package message

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape makes text safe to print where a terminal, a CI runner or a
// review page reads it: a name from an untrusted tree may hold an escape
// sequence that recolours or rewrites the terminal, a line break that
// starts a forged workflow command, or a bidi override that shows the text
// in another order. Every C0 control (tab and line breaks among them), DEL,
// every C1 control, the bidi embeddings, overrides and isolates
// (U+202A–U+202E, U+2066–U+2069), the line and paragraph separators and
// any byte that is not UTF-8 are written Go-style: \x1b, \t, \n, \u0085,
// \u202e, \xff; so is the second # of "##[", which the GitHub Actions
// runner reads as a (legacy) workflow command anywhere in a line of a
// step's output: #\x23[. Everything else, backslashes included, is kept:
// the result is for reading, not for decoding. Text with nothing to escape
// is returned as it is, without allocating.
func Escape(text string) string { return escape(text, false) }

// EscapeLines is Escape keeping the line breaks (\n) of a text that is
// meant to be several lines, such as the YAML a fix suggests.
func EscapeLines(text string) string { return escape(text, true) }

func escape(text string, keepLines bool) string {
	first := firstUnsafe(text, keepLines)
	if first < 0 {
		return text
	}
	var out strings.Builder
	out.Grow(len(text) + 16)
	out.WriteString(text[:first])
	for i := first; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isLegacyCommand(text, i):
			out.WriteString(`#\x23`)
			size = 2
		case r == utf8.RuneError && size == 1:
			out.WriteString(`\x`)
			out.WriteByte(hexDigits[text[i]>>4])
			out.WriteByte(hexDigits[text[i]&0xf])
		case unsafeRune(r) && !(keepLines && r == '\n'):
			quoted := strconv.QuoteRune(r) // '\x1b', '\n', '\u202e'
			out.WriteString(quoted[1 : len(quoted)-1])
		default:
			out.WriteString(text[i : i+size])
		}
		i += size
	}
	return out.String()
}

const hexDigits = "0123456789abcdef"

// isLegacyCommand reports whether text starts "##[" at i.
func isLegacyCommand(text string, i int) bool {
	return text[i] == '#' && strings.HasPrefix(text[i:], "##[")
}

// firstUnsafe is the index of the first byte Escape rewrites, -1 when none.
// Reports escape every name and message they print, nearly all printable
// ASCII: eight bytes of it are passed over at a time.
func firstUnsafe(text string, keepLines bool) int {
	for i := 0; i < len(text); {
		if i+8 <= len(text) && plainWord(text[i:i+8]) {
			i += 8
			continue
		}
		c := text[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(keepLines && c == '\n') || isLegacyCommand(text, i) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// plainWord reports whether eight bytes are printable ASCII without a
// '#' (which may start "##["); it may say false of some that are.
func plainWord(word string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := uint64(word[0]) | uint64(word[1])<<8 | uint64(word[2])<<16 | uint64(word[3])<<24 |
		uint64(word[4])<<32 | uint64(word[5])<<40 | uint64(word[6])<<48 | uint64(word[7])<<56
	hasZero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	below := (x - 0x20*ones) & ^x & highs // a byte below 0x20 (or a false alarm past 0x7f)
	return x&highs|below|hasZero(x^0x7f*ones)|hasZero(x^'#'*ones) == 0
}

// unsafeRune reports whether a terminal, a log or a page acts on r
// instead of showing it.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true // C0, DEL, C1
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidi embeddings, overrides and isolates
	case r == 0x2028, r == 0x2029:
		return true // line and paragraph separators
	}
	return false
}
