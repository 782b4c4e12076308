package engine

import (
	"fmt"
	"sort"

	"github.com/modellint/modellint/internal/parallel"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// noteManifests records the files read and, for -v, what in them was not linted.
func noteManifests(r *lint.Result, files []*manifest.File, withNotes bool) {
	for _, file := range files {
		r.Files = append(r.Files, file.Path)
	}
	if !withNotes {
		return
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
		// A workload kind is noted too when its controller builds the pod
		// from fields that are no template (a KAITO preset).
		reason := manifest.NotLinted(object)
		if reason == "" {
			reason = manifest.GenericNote(object)
		}
		if reason != "" {
			pos := object.Locate("")
			notes = append(notes, fmt.Sprintf("%s:%d: %s (%s): %s", file.Path, pos.Line, object.ID(), object.APIVersion, reason))
		}
	}
	return notes
}

func sortResult(r *lint.Result) {
	sort.SliceStable(r.InputErrors, func(i, j int) bool {
		a, b := r.InputErrors[i], r.InputErrors[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	sortFindings(r.Findings)
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

// sortFindings sorts findings in the order of the reports.
func sortFindings(findings []lint.Finding) {
	sort.SliceStable(findings, func(i, j int) bool { return findingLess(findings[i], findings[j]) })
}

func findingLess(a, b lint.Finding) bool {
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
