package lint

import (
	"fmt"
	"slices"
	"sort"

	"github.com/modellint/modellint/internal/parallel"
	"github.com/modellint/modellint/lint/manifest"
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
}

// noteManifests records the files read and, for -v, what in them was not linted.
func (r *Result) noteManifests(files []*manifest.File) {
	for _, file := range files {
		r.Files = append(r.Files, file.Path)
	}
	// Written on every CPU, listed in file order.
	for _, notes := range parallel.Map(files, manifestNotes) {
		r.Notes = append(r.Notes, notes...)
	}
}

// manifestNotes say what of a file was not linted: the documents skipped
// and the objects of kinds no rule reads.
func manifestNotes(file *manifest.File) []string {
	var notes []string
	for _, reason := range file.Skipped {
		notes = append(notes, fmt.Sprintf("%s: %s: skipped", file.Path, reason))
	}
	for _, object := range file.Objects {
		if !manifest.IsWorkloadKind(object) {
			pos := object.Locate("")
			notes = append(notes, fmt.Sprintf("%s:%d: %s (%s): %s", file.Path, pos.Line, object.ID(), object.APIVersion, manifest.NotLinted(object)))
		}
	}
	return notes
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

func (r *Result) sort() {
	sort.SliceStable(r.InputErrors, func(i, j int) bool {
		a, b := r.InputErrors[i], r.InputErrors[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	sort.SliceStable(r.Findings, func(i, j int) bool { return findingLess(r.Findings[i], r.Findings[j]) })
	sort.SliceStable(r.Evaluations, func(i, j int) bool {
		a, b := r.Evaluations[i], r.Evaluations[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		return a.RuleID < b.RuleID
	})
}

func findingLess(a, b Finding) bool {
	if a.Location.File != b.Location.File {
		return a.Location.File < b.Location.File
	}
	if a.Location.Line != b.Location.Line {
		return a.Location.Line < b.Location.Line
	}
	if a.Location.Column != b.Location.Column {
		return a.Location.Column < b.Location.Column
	}
	if a.RuleID != b.RuleID {
		return a.RuleID < b.RuleID
	}
	if a.Location.Path != b.Location.Path {
		return a.Location.Path < b.Location.Path
	}
	return a.Message < b.Message
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
