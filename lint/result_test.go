package lint

import (
	"iter"
	"testing"
)

// TestFails: a suppressed finding does not fail a run, one below the
// severity does not either, and read by parts, the parts after the first
// failing finding are not made.
func TestFails(t *testing.T) {
	suppressed := Finding{RuleID: "MDL001", Severity: Error, Suppression: &Suppression{Kind: "inSource"}}
	warning := Finding{RuleID: "MDL002", Severity: Warning}
	made := 0
	parts := func(findings ...[]Finding) iter.Seq[[]Finding] {
		return func(yield func([]Finding) bool) {
			for _, part := range findings {
				made++
				if !yield(part) {
					return
				}
			}
		}
	}
	var result Result
	result.SetParts(parts([]Finding{suppressed}, []Finding{warning}, []Finding{warning}), nil)
	if result.Fails(Error) {
		t.Error("fails at error with a suppressed error and warnings")
	}
	if made != 3 {
		t.Errorf("made %d parts to find no error, want all 3", made)
	}
	made = 0
	if !result.Fails(Warning) {
		t.Error("does not fail at warning with a warning")
	}
	if made != 2 {
		t.Errorf("made %d parts to find the first warning, want 2", made)
	}
}
