package report

import (
	"slices"

	"github.com/modellint/modellint/internal/message"
	"github.com/modellint/modellint/internal/redact"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// printable is the result as every format prints it. The file names,
// object names, paths and messages an untrusted tree wrote have their
// control characters escaped (message.Escape: an escape sequence, a line
// break that would start a forged workflow command, a bidi override), the
// same way in every format, JSON and SARIF included, whose readers print
// the strings they decode. The edits of fixes, which the engine keeps whole
// for --fix, have the run's secrets hidden. A result with nothing to change
// is returned as it is; otherwise only the lists that change are copied.
func printable(result *lint.Result) *lint.Result {
	view := *result
	view.Files = changedItems(result.Files, escaped)
	view.Notes = changedItems(result.Notes, escaped)
	view.ChangeLinks(func(links []string) []string { return changedItems(links, escaped) })
	view.Unused = changedItems(result.Unused, escaped)
	view.InputErrors = changedItems(result.InputErrors, func(problem *lint.InputError) bool {
		return escapedAll(&problem.File, &problem.Message)
	})
	// A run of 10,000 workloads lists ~400,000 evaluations; those of a
	// target share its name and file, and often the reason of a skip.
	var clean [3]string
	view.Evaluations = changedItems(result.Evaluations, func(evaluation *lint.Evaluation) bool {
		changed := false
		for i, text := range [3]*string{&evaluation.Target, &evaluation.File, &evaluation.Reason} {
			if *text == clean[i] {
				continue
			}
			if escaped(text) {
				changed = true
			} else {
				clean[i] = *text
			}
		}
		return changed
	})
	view.ChangeFindings(func(findings []lint.Finding) []lint.Finding {
		return changedItems(findings, func(finding *lint.Finding) bool { return printableFinding(finding, result.Secrets) })
	})
	return &view
}

// changedItems is list with fix applied to each item, a copy made at the
// first item fix changes (reporting true); list itself when none changes.
func changedItems[T any](list []T, fix func(*T) bool) []T {
	if len(list) == 0 {
		return list
	}
	// One item for the whole list: fix takes its address, so it lives on
	// the heap, and one per item was an allocation per finding.
	var item T
	for i := range list {
		item = list[i]
		if !fix(&item) {
			continue
		}
		out := slices.Clone(list)
		out[i] = item
		for j := i + 1; j < len(out); j++ {
			fix(&out[j])
		}
		return out
	}
	return list
}

// escaped escapes *text in place (message.Escape) and reports whether it
// changed.
func escaped(text *string) bool { return replaced(text, message.Escape(*text)) }

// escapedAll escapes every text in place and reports whether any changed.
func escapedAll(texts ...*string) bool {
	changed := false
	for _, text := range texts {
		if escaped(text) {
			changed = true
		}
	}
	return changed
}

// escapedLines is escaped for text of several lines (YAML to write).
func escapedLines(text *string) bool { return replaced(text, message.EscapeLines(*text)) }

func replaced(text *string, with string) bool {
	if with == *text {
		return false
	}
	*text = with
	return true
}

// printableFinding escapes what a finding prints, in place; the
// suppression, image location, related lines and fix it points to are
// copied when they change.
func printableFinding(finding *lint.Finding, secrets *redact.Set) bool {
	changed := escapedAll(&finding.Message, &finding.Target, &finding.Location.File, &finding.Location.Path)
	if finding.Suppression != nil {
		suppression := *finding.Suppression
		if escapedAll(&suppression.Kind, &suppression.Reason) {
			finding.Suppression, changed = &suppression, true
		}
	}
	if finding.Image != nil {
		where := *finding.Image
		if escapedAll(&where.Reference, &where.Layer, &where.Path) {
			finding.Image, changed = &where, true
		}
	}
	related := changedItems(finding.Related, func(related *lint.RelatedLocation) bool {
		return escapedAll(&related.File, &related.Path, &related.Message)
	})
	if copied(related, finding.Related) {
		finding.Related, changed = related, true
	}
	if fix, fixChanged := printableFix(finding.Fix, secrets); fixChanged {
		finding.Fix, changed = fix, true
	}
	return changed
}

// printableFix escapes a fix's texts, and hides the run's secrets in the
// text of its edits: a copy when anything changes.
func printableFix(fix *lint.Fix, secrets *redact.Set) (*lint.Fix, bool) {
	if fix == nil {
		return nil, false
	}
	// The fix is copied only when it changes: most findings' fixes are
	// the shared FixableOnly values, or print as they are.
	description, suggestion := fix.Description, fix.Suggestion
	changed := escapedAll(&description)
	if escapedLines(&suggestion) {
		changed = true
	}
	edits := changedItems(fix.Edits, func(edit *manifest.Edit) bool {
		hidden := replaced(&edit.Text, secrets.String(edit.Text))
		lines := escapedLines(&edit.Text)
		review := escapedLines(&edit.Review.Text)
		return escapedAll(&edit.File) || hidden || lines || review
	})
	moves := changedItems(fix.Moves, func(move *lint.Move) bool {
		return escapedAll(&move.From, &move.To)
	})
	if !changed && !copied(edits, fix.Edits) && !copied(moves, fix.Moves) {
		return fix, false
	}
	out := *fix
	out.Description, out.Suggestion, out.Edits, out.Moves = description, suggestion, edits, moves
	return &out, true
}

// copied reports whether changedItems returned a copy of list.
func copied[T any](items, list []T) bool { return len(list) > 0 && &items[0] != &list[0] }
