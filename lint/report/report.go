package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/modellint/modellint/lint"
)

// Options change how a result is written.
type Options struct {
	// ToolVersion is modellint's version, e.g. "1.4.0" or "dev".
	ToolVersion string
	// Color adds ANSI colors to the table; other formats ignore it.
	Color bool
	// Verbose adds notes and skipped rule checks to the table.
	Verbose bool
	// SourceURL is where the linted files are browsed at this commit
	// (https://github.com/ORG/REPO/blob/SHA); the Markdown summary links
	// findings there. Empty: relative links.
	SourceURL string
	// Width is the terminal width the table wraps its message column to;
	// 0 is DefaultWidth.
	Width int
	// BaseDir is the absolute directory the report's paths are relative
	// to: the working directory. A file below it named by an absolute path
	// (an absolute PATH argument, the config file found by walking up) is
	// named relative to it; SARIF names it %SRCROOT%. A file outside it
	// keeps its absolute path. Empty: paths are printed as the result
	// holds them.
	BaseDir string
	// AnnotateFiles, when not nil, are the only files (report paths) the
	// github format annotates: the files a pull request changes. The
	// findings elsewhere are counted on a line of their own.
	AnnotateFiles map[string]bool
}

// Formats lists the format names accepted by Write, in the order of the help text.
var Formats = []string{"table", "line", "json", "sarif", "junit", "gitlab", "github", "markdown"}

// Write renders result in format to w.
func Write(w io.Writer, format string, result *lint.Result, options Options) error {
	if result == nil {
		result = &lint.Result{}
	}
	if !ReadsInParts(format) && result.InParts() {
		whole := *result // the caller's result stays as it is
		whole.Hold()
		result = &whole
	}
	result = printable(relativePaths(result, options.BaseDir))
	writers := map[string]func(io.Writer, *lint.Result, Options) error{
		"table": writeTable, "json": writeJSON, "sarif": writeSARIF, "junit": writeJUnit,
		"gitlab": writeGitLab, "github": writeGitHub, "markdown": writeMarkdown, "line": writeLine,
	}
	write, ok := writers[format]
	if !ok {
		return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
	}
	// The JSON formats never start a line with a string, and the github
	// format's lines are its own commands: the others are guarded.
	var guard *lineGuard
	if format == "table" || format == "markdown" || format == "junit" || format == "line" {
		guard = &lineGuard{w: w}
		w = guard
	}
	// The writers emit many small pieces; a report of 10,000 workloads
	// would otherwise be hundreds of thousands of write calls.
	buffered := bufio.NewWriterSize(w, 64<<10)
	if err := write(buffered, result, options); err != nil {
		return err
	}
	if err := buffered.Flush(); err != nil || guard == nil {
		return err
	}
	return guard.Flush()
}

// ReadsInParts says whether format reads the findings and links a part at
// a time (lint.Result.FindingParts). The others read them all at once:
// SARIF and GitLab fingerprints count alike findings over the run, JUnit
// gathers them into a case per rule and target, the Markdown summary
// orders them by severity.
func ReadsInParts(format string) bool {
	return format == "table" || format == "line" || format == "json"
}

// toolName is how modellint names itself in machine-readable reports.
const toolName = "modellint"

// informationURI is the project's home page.
const informationURI = "https://github.com/modellint/modellint"

// counts are the numbers every format summarizes.
type counts struct {
	errors, warnings, infos int
	suppressed              int
	skipped                 int
	// fixable and unsafeFixable are how many unsuppressed findings --fix
	// fixes, and how many more --fix --unsafe-fixes does.
	fixable, unsafeFixable int
}

func countResult(result *lint.Result) counts {
	var c counts
	for finding := range result.EachFinding() {
		c.add(finding)
	}
	c.addSkipped(result)
	return c
}

// add counts a finding.
func (c *counts) add(finding lint.Finding) {
	switch {
	case finding.Suppressed():
		c.suppressed++
		return
	case finding.Severity == lint.Error:
		c.errors++
	case finding.Severity == lint.Warning:
		c.warnings++
	default:
		c.infos++
	}
	switch {
	case finding.Fix.Applicable(false):
		c.fixable++
	case finding.Fix.Applicable(true):
		c.unsafeFixable++
	}
}

