package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/modellint/modellint/internal/parallel"
	"github.com/modellint/modellint/lint"
)

// DefaultWidth is the width tables are laid out for when the caller gives
// none (CI logs); wider messages wrap.
const DefaultWidth = 120

// width is the layout width the options ask for.
func (o Options) width() int {
	if o.Width > 0 {
		return o.Width
	}
	return DefaultWidth
}

// minMessageWidth keeps the message column readable when the other columns
// are wide.
const minMessageWidth = 30

// ANSI escapes, used only when Options.Color is set.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

type painter struct{ enabled bool }

func (p painter) paint(style, text string) string {
	if !p.enabled || text == "" {
		return text
	}
	return style + text + ansiReset
}

func (p painter) severity(severity lint.Severity) string {
	switch severity {
	case lint.Error:
		return p.paint(ansiRed, severity.String())
	case lint.Warning:
		return p.paint(ansiYellow, severity.String())
	}
	return p.paint(ansiCyan, severity.String())
}

func writeTable(w io.Writer, result *lint.Result, options Options) error {
	paint := painter{enabled: options.Color}
	// Each file's table is written out once laid out: the output of a large
	// run is tens of MB, not worth holding whole.
	output := bufio.NewWriter(w)

	// One read of the findings for the column widths and the summary's
	// counts: a large run makes them again at each read.
	var c counts
	layout := newFindingLayout(func(yield func(lint.Finding) bool) {
		for finding := range result.EachFinding() {
			c.add(finding)
			if !yield(finding) {
				return
			}
		}
	}, options.width())
	c.addSkipped(result)
	// A part's files have no findings in another part (see
	// lint.Result.SetParts), so each part's tables are whole.
	for findings := range result.FindingParts() {
		writeFileTables(output, fileGroups(findings), layout, paint)
	}
	// Which model dir each server was linked to decides what the cross
	// checks compared, so it is always shown. One per server container:
	// wrapped on every CPU, a batch at a time.
	linked := false
	for links := range result.LinkParts() {
		if !linked {
			output.WriteString(paint.paint(ansiBold, "Model links") + "\n")
			linked = true
		}
		for start := 0; start < len(links); start += linkBatch {
			for _, lines := range parallel.Map(links[start:min(start+linkBatch, len(links))], func(link string) []byte {
				var wrapped []byte
				for i, line := range wrapWords(link, options.width()-4) {
					indent := "  "
					if i > 0 {
						indent = "    "
					}
					wrapped = append(append(append(wrapped, indent...), line...), '\n')
				}
				return trimTrailingSpace(wrapped)
			}) {
				output.Write(lines)
			}
		}
	}
	if linked {
		output.WriteString("\n")
	}
	var out bytes.Buffer
	if options.Verbose {
		writeVerbose(&out, result, options.width())
	}
	out.WriteString(summaryLine(result, c) + "\n")
	if line := fixableLine(c); line != "" {
		out.WriteString(line + "\n")
	}
	output.Write(trimTrailingSpace(out.Bytes()))
	return output.Flush()
}

// writeFileTables writes the table of each group of a file's findings.
func writeFileTables(output *bufio.Writer, groups [][]lint.Finding, layout findingLayout, paint painter) {
	var pieces []tablePiece
	for _, findings := range groups {
		for start := 0; start < len(findings); start += pieceFindings {
			end := min(start+pieceFindings, len(findings))
			pieces = append(pieces, tablePiece{findings: findings[start:end], first: start == 0, last: end == len(findings)})
		}
	}
	// The pieces are laid out on every CPU, a batch at a time (and a
	// piece's rows on every CPU again, see renderFindings).
	for start := 0; start < len(pieces); start += tableBatch {
		batch := pieces[start:min(start+tableBatch, len(pieces))]
		for _, table := range parallel.Map(batch, func(piece tablePiece) []byte {
			var table bytes.Buffer
			if piece.first {
				table.WriteString(paint.paint(ansiBold, piece.findings[0].Location.File) + "\n")
			}
			renderFindings(&table, piece.findings, layout, paint, piece.first)
			if piece.last {
				table.WriteString("\n")
			}
			return trimTrailingSpace(table.Bytes())
		}) {
			output.Write(table)
		}
	}
}

// tablePiece is the findings of a file, or a run of them when the file has
// more than pieceFindings (one stream of 100,000 objects has 100,000
// findings): a file's table is written a piece at a time, never held whole.
type tablePiece struct {
	findings []lint.Finding
	// first and last say the piece starts the file's table (its name and
	// the header) or ends it.
	first, last bool
}

