package report

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"

	"github.com/modellint/modellint/lint"
)

// GitLab Code Quality reads a JSON array of Code Climate issues, and of each
// issue only these fields (GitLab's "Implement a custom tool" in
// doc/ci/testing/code_quality.md).
type codeQualityIssue struct {
	Description string              `json:"description"`
	CheckName   string              `json:"check_name"`
	Fingerprint string              `json:"fingerprint"`
	Severity    string              `json:"severity"`
	Location    codeQualityLocation `json:"location"`
}

type codeQualityLocation struct {
	Path  string           `json:"path"`
	Lines codeQualityLines `json:"lines"`
}

type codeQualityLines struct {
	Begin int `json:"begin"`
}

// writeGitLab writes a Code Quality report of the unsuppressed findings:
// GitLab has no notion of a suppressed issue and would show it as open.
// Fingerprints are lint.Fingerprints, so an issue keeps its identity in the
// merge request widget when lines move, and two findings are never merged.
func writeGitLab(w io.Writer, result *lint.Result, _ Options) error {
	// An empty report is "[]", never "null": GitLab reads null as no report.
	issues := make([]codeQualityIssue, 0, len(result.Findings))
	fingerprints := lint.Fingerprints(result.Findings)
	for i, finding := range result.Findings {
		if finding.Suppressed() {
			continue
		}
		description := finding.RuleID + ": " + firstNonEmpty(finding.Message, finding.RuleName)
		if where := objectPath(finding); where != "" {
			description += " (" + where + ")"
		}
		issues = append(issues, codeQualityIssue{
			Description: description,
			CheckName:   finding.RuleID,
			Fingerprint: fingerprints[i],
			Severity:    codeQualitySeverity(finding.Severity),
			Location: codeQualityLocation{
				Path: strings.ReplaceAll(finding.Location.File, "\\", "/"),
				// GitLab needs a line; a whole-file finding points at the first.
				Lines: codeQualityLines{Begin: max(1, finding.Location.Line)},
			},
		})
	}
	// An input that could not be read is a blocker: the report is incomplete.
	for _, problem := range result.InputErrors {
		sum := sha256.Sum256([]byte("input|" + problem.File + "|" + problem.Message))
		issues = append(issues, codeQualityIssue{
			Description: "input error: " + problem.Message,
			CheckName:   inputCheckName,
			Fingerprint: hex.EncodeToString(sum[:]),
			Severity:    "blocker",
			Location: codeQualityLocation{
				Path:  strings.ReplaceAll(problem.File, "\\", "/"),
				Lines: codeQualityLines{Begin: max(1, problem.Line)},
			},
		})
	}
	return writeIndentedJSON(w, issues)
}

// inputCheckName names input errors where a format wants a check or title.
const inputCheckName = "modellint-input-error"

// codeQualitySeverity maps to GitLab's info, minor, major, critical and
// blocker. An error fails the pipeline, which is critical; blocker is left
// for nothing, as modellint has no level above error; minor is unused, so
// that info stays what the user configured.
func codeQualitySeverity(severity lint.Severity) string {
	switch severity {
	case lint.Error:
		return "critical"
	case lint.Warning:
		return "major"
	}
	return "info"
}
