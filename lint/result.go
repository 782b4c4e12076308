package lint

import (
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
}

// PassSuppressed turns failed evaluations whose findings were all
// suppressed (in the manifests, the config or a baseline) into passes: a
// user who accepted a finding wants a green case.
func (r *Result) PassSuppressed() {
	if !slices.ContainsFunc(r.Evaluations, func(e Evaluation) bool { return e.Status == StatusFail }) {
		return // no failed check listed (Options.Records)
	}
	failing := map[[2]string]bool{}
	for _, finding := range r.Findings {
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
	for _, finding := range r.Findings {
		if !finding.Suppressed() && finding.Severity >= atLeast {
			n++
		}
	}
	return n
}
