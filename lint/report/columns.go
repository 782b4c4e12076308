package report

import (
	"bytes"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// writeColumns lays out a header and rows of cells, each cell already
// wrapped into lines, as borderless left-aligned columns: every column as
// wide as its widest line, one space either side. It is the layout the
// tablewriter table of newTable prints (TestColumnsMatchTablewriter checks
// that byte for byte), done in one pass: the library took seconds on the
// 40,000 findings of a 10,000-workload run.
func writeColumns(out *bytes.Buffer, header []string, rows [][]string) {
	widths := make([]int, len(header))
	for i, cell := range header {
		widths[i] = cellWidth(cell)
	}
	split := make([][][]string, len(rows))
	for r, row := range rows {
		split[r] = make([][]string, len(row))
		for i, cell := range row {
			split[r][i] = strings.Split(cell, "\n")
			widths[i] = max(widths[i], cellWidth(cell))
		}
	}
	writeColumnLines(out, [][]string{header}, widths)
	for _, cells := range split {
		height := 0
		for _, lines := range cells {
			height = max(height, len(lines))
		}
		lines := make([][]string, height)
		for l := range lines {
			lines[l] = make([]string, len(cells))
			for i, cellLines := range cells {
				if l < len(cellLines) {
					lines[l][i] = cellLines[l]
				}
			}
		}
		writeColumnLines(out, lines, widths)
	}
}

// writeColumnLines writes each line of cells padded to the widths.
func writeColumnLines(out *bytes.Buffer, lines [][]string, widths []int) {
	for l, cells := range lines {
		if l > 0 && allEmpty(cells) {
			continue // as the library, which prints a row's first line always, its other lines unless empty in every column
		}
		for i, cell := range cells {
			out.WriteByte(' ')
			out.WriteString(cell)
			for pad := widths[i] - displayWidth(cell); pad > 0; pad-- {
				out.WriteByte(' ')
			}
			out.WriteByte(' ')
		}
		out.WriteByte('\n')
	}
}

func allEmpty(cells []string) bool {
	for _, cell := range cells {
		if cell != "" {
			return false
		}
	}
	return true
}

// cellWidth is the width of a cell's widest line.
func cellWidth(cell string) int {
	width := 0
	for line := range strings.SplitSeq(cell, "\n") {
		width = max(width, displayWidth(line))
	}
	return width
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
