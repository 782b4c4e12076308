package fix

import (
	"slices"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

type overlapKind int

const (
	disjoint     overlapKind = iota
	conflicting              // the edits touch the same bytes
	sameAddition             // both add the same field at the same place
)

// overlaps holds the edits accepted so far in one file, indexed so a
// fix's edits are checked against all of them in logarithmic time: a
// file of thousands of workloads gets thousands of fixes.
type overlaps struct {
	offsets []int // every Start and End of the file's edits, sorted, distinct
	// farthestEnd is a Fenwick tree over offsets: for a prefix of starts,
	// the farthest End of an accepted replacement starting there.
	farthestEnd []int
	// insertions is a Fenwick tree over offsets counting accepted
	// insertions at each.
	insertions []int
	// added are the texts of accepted insertions by offset and first line.
	added map[addition]map[string]bool
}

type addition struct {
	at        int
	firstLine string
}

func newOverlaps(findings []lint.Finding) *overlaps {
	var offsets []int
	for _, finding := range findings {
		for _, edit := range finding.Fix.Edits {
			offsets = append(offsets, edit.Start, edit.End)
		}
	}
	slices.Sort(offsets)
	offsets = slices.Compact(offsets)
	return &overlaps{
		offsets:     offsets,
		farthestEnd: make([]int, len(offsets)+1),
		insertions:  make([]int, len(offsets)+1),
		added:       map[addition]map[string]bool{},
	}
}

// check says whether the edits of one fix touch those accepted: a
// replacement overlapping one, an insertion strictly inside one, the same
// key added at the same place with other text (conflicting), or only the
// same text added at the same place (sameAddition).
func (o *overlaps) check(edits []manifest.Edit) overlapKind {
	kind := disjoint
	for _, edit := range edits {
		// Any accepted replacement [start, end) with start < edit.End and
		// end > edit.Start overlaps a replacement, or holds an insertion
		// strictly inside it.
		if o.farthestEndBefore(edit.End) > edit.Start {
			return conflicting
		}
		if edit.Start == edit.End {
			texts := o.added[addition{edit.Start, firstLine(edit.Text)}]
			if len(texts) > 1 || len(texts) == 1 && !texts[edit.Text] {
				return conflicting // the same key twice
			}
			if texts[edit.Text] {
				kind = sameAddition
			}
		} else if o.insertionsBetween(edit.Start, edit.End) > 0 {
			return conflicting
		}
	}
	return kind
}

// add records the edits of an accepted fix.
func (o *overlaps) add(edits []manifest.Edit) {
	for _, edit := range edits {
		if edit.Start == edit.End {
			for i := o.index(edit.Start) + 1; i < len(o.insertions); i += i & -i {
				o.insertions[i]++
			}
			key := addition{edit.Start, firstLine(edit.Text)}
			if o.added[key] == nil {
				o.added[key] = map[string]bool{}
			}
			o.added[key][edit.Text] = true
			continue
		}
		for i := o.index(edit.Start) + 1; i < len(o.farthestEnd); i += i & -i {
			o.farthestEnd[i] = max(o.farthestEnd[i], edit.End)
		}
	}
}

// farthestEndBefore is the farthest End of the accepted replacements that
// start before offset, or -1.
func (o *overlaps) farthestEndBefore(offset int) int {
	farthest := -1
	for i := o.index(offset); i > 0; i -= i & -i {
		if o.farthestEnd[i] > 0 {
			farthest = max(farthest, o.farthestEnd[i])
		}
	}
	return farthest
}

// insertionsBetween counts the accepted insertions strictly between start
// and end.
func (o *overlaps) insertionsBetween(start, end int) int {
	return o.insertionsBefore(end) - o.insertionsBefore(start+1)
}

// insertionsBefore counts the accepted insertions before offset.
func (o *overlaps) insertionsBefore(offset int) int {
	count := 0
	for i := o.index(offset); i > 0; i -= i & -i {
		count += o.insertions[i]
	}
	return count
}

// index is the number of offsets below offset: the Fenwick prefix that
// holds exactly the offsets before it.
func (o *overlaps) index(offset int) int {
	i, _ := slices.BinarySearch(o.offsets, offset)
	return i
}

func firstLine(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	return strings.TrimSpace(line)
}
