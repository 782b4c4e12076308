package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/modellint/modellint/internal/parallel"
	"github.com/modellint/modellint/lint"
)

// JUnit XML as GitLab, Jenkins and the GitHub test-report actions read it:
// one suite per input file, one case per rule checked on a target. Passing
// and skipped checks are cases too, so a CI system can show what was checked
// and track a case across runs; names therefore carry no line numbers.
type junitTestSuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Name     string           `xml:"name,attr"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Suites   []junitTestSuite `xml:"testsuite"`
}

type junitTestSuite struct {
	Name     string          `xml:"name,attr"`
	Tests    int             `xml:"tests,attr"`
	Failures int             `xml:"failures,attr"`
	Errors   int             `xml:"errors,attr"`
	Skipped  int             `xml:"skipped,attr"`
	File     string          `xml:"file,attr,omitempty"`
	Cases    []junitTestCase `xml:"testcase"`

	// checks are cases still to make, before Cases: made as the suite is
	// encoded (writeJUnitSuites), so a run's 430,000 cases are not all
	// held at once. ruleNames name their rules.
	checks    []*junitCheck
	ruleNames map[string]string
}

// withCases is the suite with the cases of its checks made.
func (s junitTestSuite) withCases() junitTestSuite {
	if len(s.checks) == 0 {
		return s
	}
	cases := make([]junitTestCase, 0, len(s.checks)+len(s.Cases))
	for _, check := range s.checks {
		cases = append(cases, junitCase(check, s.ruleNames[check.ruleID]))
	}
	s.Cases, s.checks = append(cases, s.Cases...), nil
	return s
}

type junitTestCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitMessage `xml:"failure"`
	Error     *junitMessage `xml:"error"`
	Skipped   *junitMessage `xml:"skipped"`
	SystemOut *junitText    `xml:"system-out"`
}

// junitText is element text kept in CDATA, so that multi-line details stay
// readable in the file instead of turning into character references.
type junitText struct {
	Text string `xml:",cdata"`
}

// junitMessage is a failure or skipped element. GitLab shows the element's
// text and ignores the message attribute, so the text repeats the details.
type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

// junitCheck is one rule on one target in one file, with what it found.
type junitCheck struct {
	ruleID, target, file string
	line                 int
	evaluation           *lint.Evaluation
	findings             []lint.Finding
}

// fails says the check's case fails: a finding that is not suppressed.
func (c *junitCheck) fails() bool {
	return slices.ContainsFunc(c.findings, func(finding lint.Finding) bool { return !finding.Suppressed() })
}

// skipped says the check's case is skipped: the rule was, and found nothing.
func (c *junitCheck) skipped() bool {
	return !c.fails() && c.evaluation != nil && c.evaluation.Status == lint.StatusSkip
}

func writeJUnit(w io.Writer, result *lint.Result, _ Options) error {
	names := ruleNames(result.Rules)
	type checkKey struct{ file, rule, target string }
	checks := map[checkKey]*junitCheck{}
	var order []*junitCheck
	for i := range result.Evaluations {
		evaluation := &result.Evaluations[i]
		key := checkKey{evaluation.File, evaluation.RuleID, evaluation.Target}
		if checks[key] != nil {
			continue
		}
		check := &junitCheck{ruleID: evaluation.RuleID, target: evaluation.Target, file: evaluation.File, line: evaluation.Line, evaluation: evaluation}
		checks[key] = check
		order = append(order, check)
	}
	// Findings the engine reports itself have no evaluation; they become a
	// case of their own, placed at their first line.
	for _, finding := range result.Findings {
		key := checkKey{finding.Location.File, finding.RuleID, finding.Target}
		check := checks[key]
		if check == nil {
			check = &junitCheck{ruleID: finding.RuleID, target: finding.Target, file: finding.Location.File, line: finding.Location.Line}
			checks[key] = check
			order = append(order, check)
			if names[finding.RuleID] == "" {
				names[finding.RuleID] = finding.RuleName
			}
		}
		check.findings = append(check.findings, finding)
	}

	suites := map[string]*junitTestSuite{}
	var suiteOrder []string
	addSuite := func(file string) *junitTestSuite {
		if suite := suites[file]; suite != nil {
			return suite
		}
		suite := &junitTestSuite{Name: file, File: file, ruleNames: names}
		suites[file] = suite
		suiteOrder = append(suiteOrder, file)
		return suite
	}
	for _, file := range result.Files {
		addSuite(file)
	}
	// Files that are not inputs (a config file holding an ignore) follow
	// the inputs, in name order.
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.line != b.line {
			return a.line < b.line
		}
		if a.target != b.target {
			return a.target < b.target
		}
		return a.ruleID < b.ruleID
	})
	for _, check := range order {
		suite := addSuite(check.file)
		suite.checks = append(suite.checks, check)
		suite.Tests++
		switch {
		case check.fails():
			suite.Failures++
		case check.skipped():
			suite.Skipped++
		}
	}

	// An input that could not be read is an error case in its file's suite.
	for _, problem := range result.InputErrors {
		suite := addSuite(problem.File)
		suite.Cases = append(suite.Cases, junitTestCase{
			Name: "input: " + problem.File, ClassName: toolName + ".input", File: problem.File, Line: problem.Line,
			Error: &junitMessage{Message: problem.Message, Type: "input", Text: xmlText(problem.String() + "\n")},
		})
		suite.Tests++
		suite.Errors++
	}

	report := junitTestSuites{Name: toolName}
	for _, file := range suiteOrder {
		suite := suites[file]
		report.Tests += suite.Tests
		report.Failures += suite.Failures
		report.Errors += suite.Errors
		report.Suites = append(report.Suites, *suite)
	}
	return writeJUnitSuites(w, report)
}

// junitSuiteBatch is how many suites are encoded at once, on every CPU.
const junitSuiteBatch = 64

// xmlBuffers hold encoded suites until they are written; reused, so a
// run's 1,000 suites do not each grow a buffer of their own.
var xmlBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeJUnitSuites writes the report as one encoding/xml encoding of it,
// indented, would (TestJUnitSuitesEncodedApart): its suites, each encoded
// on its own at the depth it has in the whole, on every CPU a batch at a
// time. Encoded whole, on one CPU, encoding/xml took most of the time a
// 10,000-workload run spent writing its 430,000 cases.
func writeJUnitSuites(w io.Writer, report junitTestSuites) error {
	suites := report.Suites
	report.Suites = nil
	var head bytes.Buffer
	if err := encodeXML(&head, report, "", xml.StartElement{}); err != nil {
		return err
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	if len(suites) == 0 {
		_, err := io.WriteString(w, head.String()+"\n") // <testsuites ...></testsuites>
		return err
	}
	if _, err := io.WriteString(w, strings.TrimSuffix(head.String(), "</testsuites>")); err != nil {
		return err
	}
	element := xml.StartElement{Name: xml.Name{Local: "testsuite"}}
	type encoded struct {
		xml *bytes.Buffer
		err error
	}
	for start := 0; start < len(suites); start += junitSuiteBatch {
		batch := suites[start:min(start+junitSuiteBatch, len(suites))]
		for _, suite := range parallel.Map(batch, func(suite junitTestSuite) encoded {
			buffer := xmlBuffers.Get().(*bytes.Buffer)
			buffer.Reset()
			return encoded{buffer, encodeXML(buffer, suite.withCases(), "  ", element)}
		}) {
			err := suite.err
			if err == nil {
				_, err = io.WriteString(w, "\n")
			}
			if err == nil {
				_, err = w.Write(suite.xml.Bytes())
			}
			xmlBuffers.Put(suite.xml)
			if err != nil {
				return err
			}
		}
	}
	_, err := io.WriteString(w, "\n</testsuites>\n")
	return err
}

// encodeXML encodes value into out, indented by two spaces a level after
// prefix, as the element start when it has a name.
func encodeXML(out *bytes.Buffer, value any, prefix string, start xml.StartElement) error {
	encoder := xml.NewEncoder(out)
	encoder.Indent(prefix, "  ")
	var err error
	if start.Name.Local != "" {
		err = encoder.EncodeElement(value, start)
	} else {
		err = encoder.Encode(value)
	}
	if err == nil {
		err = encoder.Close()
	}
	if err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	return nil
}

func junitCase(check *junitCheck, ruleName string) junitTestCase {
	title := check.ruleID
	if ruleName != "" {
		title += " " + ruleName
	}
	testCase := junitTestCase{
		Name:      title + ": " + firstNonEmpty(check.target, check.file),
		ClassName: toolName + "." + check.ruleID,
		File:      check.file,
		Line:      check.line,
	}
	var failing, suppressed []lint.Finding
	for _, finding := range check.findings {
		if finding.Suppressed() {
			suppressed = append(suppressed, finding)
		} else {
			failing = append(failing, finding)
		}
	}
	switch {
	case len(failing) > 0:
		worst := failing[0].Severity
		var body strings.Builder
		for _, finding := range failing {
			worst = max(worst, finding.Severity)
			body.WriteString(findingLine(finding) + "\n")
		}
		testCase.Failure = &junitMessage{Message: failing[0].Message, Type: worst.String(), Text: xmlText(body.String())}
		// A failing case points where its first finding is, not at the
		// object's first line: that is the line a CI system annotates.
		for _, finding := range failing {
			if finding.Location.Line > 0 && finding.Location.File == check.file {
				testCase.Line = finding.Location.Line
				break
			}
		}
	case check.skipped():
		reason := firstNonEmpty(check.evaluation.Reason, "not applicable")
		testCase.Skipped = &junitMessage{Message: reason}
	}
	// Suppressed findings do not fail the case, but stay visible in its output.
	if len(suppressed) > 0 {
		var out strings.Builder
		for _, finding := range suppressed {
			how := "suppressed by " + finding.Suppression.Kind
			if finding.Suppression.Reason != "" {
				how += ": " + finding.Suppression.Reason
			}
			out.WriteString(findingLine(finding) + " [" + how + "]\n")
		}
		testCase.SystemOut = &junitText{Text: xmlText(out.String())}
	}
	return testCase
}

// findingLine is "file:line:col: message (path)", the form editors and CI
// logs turn into links.
func findingLine(finding lint.Finding) string {
	line := finding.Location.String() + ": " + finding.Message
	if finding.Location.Path != "" {
		line += " (" + finding.Location.Path + ")"
	}
	for _, related := range finding.Related {
		line += "; " + relatedText(related)
	}
	return line
}

// xmlText replaces what cannot appear in XML 1.0 text (most control
// characters): CDATA is written as is. encoding/xml splits a "]]>" itself.
func xmlText(text string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == 0xFFFE, r == 0xFFFF, r >= 0xD800 && r <= 0xDFFF:
			return '\uFFFD'
		}
		return r
	}, text)
}
