package fix

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// pairwiseOverlap compares every edit with every accepted one: the
// definition the indexed check must agree with.
func pairwiseOverlap(candidate, accepted []manifest.Edit) overlapKind {
	kind := disjoint
	for _, a := range candidate {
		for _, b := range accepted {
			insertions := a.Start == a.End && b.Start == b.End
			switch {
			case insertions && a.Start == b.Start && a.Text == b.Text:
				kind = max(kind, sameAddition)
			case insertions && a.Start == b.Start && firstLine(a.Text) == firstLine(b.Text):
				return conflicting
			case a.Start < b.End && b.Start < a.End,
				a.Start == a.End && a.Start > b.Start && a.Start < b.End,
				b.Start == b.End && b.Start > a.Start && b.Start < a.End:
				return conflicting
			}
		}
	}
	return kind
}

// applyReversed makes sorted edits from the last to the first, copying the
// text at each.
func applyReversed(source []byte, sorted []manifest.Edit) []byte {
	out := bytes.Clone(source)
	for i := len(sorted) - 1; i >= 0; i-- {
		out = slices.Concat(out[:sorted[i].Start], []byte(sorted[i].Text), out[sorted[i].End:])
	}
	return out
}

// TestOverlapsAgreeWithPairwise: on random fixes (insertions of the same
// or another key at one place, replacements that touch or not), the
// indexed check accepts, skips and drops exactly the fixes the pairwise
// one does, and the one-pass apply writes what applying them one by one
// writes.
func TestOverlapsAgreeWithPairwise(t *testing.T) {
	random := rand.New(rand.NewPCG(1, 2))
	texts := []string{"x: 1\n", "x: 2\n", "y: 1\n", "x: 1\n  z: 2\n", "7"}
	source := bytes.Repeat([]byte("abcdefghi\n"), 6)
	for round := range 2000 {
		var findings []lint.Finding
		for range 1 + random.IntN(12) {
			var edits []manifest.Edit
			for range 1 + random.IntN(2) {
				start := random.IntN(len(source) + 1)
				end := start
				if random.IntN(2) == 0 {
					end = min(len(source), start+1+random.IntN(5))
				}
				edits = append(edits, manifest.Edit{Start: start, End: end, Text: texts[random.IntN(len(texts))]})
			}
			findings = append(findings, lint.Finding{Fix: &lint.Fix{Edits: edits}})
		}
		indexed := newOverlaps(findings)
		var accepted []manifest.Edit
		for i, finding := range findings {
			want, got := pairwiseOverlap(finding.Fix.Edits, accepted), indexed.check(finding.Fix.Edits)
			if got != want {
				t.Fatalf("round %d, fix %d %+v: %v, pairwise %v; accepted %+v", round, i, finding.Fix.Edits, got, want, accepted)
			}
			if got == disjoint {
				indexed.add(finding.Fix.Edits)
				accepted = append(accepted, finding.Fix.Edits...)
			}
		}
		slices.SortStableFunc(accepted, func(a, b manifest.Edit) int {
			if a.Start != b.Start {
				return a.Start - b.Start
			}
			return a.End - b.End
		})
		if overlapsItself(accepted) {
			continue // one fix's own edits overlap: apply refuses them
		}
		got, err := apply(source, accepted)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if want := applyReversed(source, accepted); !bytes.Equal(got, want) {
			t.Fatalf("round %d: applied %q, one by one %q", round, got, want)
		}
	}
}

func overlapsItself(sorted []manifest.Edit) bool {
	for i := 1; i < len(sorted); i++ {
		if sorted[i].Start < sorted[i-1].End {
			return true
		}
	}
	return false
}
