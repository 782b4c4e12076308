package report

import "github.com/modellint/modellint/lint"

// SARIF fixes (§3.55): a finding's edits as replacements of exact regions,
// which code-scanning tools can offer as a suggested change.

type sarifFix struct {
	Description     sarifMessage          `json:"description"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
}

type sarifArtifactChange struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Replacements     []sarifReplacement    `json:"replacements"`
}

type sarifReplacement struct {
	DeletedRegion   sarifEditRegion `json:"deletedRegion"`
	InsertedContent *sarifContent   `json:"insertedContent,omitempty"`
}

// sarifEditRegion is a region by line and column on both ends: an empty
// one (start = end) is an insertion point.
type sarifEditRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

type sarifContent struct {
	Text string `json:"text"`
}

// sarifFixesOf converts a finding's fix; a fix without edits (a
// suggestion) has nothing SARIF could apply and is left out.
func sarifFixesOf(fix *lint.Fix) []sarifFix {
	if fix == nil || len(fix.Edits) == 0 {
		return nil
	}
	converted := sarifFix{Description: sarifMessage{Text: fix.Description + " (" + string(fix.Safety) + " fix)"}}
	byFile := map[string]int{}
	for _, edit := range fix.Edits {
		i, ok := byFile[edit.File]
		if !ok {
			uri, baseID := sarifURI(edit.File)
			i = len(converted.ArtifactChanges)
			byFile[edit.File] = i
			converted.ArtifactChanges = append(converted.ArtifactChanges,
				sarifArtifactChange{ArtifactLocation: sarifArtifactLocation{URI: uri, URIBaseID: baseID}})
		}
		replacement := sarifReplacement{DeletedRegion: sarifEditRegion{StartLine: edit.Line, StartColumn: edit.Column,
			EndLine: edit.EndLine, EndColumn: edit.EndColumn}}
		if edit.Text != "" {
			replacement.InsertedContent = &sarifContent{Text: edit.Text}
		}
		converted.ArtifactChanges[i].Replacements = append(converted.ArtifactChanges[i].Replacements, replacement)
	}
	return []sarifFix{converted}
}