// fileGroups are the unsuppressed findings of each file, in the order the
// findings name the files. A sorted result holds a file's findings side
// by side, so a group is a part of findings, not a copy of a large run's,
// unless suppressed ones are among them.
func fileGroups(findings []lint.Finding) [][]lint.Finding {
	var groups [][]lint.Finding
	groupOf := map[string]int{}
	for start := 0; start < len(findings); {
		file := findings[start].Location.File
		end := start + 1
		for end < len(findings) && findings[end].Location.File == file {
			end++
		}
		run := findings[start:end]
		if slices.ContainsFunc(run, func(f lint.Finding) bool { return f.Suppressed() }) {
			run = slices.DeleteFunc(slices.Clone(run), func(f lint.Finding) bool { return f.Suppressed() })
		}
		start = end
		if len(run) == 0 {
			continue
		}
		index, seen := groupOf[file]
		switch {
		case !seen:
			groupOf[file] = len(groups)
			groups = append(groups, run)
		default: // the file's findings are not side by side: the run joins its group
			groups[index] = append(groups[index][:len(groups[index]):len(groups[index])], run...)
		}
	}
	return groups
}

// linkBatch is how many model links are wrapped before they are written.
const linkBatch = 4096

// pieceFindings is the most findings of one piece of a table.
const pieceFindings = 512

// tableBatch is how many pieces are laid out before they are written.
const tableBatch = 64

// findingLayout holds the column widths of the findings tables, the same for
// every file so that the columns line up from one file to the next.
type findingLayout struct {
	ruleWidth, positionWidth, messageWidth int
	messages                               *wrappedTexts
}

func newFindingLayout(findings iter.Seq[lint.Finding], terminalWidth int) findingLayout {
	layout := findingLayout{ruleWidth: len("RULE"), positionWidth: len("LINE:COL"), messages: &wrappedTexts{}}
	for finding := range findings {
		if finding.Suppressed() {
			continue
		}
		layout.ruleWidth = max(layout.ruleWidth, displayWidth(finding.RuleID), displayWidth(finding.RuleName))
		layout.positionWidth = max(layout.positionWidth, len(position(finding.Location)))
	}
	// Every column has one space of padding on each side.
	layout.messageWidth = max(minMessageWidth,
		terminalWidth-(len("SEVERITY")+2)-(layout.ruleWidth+2)-(layout.positionWidth+2)-2)
	return layout
}

func renderFindings(out *bytes.Buffer, findings []lint.Finding, layout findingLayout, paint painter, withHeader bool) {
	// Wrapping the messages is the costly part: on every CPU, for the one
	// file of a large stream.
	rows := parallel.Map(findings, func(finding lint.Finding) []string {
		rule := finding.RuleID
		if finding.RuleName != "" {
			rule += "\n" + finding.RuleName
		}
		return []string{paint.severity(finding.Severity), rule, position(finding.Location), messageCell(finding, layout, paint)}
	})
	// Padded headers give each table the shared column widths; the message
	// column is the last, its padding trimmed, so the pieces of a table
	// line up as one.
	header := []string{"SEVERITY", padRight("RULE", layout.ruleWidth), padRight("LINE:COL", layout.positionWidth), "MESSAGE"}
	writeColumnRows(out, header, rows, withHeader)
}

// messageCell is the message, then the target and the field path indented
// below it, so a reader finds the object without counting lines.
func messageCell(finding lint.Finding, layout findingLayout, paint painter) string {
	text := finding.Message
	if finding.Fix.Applicable(false) {
		text = fixableMark + " " + text
	}
	width := layout.messageWidth
	lines := slices.Clip(layout.messages.wrap(text, width)) // appended to below: not the kept lines

	const indent = "  "
	var where []string
	if finding.Target != "" {
		where = append(where, wrapWords(finding.Target, width-len(indent))...)
	}
	if finding.Location.Path != "" {
		where = append(where, wrapPath(finding.Location.Path, width-len(indent))...)
	}
	for _, related := range finding.Related {
		where = append(where, wrapWords(relatedText(related), width-len(indent))...)
	}
	for _, line := range where {
		lines = append(lines, indent+paint.paint(ansiDim, line))
	}
	return strings.Join(lines, "\n")
}

// wrappedTexts keeps each message as it was wrapped: most findings share
// their text with others (one rule, one wording), and wrapping is most of
// the table's cost.
type wrappedTexts struct {
	mu    sync.Mutex
	lines map[string][]string
}

// maxWrapped bounds the texts kept: a run whose every message differs
// holds no more than without them.
const maxWrapped = 1 << 14

// wrap is wrapWords(text, width), for one width per table.
func (w *wrappedTexts) wrap(text string, width int) []string {
	w.mu.Lock()
	lines, ok := w.lines[text]
	w.mu.Unlock()
	if ok {
		return lines
	}
	lines = wrapWords(text, width)
	w.mu.Lock()
	if w.lines == nil {
		w.lines = map[string][]string{}
	}
	if len(w.lines) < maxWrapped {
		w.lines[text] = lines
	}
	w.mu.Unlock()
	return lines
}

// relatedText is a related location as the text reports show it:
// "included from templates/deployment.yaml:30".
func relatedText(related lint.RelatedLocation) string {
	if related.Message == lint.IncludedFrom {
		return "included from " + related.Location.String()
	}
	return related.Message + ": " + related.Location.String()
}

func padRight(text string, width int) string {
	return text + strings.Repeat(" ", max(0, width-displayWidth(text)))
}

func position(location lint.Location) string {
	switch {
	case location.Line > 0 && location.Column > 0:
		return strconv.Itoa(location.Line) + ":" + strconv.Itoa(location.Column)
	case location.Line > 0:
		return strconv.Itoa(location.Line)
	}
	return "-"
}

func writeVerbose(out *bytes.Buffer, result *lint.Result, terminalWidth int) {
	if len(result.Notes) > 0 {
		out.WriteString("notes:\n")
		for _, note := range result.Notes {
			out.WriteString("  " + note + "\n")
		}
		out.WriteString("\n")
	}
	var skipped []lint.Evaluation
	for _, evaluation := range result.Evaluations {
		if evaluation.Status == lint.StatusSkip {
			skipped = append(skipped, evaluation)
		}
	}
	if len(skipped) == 0 {
		return
	}
	names := ruleNames(result.Rules)
	out.WriteString("skipped rule checks:\n")
	rows := make([][]string, 0, len(skipped))
	widths := [3]int{len("FILE:LINE"), len("RULE"), len("TARGET")}
	for _, evaluation := range skipped {
		where := evaluation.File
		if evaluation.Line > 0 {
			where += ":" + strconv.Itoa(evaluation.Line)
		}
		rule := evaluation.RuleID
		if name := names[evaluation.RuleID]; name != "" {
			rule += " " + name
		}
		row := []string{where, rule, evaluation.Target}
		for i, cell := range row {
			widths[i] = max(widths[i], displayWidth(cell))
		}
		rows = append(rows, append(row, evaluation.Reason))
	}
	reasonWidth := max(minMessageWidth, terminalWidth-(widths[0]+2)-(widths[1]+2)-(widths[2]+2)-2)
	for _, row := range rows {
		row[3] = strings.Join(wrapWords(row[3], reasonWidth), "\n")
	}
	writeColumns(out, []string{"FILE:LINE", "RULE", "TARGET", "REASON"}, rows)
	out.WriteString("\n")
}

func ruleNames(rules []*lint.Rule) map[string]string {
	names := make(map[string]string, len(rules))
	for _, rule := range rules {
		names[rule.ID] = rule.Name
	}
	return names
}

// summaryLine is the last line of the table output, e.g.
// "3 errors, 2 warnings, 0 info in 4 files (1 suppressed; 12 rule checks skipped)".
func summaryLine(result *lint.Result, c counts) string {
	files := plural(len(result.Files), "file", "files")
	var line string
	if c.errors+c.warnings+c.infos == 0 {
		line = "no findings in " + files
	} else {
		line = fmt.Sprintf("%s, %s, %d info in %s",
			plural(c.errors, "error", "errors"), plural(c.warnings, "warning", "warnings"), c.infos, files)
	}
	var extra []string
	if c.suppressed > 0 {
		extra = append(extra, fmt.Sprintf("%d suppressed", c.suppressed))
	}
	if c.skipped > 0 {
		extra = append(extra, plural(c.skipped, "rule check", "rule checks")+" skipped")
	}
	if n := len(result.InputErrors); n > 0 {
		extra = append(extra, plural(n, "input", "inputs")+" not read")
	}
	if len(extra) > 0 {
		line += " (" + strings.Join(extra, "; ") + ")"
	}
	return line
}

// fixableMark starts the message of a finding --fix fixes, as ruff marks
// them.
const fixableMark = "[*]"

// fixableLine says how many of the findings --fix fixes, and how many more
// with --unsafe-fixes, as ruff does: "[*] 2 fixable with --fix (1 more
// with --fix --unsafe-fixes)". Empty when there are none.
func fixableLine(c counts) string {
	safe, unsafe := c.fixable, c.unsafeFixable
	switch {
	case safe > 0 && unsafe > 0:
		return fmt.Sprintf("%s %d fixable with --fix (%d more with --fix --unsafe-fixes)", fixableMark, safe, unsafe)
	case safe > 0:
		return fmt.Sprintf("%s %d fixable with --fix", fixableMark, safe)
	case unsafe > 0:
		return fmt.Sprintf("%d fixable with --fix --unsafe-fixes", unsafe)
	}
	return ""
}

// trimTrailingSpace removes the padding the table leaves at line ends, in
// place.
func trimTrailingSpace(text []byte) []byte {
	out := text[:0]
	for len(text) > 0 {
		line, rest, found := bytes.Cut(text, []byte("\n"))
		out = append(out, bytes.TrimRight(line, " \t")...)
		if found {
			out = append(out, '\n')
		}
		text = rest
	}
	return out
}
