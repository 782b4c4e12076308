package report

import (
	"bytes"
	"strings"

	"github.com/clipperhouse/displaywidth"

	"github.com/modellint/modellint/internal/lazyregexp"
)

// writeColumns lays out a header and rows of cells, each cell already
// wrapped into lines, as borderless left-aligned columns: every column as
// wide as its widest line, one space either side. It is the layout of the
// borderless tablewriter table the reports printed before
// (TestColumnsMatchTablewriter checks it byte for byte), done in one pass:
// the library took seconds on the 40,000 findings of a 10,000-workload run.
func writeColumns(out *bytes.Buffer, header []string, rows [][]string) {
	writeColumnRows(out, header, rows, true)
}

// writeColumnRows lays rows out as writeColumns does, every column at least
// as wide as header's, and writes the header line first when withHeader: a
// table written in parts, whose widths the header holds, is the same bytes
// as written whole.
func writeColumnRows(out *bytes.Buffer, header []string, rows [][]string, withHeader bool) {
	if len(header) == 0 {
		return
	}
	// The widths of the columns before the last (the last is not padded),
	// and the size of the text, read off the cells' lines; the lines are
	// cut again as they are written rather than kept, as a large table's
	// lines were much of a run's allocation.
	last := len(header) - 1
	widths := make([]int, len(header))
	lines, lastBytes := 0, 0
	for i := -1; i < len(rows); i++ {
		row := header
		if i >= 0 {
			row = rows[i]
		}
		height := 0
		for column, cell := range row {
			height = max(height, strings.Count(cell, "\n")+1)
			if column == last {
				continue
			}
			for text := range strings.SplitSeq(cell, "\n") {
				widths[column] = max(widths[column], displayWidth(text))
			}
		}
		if i >= 0 || withHeader {
			lines += height
			lastBytes += len(row[last])
		}
	}
	lineWidth := 2 // the last column's leading space and the newline
	for _, width := range widths[:last] {
		lineWidth += width + 2
	}
	// Sized once: every line is as wide as the columns before the last and
	// their spaces, then the last column's text. Its padding is not
	// written, as every caller trims the spaces that end a line.
	out.Grow(lines*lineWidth + lastBytes)
	rest := make([]string, len(header))
	texts := make([]string, len(header))
	first := 0
	if withHeader {
		first = -1
	}
	for i := first; i < len(rows); i++ {
		row := header
		if i >= 0 {
			row = rows[i]
		}
		copy(rest, row)
		for l := 0; ; l++ {
			more, written := false, false
			for column := range rest {
				var next bool
				texts[column], rest[column], next = strings.Cut(rest[column], "\n")
				more = more || next
				written = written || texts[column] != ""
				if !next {
					rest[column] = ""
				}
			}
			// As the library, which prints a row's first line always, its
			// other lines unless empty in every column.
			if l == 0 || written {
				for column, text := range texts[:last] {
					out.WriteByte(' ')
					out.WriteString(text)
					for pad := widths[column] - displayWidth(text); pad > 0; pad-- {
						out.WriteByte(' ')
					}
					out.WriteByte(' ')
				}
				out.WriteByte(' ')
				out.WriteString(texts[last])
				out.WriteByte('\n')
			}
			if !more {
				break
			}
		}
	}
}

// displayWidth is the terminal width of text: its printable ASCII one
// column a byte, anything else (ANSI escapes, wide and combining
// characters, tabs) measured by the table library's rules, with East Asian
// ambiguous characters narrow in every locale so the layout does not
// depend on the environment.
func displayWidth(text string) int {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < 0x20 || c >= 0x7f {
			return runeWidths(text)
		}
	}
	return len(text)
}

// ansiEscape matches the escape sequences the table library strips before
// measuring: CSI (colours) and OSC (links) sequences.
var ansiEscape = lazyregexp.New(`(\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\x1b\].*?(\x1b\\|\x07))`)

// tabWidth is the columns a tab takes, the table library's default.
const tabWidth = 8

// runeWidths measures text as the table library's twwidth.WidthWithOptions
// does with East Asian width off (TestWidthsMatchTablewriter): escape
// sequences stripped, then each rune's width by displaywidth, the library
// it uses. It is not called because its package init allocates a 650 KB
// cache every start would pay for, and it takes a tab's width from the
// environment (TABWIDTH, an .editorconfig), where this is 8 always.
func runeWidths(text string) int {
	if strings.IndexByte(text, '\x1b') >= 0 {
		text = ansiEscape.ReplaceAllLiteralString(text, "")
	}
	width := 0
	for _, r := range text {
		if r == '\t' {
			width += tabWidth
		} else {
			width += displaywidth.Options{}.Rune(r)
		}
	}
	return width
}
