package engine

import (
	"math"

	"github.com/modellint/modellint/lint"
)

// heldFinding is a finding as a run holds it from its target's rules to the
// reports: 48 bytes, not a lint.Finding's 176. A run holds every finding
// while it holds every object, and most findings name their target's own
// name and file and carry no related line, image place or suppression; so
// the target's name and file are kept once, on its evaluated, the message
// and path by number (heldText), and a finding that differs is kept whole.
type heldFinding struct {
	rule          *lint.Rule // its ID and name
	message, path heldText
	line, column  int32
	severity      int8
	neverReady    bool
	fix           *lint.Fix
	whole         *lint.Finding
}

// heldText is a text's number in the run's texts (texts.id), or with
// ownText set, its place in its target's own list: the texts past the
// table's bound.
type heldText uint32

const ownText heldText = 1 << 31

// heldTexts turns texts into heldTexts and back, for the findings of one
// target.
type heldTexts struct {
	run *texts
	own []string
}

func (h *heldTexts) hold(s string) heldText {
	if id, ok := h.run.id(s); ok {
		return heldText(id)
	}
	h.own = append(h.own, s)
	return ownText | heldText(len(h.own)-1)
}

func (h *heldTexts) text(t heldText) string {
	if t&ownText != 0 {
		return h.own[t&^ownText]
	}
	return h.run.text(uint32(t))
}

// holdFinding is f as held on a target named name, read from file.
func holdFinding(f *lint.Finding, rule *lint.Rule, name, file string, texts *heldTexts) heldFinding {
	at := f.Location
	if rule == nil || f.RuleID != rule.ID || f.RuleName != rule.Name || f.Target != name || at.File != file ||
		f.Suppression != nil || f.Image != nil || f.Related != nil ||
		!fitsInt32(at.Line) || !fitsInt32(at.Column) || f.Severity < math.MinInt8 || f.Severity > math.MaxInt8 {
		whole := *f
		return heldFinding{whole: &whole}
	}
	return heldFinding{rule: rule, message: texts.hold(f.Message), path: texts.hold(at.Path), line: int32(at.Line),
		column: int32(at.Column), severity: int8(f.Severity), neverReady: f.NeverReady, fix: f.Fix}
}

// finding is the held finding again, on a target named name, read from file.
func (h *heldFinding) finding(name, file string, texts *heldTexts) lint.Finding {
	if h.whole != nil {
		return *h.whole
	}
	return lint.Finding{
		RuleID: h.rule.ID, RuleName: h.rule.Name, Severity: lint.Severity(h.severity), Message: texts.text(h.message),
		Location: lint.Location{File: file, Line: int(h.line), Column: int(h.column), Path: texts.text(h.path)},
		Target:   name, Fix: h.fix, NeverReady: h.neverReady,
	}
}

func fitsInt32(n int) bool { return n >= math.MinInt32 && n <= math.MaxInt32 }
