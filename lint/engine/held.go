package engine

import (
	"math"

	"github.com/modellint/modellint/lint"
)

// heldFinding is a finding as a run holds it from its target's rules to the
// reports: 24 bytes and no pointer for the collector to follow, not a
// lint.Finding's 176. A run holds every finding until the reports are
// written, and most findings name their target's own name and file and
// carry no related line, image place or suppression; so the target's name
// and file are kept once, on the target, the rule by its place in the
// run's rules, the message and path by number (heldText), the fix by
// heldFix, and a finding that differs is kept whole in its target's own
// list.
type heldFinding struct {
	message, path heldText
	// line is the finding's line, or for a finding held whole its place in
	// heldOwn.whole.
	line, column int32
	// rule is the rule's place in the run's rules, or wholeFinding.
	rule       uint16
	severity   int8
	neverReady bool
	fix        heldFix
}

// heldFix is a finding's fix: none, one of lint.FixableOnly's, or with
// ownFix set, its place in its target's own list.
type heldFix uint32

const (
	noFix heldFix = iota
	fixableSafe
	fixableUnsafe
	ownFix heldFix = 1 << 31
)

// wholeFinding is the rule of a finding held whole.
const wholeFinding = math.MaxUint16

// heldText is a text's number in the run's texts (texts.id), or with
// ownText set, its place in its target's own list: the texts past the
// table's bound.
type heldText uint32

const ownText heldText = 1 << 31

// heldOwn is what the held findings of one target need to be made again:
// the run's rules and texts, and the texts and findings of the target's
// own.
type heldOwn struct {
	rules []*lint.Rule
	run   *texts
	// lists are the target's texts past the run's table and its findings
	// held whole; nil while it has none, as most targets do.
	lists *ownLists
}

type ownLists struct {
	texts []string
	whole []lint.Finding
	fixes []*lint.Fix
}

func (h *heldOwn) own() *ownLists {
	if h.lists == nil {
		h.lists = &ownLists{}
	}
	return h.lists
}

func (h *heldOwn) hold(s string) heldText {
	if id, ok := h.run.id(s); ok {
		return heldText(id)
	}
	return h.ownText(s)
}

// ownText keeps s in the target's own list.
func (h *heldOwn) ownText(s string) heldText {
	own := h.own()
	own.texts = append(own.texts, s)
	return ownText | heldText(len(own.texts)-1)
}

func (h *heldOwn) holdFix(fix *lint.Fix) heldFix {
	switch fix {
	case nil:
		return noFix
	case lint.FixableOnly(lint.FixSafe):
		return fixableSafe
	case lint.FixableOnly(lint.FixUnsafe):
		return fixableUnsafe
	}
	own := h.own()
	own.fixes = append(own.fixes, fix)
	return ownFix | heldFix(len(own.fixes)-1)
}

func (h *heldOwn) fix(f heldFix) *lint.Fix {
	switch f {
	case noFix:
		return nil
	case fixableSafe:
		return lint.FixableOnly(lint.FixSafe)
	case fixableUnsafe:
		return lint.FixableOnly(lint.FixUnsafe)
	}
	return h.lists.fixes[f&^ownFix]
}

// keep is hold for a text not yet in the run's texts: it is added first,
// while the table has room.
func (h *heldOwn) keep(s string) heldText {
	if id, ok := h.run.add(s); ok {
		return heldText(id)
	}
	return h.ownText(s)
}

func (h *heldOwn) text(t heldText) string {
	if t&ownText != 0 {
		return h.lists.texts[t&^ownText]
	}
	return h.run.text(uint32(t))
}

// holdFinding is f as held on a target named name, read from file; rule is
// the place of its rule in h.rules, -1 when it has none there.
func holdFinding(f *lint.Finding, rule int, name, file string, h *heldOwn) heldFinding {
	at := f.Location
	if rule < 0 || rule >= wholeFinding || f.RuleID != h.rules[rule].ID || f.RuleName != h.rules[rule].Name ||
		f.Target != name || at.File != file || f.Suppression != nil || f.Image != nil || f.Related != nil ||
		!fitsInt32(at.Line) || !fitsInt32(at.Column) || f.Severity < math.MinInt8 || f.Severity > math.MaxInt8 {
		own := h.own()
		own.whole = append(own.whole, *f)
		return heldFinding{rule: wholeFinding, line: int32(len(own.whole) - 1)}
	}
	return heldFinding{rule: uint16(rule), message: h.hold(f.Message), path: h.hold(at.Path), line: int32(at.Line),
		column: int32(at.Column), severity: int8(f.Severity), neverReady: f.NeverReady, fix: h.holdFix(f.Fix)}
}

// finding is the held finding again, on a target named name, read from file.
func (f *heldFinding) finding(name, file string, h *heldOwn) lint.Finding {
	if f.rule == wholeFinding {
		return h.lists.whole[f.line]
	}
	rule := h.rules[f.rule]
	return lint.Finding{
		RuleID: rule.ID, RuleName: rule.Name, Severity: lint.Severity(f.severity), Message: h.text(f.message),
		Location: lint.Location{File: file, Line: int(f.line), Column: int(f.column), Path: h.text(f.path)},
		Target:   name, Fix: h.fix(f.fix), NeverReady: f.neverReady,
	}
}

func fitsInt32(n int) bool { return n >= math.MinInt32 && n <= math.MaxInt32 }
