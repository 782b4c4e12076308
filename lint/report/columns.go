package report

import (
	"bytes"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
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
	// Each row as its lines, each line a cell per column with its width.
	type cellLine struct {
		text  string
		width int
	}
	widths := make([]int, len(header))
	table := make([][][]cellLine, 0, len(rows)+1)
	for _, row := range append([][]string{header}, rows...) {
		var lines [][]cellLine
		for column, cell := range row {
			for l, text := range strings.Split(cell, "\n") {
				for len(lines) <= l {
					lines = append(lines, make([]cellLine, len(header)))
				}
				lines[l][column] = cellLine{text, displayWidth(text)}
				widths[column] = max(widths[column], lines[l][column].width)
			}
		}
		table = append(table, lines)
	}
	if !withHeader {
		table = table[1:]
	}
	for _, lines := range table {
		for l, cells := range lines {
			if l > 0 && !slices.ContainsFunc(cells, func(cell cellLine) bool { return cell.text != "" }) {
				continue // as the library, which prints a row's first line always, its other lines unless empty in every column
			}
			for column, cell := range cells {
				out.WriteByte(' ')
				out.WriteString(cell.text)
				for pad := widths[column] - cell.width; pad > 0; pad-- {
					out.WriteByte(' ')
				}
				out.WriteByte(' ')
			}
			out.WriteByte('\n')
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
			return twwidth.WidthWithOptions(text, twwidth.Options{})
		}
	}
	return len(text)
}
