package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint"
)

// githubAnnotationLimit is how many annotations of one level GitHub shows
// per step; it drops the rest silently, so the format says so itself.
const githubAnnotationLimit = 10

// githubLevels are the workflow commands for each severity, most severe
// first: annotations are written in this order.
var githubLevels = []struct {
	severity lint.Severity
	command  string
}{
	{lint.Error, "error"},
	{lint.Warning, "warning"},
	{lint.Info, "notice"},
}

// writeGitHub writes GitHub Actions workflow commands, one annotation per
// unsuppressed finding, then a plain summary line for the log:
//
//	::error file=deploy/serving.yaml,line=24,col=11,title=MDL205 memory-limit-missing::message
func writeGitHub(w io.Writer, result *lint.Result, options Options) error {
	var out strings.Builder
	notAnnotated, elsewhere := 0, 0
	// Inputs that could not be read come first: the findings below are
	// incomplete without them.
	for _, problem := range result.InputErrors {
		properties := []string{"file=" + githubProperty(strings.ReplaceAll(problem.File, "\\", "/"))}
		if problem.Line > 0 {
			properties = append(properties, "line="+strconv.Itoa(problem.Line))
		}
		properties = append(properties, "title="+githubProperty(inputCheckName))
		out.WriteString("::error " + strings.Join(properties, ",") + "::" + githubData(problem.Message) + "\n")
	}
	for _, level := range githubLevels {
		written := 0
		for _, finding := range result.Findings {
			if finding.Suppressed() || finding.Severity != level.severity {
				continue
			}
			if options.AnnotateFiles != nil && !options.AnnotateFiles[strings.ReplaceAll(finding.Location.File, "\\", "/")] {
				elsewhere++
				continue
			}
			if written == githubAnnotationLimit {
				notAnnotated++
				continue
			}
			written++
			out.WriteString(githubAnnotation(level.command, finding) + "\n")
		}
	}
	if elsewhere > 0 {
		fmt.Fprintf(&out, "modellint: %s in files the pull request does not change not annotated; the job summary and the SARIF report list every finding\n",
			plural(elsewhere, "finding", "findings"))
	}
	if notAnnotated > 0 {
		fmt.Fprintf(&out, "modellint: %s not annotated: GitHub shows at most %d annotations of each level per step; the job summary and the SARIF report list every finding\n",
			plural(notAnnotated, "finding", "findings"), githubAnnotationLimit)
	}
	out.WriteString("modellint: " + summaryLine(result, countResult(result)) + "\n")
	_, err := io.WriteString(w, out.String())
	return err
}

func githubAnnotation(command string, finding lint.Finding) string {
	properties := []string{"file=" + githubProperty(strings.ReplaceAll(finding.Location.File, "\\", "/"))}
	if finding.Location.Line > 0 {
		properties = append(properties, "line="+strconv.Itoa(finding.Location.Line))
		if finding.Location.Column > 0 {
			properties = append(properties, "col="+strconv.Itoa(finding.Location.Column))
		}
	}
	title := finding.RuleID
	if finding.RuleName != "" {
		title += " " + finding.RuleName
	}
	properties = append(properties, "title="+githubProperty(title))
	message := firstNonEmpty(finding.Message, finding.RuleName, finding.RuleID)
	if where := objectPath(finding); where != "" {
		message += "\n" + where
	}
	for _, related := range finding.Related {
		message += "\n" + relatedText(related)
	}
	return "::" + command + " " + strings.Join(properties, ",") + "::" + githubData(message)
}

// githubData escapes a command's message as the Actions toolkit does
// (actions/toolkit packages/core/src/command.ts), so that a finding's text
// can neither end the command early nor start a new one on the next line.
var githubData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace

// githubProperty escapes a property value: as data, and also the ":" and ","
// that separate properties.
var githubProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace
