package lint

import (
	"iter"
	"slices"

	"github.com/modellint/modellint/internal/redact"
)

// The result of a run: evaluations, findings and notes, in a
// deterministic order.

// Status of one rule on one target.
type Status string

const (
	StatusPass Status = "pass"
	StatusFail Status = "fail"
	StatusSkip Status = "skip"
)

// Evaluation records that a rule ran on a target, and how it ended.
type Evaluation struct {
	RuleID string `json:"rule"`
	Target string `json:"target"`
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"` // why it was skipped
}

// Result is everything a run produced, in a deterministic order.
type Result struct {
	Rules       []*Rule
	Files       []string // inputs read (manifest files, model dirs), in order
	Findings    []Finding
	Evaluations []Evaluation
	// UnlistedSkips counts the skipped rule checks a run did not list in
	// Evaluations (see Options.Records).
	UnlistedSkips int
	// Notes say what was not linted and why (shown at -v).
	Notes []string
	// Links say which model dir each serving container was linked to, and how.
	Links []string
	// InputErrors are inputs that could not be read or parsed. Everything
	// else was linted; a run with input errors exits 2.
	InputErrors []InputError
	// Unused are --image and --model flags nothing in the run used.
	Unused []string
	// Starts are how the model-server containers are expected to start,
	// one per container and linked model, where a load estimate exists.
	Starts []StartEstimate
	// Secrets are the values no output may print (secret-looking image
	// env, Secret data, --helm-set values). The engine hid them in every
	// field above but the edits of fixes, which --fix writes as they are:
	// the reports hide them there.
	Secrets *redact.Set
	// parts, when set, makes the findings a part at a time, in order, in
	// place of Findings: a large run's findings are made as each report
	// reads them, not held whole (see SetFindingParts).
	parts iter.Seq[[]Finding]
}

// SetFindingParts has the result's findings made by parts, a part at a
// time in their order, each time they are read; Findings stays empty. A
// part yielded is the reader's to keep or change.
func (r *Result) SetFindingParts(parts iter.Seq[[]Finding]) {
	r.Findings, r.parts = nil, parts
}

// InParts says the findings are made by parts (SetFindingParts).
func (r *Result) InParts() bool { return r.parts != nil }

// FindingParts yields the findings a part at a time, in order: Findings in
// one part, or the parts SetFindingParts gave.
func (r *Result) FindingParts() iter.Seq[[]Finding] {
	if r.parts != nil {
		return r.parts
	}
	return func(yield func([]Finding) bool) {
		if len(r.Findings) > 0 {
			yield(r.Findings)
		}
	}
}

// EachFinding yields the findings one at a time, in order.
func (r *Result) EachFinding() iter.Seq[Finding] {
	return func(yield func(Finding) bool) {
		for part := range r.FindingParts() {
			for _, finding := range part {
				if !yield(finding) {
					return
				}
			}
		}
	}
}

// HoldFindings makes the findings whole in Findings, for the readers that
// need them all at once (baselines, --fix, fingerprints).
func (r *Result) HoldFindings() {
	if r.parts == nil {
		return
	}
	parts := r.parts
	r.parts = nil
	for part := range parts {
		r.Findings = append(r.Findings, part...)
	}
}

// ChangeFindings passes the findings through change: Findings at once, or
// each part as it is made.
func (r *Result) ChangeFindings(change func([]Finding) []Finding) {
	if r.parts == nil {
		r.Findings = change(r.Findings)
		return
	}
	parts := r.parts
	r.parts = func(yield func([]Finding) bool) {
		for part := range parts {
			if !yield(change(part)) {
				return
			}
		}
	}
}

// PassSuppressed turns failed evaluations whose findings were all
// suppressed (in the manifests, the config or a baseline) into passes: a
// user who accepted a finding wants a green case.
func (r *Result) PassSuppressed() {
	if !slices.ContainsFunc(r.Evaluations, func(e Evaluation) bool { return e.Status == StatusFail }) {
		return // no failed check listed (Options.Records)
	}
	failing := map[[2]string]bool{}
	for finding := range r.EachFinding() {
		if !finding.Suppressed() {
			failing[[2]string{finding.RuleID, finding.Target}] = true
		}
	}
	for i := range r.Evaluations {
		evaluation := &r.Evaluations[i]
		if evaluation.Status == StatusFail && !failing[[2]string{evaluation.RuleID, evaluation.Target}] {
			evaluation.Status, evaluation.Reason = StatusPass, "findings suppressed"
		}
	}
}

// Count returns the number of unsuppressed findings at or above severity.
func (r *Result) Count(atLeast Severity) int {
	n := 0
	for finding := range r.EachFinding() {
		if !finding.Suppressed() && finding.Severity >= atLeast {
			n++
		}
	}
	return n
}
