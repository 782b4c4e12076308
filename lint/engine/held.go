package engine

import (
	"math"

	"github.com/modellint/modellint/lint"
)

// heldFinding is a finding as a run holds it from its target's rules to the
// reports: 72 bytes, not a lint.Finding's 176. A run holds every finding
// while it holds every object, and most findings name their target's own
// name and file and carry no related line, image place or suppression; so
// the target's name and file are kept once, on its evaluated, and a finding
// that differs is kept whole.
type heldFinding struct {
	rule         *lint.Rule // its ID and name
	message      string
	path         string
	line, column int32
	severity     int8
	neverReady   bool
	fix          *lint.Fix
	whole        *lint.Finding
}

// holdFinding is f as held on a target named name, read from file.
func holdFinding(f *lint.Finding, rule *lint.Rule, name, file string) heldFinding {
	at := f.Location
	if rule == nil || f.RuleID != rule.ID || f.RuleName != rule.Name || f.Target != name || at.File != file ||
		f.Suppression != nil || f.Image != nil || f.Related != nil ||
		!fitsInt32(at.Line) || !fitsInt32(at.Column) || f.Severity < math.MinInt8 || f.Severity > math.MaxInt8 {
		whole := *f
		return heldFinding{whole: &whole}
	}
	return heldFinding{rule: rule, message: f.Message, path: at.Path, line: int32(at.Line), column: int32(at.Column),
		severity: int8(f.Severity), neverReady: f.NeverReady, fix: f.Fix}
}

// finding is the held finding again, on a target named name, read from file.
func (h *heldFinding) finding(name, file string) lint.Finding {
	if h.whole != nil {
		return *h.whole
	}
	return lint.Finding{
		RuleID: h.rule.ID, RuleName: h.rule.Name, Severity: lint.Severity(h.severity), Message: h.message,
		Location: lint.Location{File: file, Line: int(h.line), Column: int(h.column), Path: h.path},
		Target:   name, Fix: h.fix, NeverReady: h.neverReady,
	}
}

func fitsInt32(n int) bool { return n >= math.MinInt32 && n <= math.MaxInt32 }
