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
	// findingParts and linkParts, when set, make the findings and links a
	// part at a time, in order, in place of Findings and Links: a large
	// run's are made as each report reads them, not held whole (see
	// SetParts).
	findingParts iter.Seq[[]Finding]
	linkParts    iter.Seq[[]string]
}

// SetParts has the result's findings and links made by parts, a part at a
// time in their order, each time they are read; Findings and Links stay
// empty. A part yielded is the reader's to keep or change.
func (r *Result) SetParts(findings iter.Seq[[]Finding], links iter.Seq[[]string]) {
	r.Findings, r.findingParts = nil, findings
	r.Links, r.linkParts = nil, links
}

// InParts says the findings are made by parts (SetParts).
func (r *Result) InParts() bool { return r.findingParts != nil }

// FindingParts yields the findings a part at a time, in order: Findings in
// one part, or the parts SetParts gave.
func (r *Result) FindingParts() iter.Seq[[]Finding] { return partsOf(r.Findings, r.findingParts) }

// EachFinding yields the findings one at a time, in order.
func (r *Result) EachFinding() iter.Seq[Finding] { return eachOf(r.FindingParts()) }

// LinkParts yields the links a part at a time, in order, as FindingParts
// the findings.
func (r *Result) LinkParts() iter.Seq[[]string] { return partsOf(r.Links, r.linkParts) }

// Hold makes the findings and links whole in Findings and Links, for the
// readers that need them all at once (baselines, --fix, fingerprints).
func (r *Result) Hold() {
	hold(&r.Findings, &r.findingParts)
	hold(&r.Links, &r.linkParts)
}

// ChangeFindings passes the findings through change: Findings at once, or
// each part as it is made.
func (r *Result) ChangeFindings(change func([]Finding) []Finding) {
	changeParts(&r.Findings, &r.findingParts, change)
}

// ChangeLinks passes the links through change, as ChangeFindings the
// findings.
func (r *Result) ChangeLinks(change func([]string) []string) {
	changeParts(&r.Links, &r.linkParts, change)
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

// Fails says whether a finding is unsuppressed and at or above severity:
// Count above 0, but read by parts, it makes only the parts up to the
// first such finding.
func (r *Result) Fails(atLeast Severity) bool {
	for finding := range r.EachFinding() {
		if !finding.Suppressed() && finding.Severity >= atLeast {
			return true
		}
	}
	return false
}