// addSkipped counts the result's skipped checks.
func (c *counts) addSkipped(result *lint.Result) {
	c.skipped = result.UnlistedSkips
	for _, evaluation := range result.Evaluations {
		if evaluation.Status == lint.StatusSkip {
			c.skipped++
		}
	}
}

// objectPath names where a finding is inside its file without line numbers:
// the target, then the field path, e.g.
// Deployment/default/tf-serving:spec.template.spec.containers[0].
func objectPath(finding lint.Finding) string {
	switch {
	case finding.Target == "":
		return finding.Location.Path
	case finding.Location.Path == "":
		return finding.Target
	}
	return finding.Target + ":" + finding.Location.Path
}

// plural returns "1 error", "2 errors".
func plural(n int, singular, pluralForm string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, singular)
	}
	return fmt.Sprintf("%d %s", n, pluralForm)
}

// Wrap is wrapWords for the command's help, so help and reports wrap alike.
func Wrap(text string, width int) []string { return wrapWords(text, width) }

// wrapWords breaks text into lines of at most width columns at spaces. A
// word longer than width (a long path) is broken after its slashes, else
// where the width ends; existing line breaks are kept.
func wrapWords(text string, width int) []string {
	var lines []string
	for _, paragraph := range strings.Split(text, "\n") {
		words := breakLongWords(codeSpanWords(strings.Fields(paragraph)), width)
		if len(words) == 0 {
			lines = append(lines, "")
			continue
		}
		// Each line's room made once (a width's worth, or the paragraph's
		// rest), not grown word by word: the table wraps every message.
		var line strings.Builder
		line.Grow(min(max(width, 0), len(paragraph)))
		line.WriteString(words[0])
		lineWidth := displayWidth(words[0])
		for _, word := range words[1:] {
			wordWidth := displayWidth(word)
			if lineWidth+1+wordWidth > width {
				lines = append(lines, line.String())
				line.Reset()
				line.Grow(min(max(width, 0), len(paragraph)))
				line.WriteString(word)
				lineWidth = wordWidth
				continue
			}
			line.WriteByte(' ')
			line.WriteString(word)
			lineWidth += 1 + wordWidth
		}
		lines = append(lines, line.String())
	}
	return lines
}

// breakLongWords splits each word wider than width into pieces that fit,
// after a "/" where one is in reach.
func breakLongWords(words []string, width int) []string {
	if width < 10 || !slices.ContainsFunc(words, func(word string) bool { return displayWidth(word) > width }) {
		return words
	}
	var out []string
	for _, word := range words {
		for displayWidth(word) > width {
			runes := []rune(word)
			cut := width
			if slash := strings.LastIndex(string(runes[:width]), "/"); slash > width/2 {
				cut = len([]rune(string(runes[:width])[:slash+1]))
			}
			out = append(out, string(runes[:cut]))
			word = string(runes[cut:])
		}
		out = append(out, word)
	}
	return out
}

// codeSpanWords joins the words of a `code span` into one, so that wrapping
// never breaks a command or a snippet across lines.
func codeSpanWords(words []string) []string {
	if !slices.ContainsFunc(words, func(word string) bool { return strings.Contains(word, "`") }) {
		return words
	}
	var joined []string
	open := false
	for _, word := range words {
		if open {
			joined[len(joined)-1] += " " + word
		} else {
			joined = append(joined, word)
		}
		if strings.Count(word, "`")%2 == 1 {
			open = !open
		}
	}
	return joined
}

// wrapPath breaks a field path into lines of at most width columns after
// dots, so that a long path stays readable in a narrow column.
func wrapPath(path string, width int) []string {
	if displayWidth(path) <= width {
		return []string{path}
	}
	var lines []string
	line := ""
	for _, segment := range splitAfterDots(path) {
		if line != "" && displayWidth(line)+displayWidth(segment) > width {
			lines = append(lines, line)
			line = ""
		}
		line += segment
	}
	return append(lines, line)
}

func splitAfterDots(path string) []string {
	var segments []string
	for {
		i := strings.IndexByte(path, '.')
		if i < 0 {
			if path != "" {
				segments = append(segments, path)
			}
			return segments
		}
		segments = append(segments, path[:i+1])
		path = path[i+1:]
	}
}
