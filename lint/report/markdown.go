package report

import (
	"fmt"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint"
)

// markdownLimit keeps a summary under GitHub's 1 MiB per step summary, with
// room for what a workflow adds; a larger one is dropped whole.
const markdownLimit = 900 << 10

// writeMarkdown writes a job summary in GitHub-flavoured Markdown, for
// $GITHUB_STEP_SUMMARY or a merge request comment: the counts by severity,
// a table of the unsuppressed findings, a timeline of each model server's
// start, and the suppressed ones folded away.
func writeMarkdown(w io.Writer, result *lint.Result, options Options) error {
	c := countResult(result)
	var out strings.Builder
	out.WriteString("## modellint\n\n")
	if c.errors+c.warnings+c.infos == 0 {
		out.WriteString("No findings in " + plural(len(result.Files), "file", "files") + ".\n\n")
	} else {
		fmt.Fprintf(&out, "%s, %s and %d info in %s.\n\n", plural(c.errors, "error", "errors"),
			plural(c.warnings, "warning", "warnings"), c.infos, plural(len(result.Files), "file", "files"))
	}
	out.WriteString("| Severity | Count |\n| --- | ---: |\n")
	fmt.Fprintf(&out, "| error | %d |\n| warning | %d |\n| info | %d |\n", c.errors, c.warnings, c.infos)
	if c.suppressed > 0 {
		fmt.Fprintf(&out, "| suppressed | %d |\n", c.suppressed)
	}
	if c.skipped > 0 {
		fmt.Fprintf(&out, "| rule checks skipped | %d |\n", c.skipped)
	}
	if len(result.InputErrors) > 0 {
		fmt.Fprintf(&out, "\n**%s could not be read**; everything else was linted:\n\n", plural(len(result.InputErrors), "input", "inputs"))
		for _, problem := range result.InputErrors {
			out.WriteString("- " + markdownText(problem.String()) + "\n")
		}
	}

	var shown, suppressed []lint.Finding
	for _, finding := range result.Findings {
		if finding.Suppressed() {
			suppressed = append(suppressed, finding)
		} else {
			shown = append(shown, finding)
		}
	}
	// Most severe first, as a reader fixes them; otherwise in file order.
	sort.SliceStable(shown, func(i, j int) bool { return shown[i].Severity > shown[j].Severity })
	if len(shown) > 0 {
		out.WriteString("\n| Severity | Rule | Location | Message |\n| --- | --- | --- | --- |\n")
		for i, finding := range shown {
			row := "| " + finding.Severity.String() + " | " + markdownRule(finding) + " | " +
				markdownLocation(finding.Location, options.SourceURL) + " | " + markdownMessage(finding) + " |\n"
			if out.Len()+len(row) > markdownLimit {
				fmt.Fprintf(&out, "\n%s not shown: the summary would exceed GitHub's size limit; the JSON and SARIF reports list every finding.\n",
					plural(len(shown)-i, "more finding", "more findings"))
				shown = nil
				break
			}
			out.WriteString(row)
		}
	}
	writeMarkdownFixes(&out, shown, options.SourceURL)
	writeMarkdownStarts(&out, result.Starts, result.Findings)
	if len(suppressed) > 0 && out.Len() < markdownLimit {
		fmt.Fprintf(&out, "\n<details><summary>%s</summary>\n\n", plural(len(suppressed), "suppressed finding", "suppressed findings"))
		out.WriteString("| Rule | Location | Suppressed by | Message |\n| --- | --- | --- | --- |\n")
		for i, finding := range suppressed {
			how := finding.Suppression.Kind
			if finding.Suppression.Reason != "" {
				how += ": " + finding.Suppression.Reason
			}
			row := "| " + markdownRule(finding) + " | " + markdownLocation(finding.Location, options.SourceURL) + " | " +
				markdownText(how) + " | " + markdownMessage(finding) + " |\n"
			if out.Len()+len(row) > markdownLimit {
				fmt.Fprintf(&out, "\n%s not shown.\n", plural(len(suppressed)-i, "more suppressed finding", "more suppressed findings"))
				break
			}
			out.WriteString(row)
		}
		out.WriteString("\n</details>\n")
	}
	if options.ToolVersion != "" {
		out.WriteString("\n<sub>modellint " + markdownText(options.ToolVersion) + "</sub>\n")
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// writeMarkdownFixes lists the fixes of the findings shown: each edit as a
// ```suggestion block of the lines it changes, which a review comment on
// those lines turns into GitHub's "Commit suggestion" button, and a fix
// that cannot be an edit as the YAML to write.
func writeMarkdownFixes(out *strings.Builder, shown []lint.Finding, sourceURL string) {
	header := false
	for _, finding := range shown {
		if finding.Fix == nil || out.Len() >= markdownLimit {
			continue
		}
		if !header {
			out.WriteString("\n### Fixes\n\n`modellint --fix` applies the safe ones; each block below is a review suggestion for the lines named.\n")
			header = true
		}
		fmt.Fprintf(out, "\n**%s** %s (%s fix): %s\n", markdownText(finding.RuleID), markdownLocation(finding.Location, sourceURL),
			markdownText(string(finding.Fix.Safety)), markdownText(finding.Fix.Description))
		for _, edit := range finding.Fix.Edits {
			fence := codeFence(edit.Review.Text)
			fmt.Fprintf(out, "\nLines %d–%d of %s:\n\n%ssuggestion\n%s\n%s\n", edit.Review.StartLine, edit.Review.EndLine,
				markdownText(edit.File), fence, edit.Review.Text, fence)
		}
		if len(finding.Fix.Edits) == 0 && finding.Fix.Suggestion != "" {
			fence := codeFence(finding.Fix.Suggestion)
			fmt.Fprintf(out, "\nTo write by hand:\n\n%syaml\n%s\n%s\n", fence, strings.TrimRight(finding.Fix.Suggestion, "\n"), fence)
		}
	}
}

// markdownRule links the rule to its documentation.
func markdownRule(finding lint.Finding) string {
	rule := finding.RuleID
	if finding.RuleName == "" {
		return markdownText(rule)
	}
	rule += " " + finding.RuleName
	docs := (&lint.Rule{ID: finding.RuleID, Name: finding.RuleName}).DocsURL()
	return "[" + markdownText(rule) + "](" + docs + ")"
}

// markdownLocation links a finding's file and line: to the file in the
// repository at the commit when sourceURL (…/blob/SHA) is given, else
// relative to the summary, which a merge request comment resolves.
func markdownLocation(location lint.Location, sourceURL string) string {
	text := markdownText(location.String())
	file := strings.ReplaceAll(location.File, "\\", "/")
	if file == "" || strings.HasPrefix(file, "/") || strings.HasPrefix(file, "<") || strings.HasPrefix(file, "../") {
		return text
	}
	// Parentheses would end the link; a colon in the first segment would
	// read as a scheme.
	target := strings.NewReplacer("(", "%28", ")", "%29").Replace((&url.URL{Path: file}).EscapedPath())
	if first, _, _ := strings.Cut(target, "/"); strings.Contains(first, ":") {
		target = "./" + target
	}
	if sourceURL != "" {
		target = strings.TrimRight(sourceURL, "/") + "/" + target
	}
	if location.Line > 0 {
		target += "#L" + strconv.Itoa(location.Line)
	}
	return "[" + text + "](" + target + ")"
}

// markdownMessage is the message, then the object and field path on a line
// of their own.
func markdownMessage(finding lint.Finding) string {
	message := markdownText(firstNonEmpty(finding.Message, finding.RuleName, finding.RuleID))
	if where := objectPath(finding); where != "" {
		message += "<br>" + markdownText(where)
	}
	for _, related := range finding.Related {
		message += "<br>" + markdownText(relatedText(related))
	}
	return message
}

// markdownText makes text safe in a table cell: a "|" would end the cell and
// a newline the row, and the other characters would turn into emphasis,
// links, code or HTML. Each is escaped with a backslash, which GitHub and
// GitLab both render as the character itself.
var markdownText = strings.NewReplacer(
	"\\", "\\\\", "|", "\\|", "`", "\\`", "*", "\\*", "_", "\\_",
	"[", "\\[", "]", "\\]", "<", "\\<", ">", "\\>", "~", "\\~", "&", "\\&",
	"\r\n", "<br>", "\n", "<br>", "\r", "<br>",
).Replace
