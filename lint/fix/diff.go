package fix

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/modellint/modellint/lint/manifest"
)

// contextLines is how many unchanged lines a hunk shows around a change,
// as git and diff -u do; changes closer than twice that share a hunk.
const contextLines = 3

// lineChange replaces lines [oldFrom, oldTo) of the text before the
// edits (0-based) with lines [newFrom, newTo) of the text after them.
type lineChange struct {
	oldFrom, oldTo int
	newFrom, newTo int
}

// unifiedDiff is the change the edits (sorted, not overlapping) make to
// before, giving after, as a unified diff. The changed lines are read
// off the edits rather than found by comparing the texts, so the diff
// costs one pass over the file whatever the number of edits.
func unifiedDiff(name string, before, after []byte, edits []manifest.Edit) string {
	oldLines, newLines := lineStarts(before), lineStarts(after)
	changes := lineChanges(before, after, oldLines, newLines, edits)
	if len(changes) == 0 {
		return ""
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", diffName("a/", name), diffName("b/", name))
	lineCount := len(oldLines) - 1
	for first := 0; first < len(changes); {
		last := first
		for last+1 < len(changes) && changes[last+1].oldFrom-changes[last].oldTo <= 2*contextLines {
			last++
		}
		oldStart := max(0, changes[first].oldFrom-contextLines)
		oldEnd := min(lineCount, changes[last].oldTo+contextLines)
		newStart := changes[first].newFrom - (changes[first].oldFrom - oldStart)
		newEnd := changes[last].newTo + (oldEnd - changes[last].oldTo)
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(oldStart, oldEnd), hunkRange(newStart, newEnd))
		at := oldStart
		for _, change := range changes[first : last+1] {
			writeLines(&out, ' ', before, oldLines, at, change.oldFrom)
			writeLines(&out, '-', before, oldLines, change.oldFrom, change.oldTo)
			writeLines(&out, '+', after, newLines, change.newFrom, change.newTo)
			at = change.oldTo
		}
		writeLines(&out, ' ', before, oldLines, at, oldEnd)
		first = last + 1
	}
	return out.String()
}

// lineChanges turns the edits into the whole lines they change: the lines
// an edit starts and ends in, or none around an edit that replaces or
// inserts whole lines. Edits in one line or in lines next to each other
// make one change, and lines a change leaves as they were are not part
// of it.
func lineChanges(before, after []byte, oldLines, newLines []int, edits []manifest.Edit) []lineChange {
	var changes []lineChange
	delta := 0 // how far the edits so far moved the text after them
	for i := 0; i < len(edits); {
		from, deltaFrom := oldLines[lineOf(before, oldLines, edits[i].Start)], delta
		end := from
		for first := i; i < len(edits) && (i == first || oldLines[lineOf(before, oldLines, edits[i].Start)] < end); i++ {
			delta += len(edits[i].Text) - (edits[i].End - edits[i].Start)
			end = max(end, changeEnd(before, after, oldLines, edits[i].End, delta))
		}
		change := lineChange{
			oldFrom: sort.SearchInts(oldLines, from), oldTo: sort.SearchInts(oldLines, end),
			newFrom: sort.SearchInts(newLines, from+deltaFrom), newTo: sort.SearchInts(newLines, end+delta),
		}
		for change.oldFrom < change.oldTo && change.newFrom < change.newTo &&
			bytes.Equal(line(before, oldLines, change.oldFrom), line(after, newLines, change.newFrom)) {
			change.oldFrom++
			change.newFrom++
		}
		for change.oldFrom < change.oldTo && change.newFrom < change.newTo &&
			bytes.Equal(line(before, oldLines, change.oldTo-1), line(after, newLines, change.newTo-1)) {
			change.oldTo--
			change.newTo--
		}
		switch last := len(changes) - 1; {
		case change.oldFrom == change.oldTo && change.newFrom == change.newTo:
		case last >= 0 && changes[last].oldTo == change.oldFrom:
			// Changed lines next to each other are one change, its removed
			// lines before its added ones, as diff shows them.
			changes[last].oldTo, changes[last].newTo = change.oldTo, change.newTo
		default:
			changes = append(changes, change)
		}
	}
	return changes
}

// changeEnd is where the lines an edit ending at end changes end: at end
// itself when it starts a line before and after the edit (whole lines
// replaced or inserted), else at the end of its line.
func changeEnd(before, after []byte, oldLines []int, end, delta int) int {
	if (end == 0 || before[end-1] == '\n') && (end+delta == 0 || after[end+delta-1] == '\n') {
		return end
	}
	return oldLines[min(lineOf(before, oldLines, end)+1, len(oldLines)-1)]
}

// lineStarts are the offsets lines start at, then the text's length.
func lineStarts(text []byte) []int {
	starts := make([]int, 1, 2+bytes.Count(text, []byte{'\n'}))
	for i, b := range text {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	if starts[len(starts)-1] != len(text) {
		starts = append(starts, len(text))
	}
	return starts
}

// lineOf is the 0-based line of text offset is in: the line count for
// the end of a text that ends with a line end, the last line for the end
// of one that does not.
func lineOf(text []byte, starts []int, offset int) int {
	n := sort.SearchInts(starts, offset+1) - 1
	if n == len(starts)-1 && n > 0 && text[len(text)-1] != '\n' {
		n--
	}
	return n
}

func line(text []byte, starts []int, n int) []byte {
	return text[starts[n]:starts[n+1]]
}

// writeLines writes lines [from, to) of text, each after prefix; a last
// line with no line end is marked as diff marks it.
func writeLines(out *strings.Builder, prefix byte, text []byte, starts []int, from, to int) {
	for n := from; n < to; n++ {
		out.WriteByte(prefix)
		out.Write(line(text, starts, n))
		if !bytes.HasSuffix(line(text, starts, n), []byte{'\n'}) {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange writes lines [from, to) as a hunk header does: the first line
// (1-based) and the count, left out when it is 1; an empty range is
// placed after the line before it.
func hunkRange(from, to int) string {
	switch to - from {
	case 1:
		return fmt.Sprint(from + 1)
	case 0:
		return fmt.Sprintf("%d,0", from)
	}
	return fmt.Sprintf("%d,%d", from+1, to-from)
}
