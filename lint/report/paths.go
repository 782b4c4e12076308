package report

import (
	"path/filepath"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// relativePaths is the result with every absolute file path below baseDir
// made relative to it, so that a report names files the same way whether
// the PATH was given as deploy/ or as $PWD/deploy/ (and the config file
// found by walking up is named as .modellint.yaml), and GitLab and GitHub
// find them in the repository checked out there. Relative paths already
// are relative to the working directory; a file outside baseDir keeps its
// absolute path. Only the lists that change are copied.
func relativePaths(result *lint.Result, baseDir string) *lint.Result {
	if baseDir == "" || !filepath.IsAbs(baseDir) {
		return result
	}
	// A run's ~400,000 evaluations and findings name a few thousand files:
	// each is made relative once ("" outside baseDir).
	names := map[string]string{}
	relative := func(path *string) bool {
		if !filepath.IsAbs(*path) {
			return false
		}
		name, seen := names[*path]
		if !seen {
			rel, err := filepath.Rel(baseDir, *path)
			if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				name = filepath.ToSlash(rel)
			} // else outside: no relative name would find it in the repository either
			names[*path] = name
		}
		if name == "" {
			return false
		}
		*path = name
		return true
	}
	view := *result
	view.Files = changedItems(result.Files, relative)
	view.InputErrors = changedItems(result.InputErrors, func(problem *lint.InputError) bool { return relative(&problem.File) })
	view.Evaluations = changedItems(result.Evaluations, func(evaluation *lint.Evaluation) bool { return relative(&evaluation.File) })
	view.ChangeFindings(func(findings []lint.Finding) []lint.Finding {
		return changedItems(findings, func(finding *lint.Finding) bool { return relativeFinding(relative, finding) })
	})
	return &view
}

// relativeFinding names the files of finding by relative.
func relativeFinding(relative func(*string) bool, finding *lint.Finding) bool {
	changed := relative(&finding.Location.File)
	related := changedItems(finding.Related, func(related *lint.RelatedLocation) bool { return relative(&related.File) })
	if copied(related, finding.Related) {
		finding.Related, changed = related, true
	}
	if finding.Fix != nil {
		edits := changedItems(finding.Fix.Edits, func(edit *manifest.Edit) bool { return relative(&edit.File) })
		moves := changedItems(finding.Fix.Moves, func(move *lint.Move) bool { return relativeBoth(relative, &move.From, &move.To) })
		if copied(edits, finding.Fix.Edits) || copied(moves, finding.Fix.Moves) {
			fix := *finding.Fix
			fix.Edits, fix.Moves = edits, moves
			finding.Fix, changed = &fix, true
		}
	}
	return changed
}

func relativeBoth(relative func(*string) bool, a, b *string) bool {
	changedA := relative(a)
	return relative(b) || changedA
}
