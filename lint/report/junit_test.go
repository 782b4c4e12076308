package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
)

// xmllintEnv names xmllint when it is not on PATH.
const xmllintEnv = "MODELLINT_XMLLINT"

// junitSamples are the JUnit reports the validators check.
func junitSamples(t *testing.T) map[string][]byte {
	t.Helper()
	samples := map[string]*lint.Result{
		"findings": testResult(),
		"clean":    cleanResult(),
		"real":     realResult(t),
		"empty":    {},
		"awkward": {
			Files: []string{"a&b <c>.yaml"},
			Findings: []lint.Finding{{
				RuleID: "MDL900", Severity: lint.Error, Message: "bad \x00 byte, \"quotes\", ]]> and <tags> & more\nsecond line",
				Location: lint.Location{File: "a&b <c>.yaml", Line: 2, Column: 1, Path: "spec"}, Target: "Pod/x",
			}},
		},
	}
	reports := map[string][]byte{}
	for name, result := range samples {
		var out bytes.Buffer
		if err := Write(&out, "junit", result, testOptions); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		reports[name] = out.Bytes()
	}
	return reports
}

// TestJUnitXSD validates reports against junit.xsd, Jenkins' junit-10.xsd
// with file and line allowed on testcase.
func TestJUnitXSD(t *testing.T) {
	xmllint := findValidator(t, xmllintEnv, "xmllint", "apt-get install libxml2-utils")
	schema := filepath.Join(schemaDir, "junit.xsd")
	for name, report := range junitSamples(t) {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name+".xml")
			if err := os.WriteFile(path, report, 0o644); err != nil {
				t.Fatal(err)
			}
			output, err := exec.Command(xmllint, "--noout", "--schema", schema, path).CombinedOutput()
			if err != nil {
				t.Errorf("xmllint: %v\n%s\n%s", err, output, report)
			}
		})
	}
}

// TestJUnitSchemaIsShared checks that the schemas the reports are validated
// against are Jenkins' junit-10.xsd as the project's shared folder holds it,
// and junit.xsd that schema with only file and line added on testcase.
func TestJUnitSchemaIsShared(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "shared", "schemas", "junit-10.xsd")
	want, err := os.ReadFile(shared)
	if err != nil {
		t.Skipf("%s does not exist: no shared schema to compare with (it lives beside the repository)", shared)
	}
	jenkins, err := os.ReadFile(filepath.Join(schemaDir, "junit-10.xsd"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(jenkins, want) {
		t.Errorf("testdata/schemas/junit-10.xsd differs from %s: copy it again", shared)
	}
	extended, err := os.ReadFile(filepath.Join(schemaDir, "junit.xsd"))
	if err != nil {
		t.Fatal(err)
	}
	header := regexp.MustCompile(`(?s)\A(<\?xml[^\n]*\n)<!--\njunit\.xsd:.*?-->\n`)
	got := header.ReplaceAll(extended, []byte("$1"))
	attributes := []byte("\n            <xs:attribute name=\"file\" type=\"xs:string\"/>\n            <xs:attribute name=\"line\" type=\"xs:positiveInteger\"/>")
	if bytes.Count(got, attributes) != 1 || !bytes.Equal(bytes.Replace(got, attributes, nil, 1), want) {
		t.Errorf("testdata/schemas/junit.xsd is not %s with file and line added on testcase", shared)
	}
}

// junitReport is the subset of the report the tests read back.
type junitReport struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			ClassName string `xml:"classname,attr"`
			File      string `xml:"file,attr"`
			Line      int    `xml:"line,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitCases(t *testing.T) {
	var report junitReport
	if err := xml.Unmarshal(junitSamples(t)["findings"], &report); err != nil {
		t.Fatal(err)
	}
	if len(report.Suites) != 2 || report.Suites[0].Name != servingFile || report.Suites[1].Name != batchFile {
		t.Fatalf("want one suite per input file, in input order; got %+v", report.Suites)
	}
	// Nine evaluations, plus the MDL001 finding, which has none.
	if report.Tests != 10 || report.Failures != 4 {
		t.Errorf("tests=%d failures=%d, want 10 and 4", report.Tests, report.Failures)
	}
	lineNumber := regexp.MustCompile(`:\d+`)
	seen := map[string]bool{}
	type outcome struct{ failure, skipped, systemOut string }
	outcomes := map[string]outcome{}
	for _, suite := range report.Suites {
		failures, skipped := 0, 0
		for _, testCase := range suite.Cases {
			key := testCase.ClassName + " " + testCase.Name
			if seen[key] {
				t.Errorf("case %q appears twice: CI systems drop duplicates", key)
			}
			seen[key] = true
			if lineNumber.MatchString(testCase.Name) {
				t.Errorf("case name %q holds a line number: it would change when lines move", testCase.Name)
			}
			if testCase.File != suite.Name || testCase.Line < 1 {
				t.Errorf("case %q: file %q line %d, want the suite's file and a line", testCase.Name, testCase.File, testCase.Line)
			}
			var o outcome
			if testCase.Failure != nil {
				failures++
				o.failure = testCase.Failure.Type + ": " + testCase.Failure.Text
			}
			if testCase.Skipped != nil {
				skipped++
				o.skipped = testCase.Skipped.Message
			}
			o.systemOut = testCase.SystemOut
			outcomes[testCase.Name] = o
		}
		if suite.Tests != len(suite.Cases) || suite.Failures != failures || suite.Skipped != skipped {
			t.Errorf("suite %s counts tests=%d failures=%d skipped=%d, its cases %d, %d, %d",
				suite.Name, suite.Tests, suite.Failures, suite.Skipped, len(suite.Cases), failures, skipped)
		}
	}
	lines := map[string]int{}
	for _, suite := range report.Suites {
		for _, testCase := range suite.Cases {
			lines[testCase.Name] = testCase.Line
		}
	}
	// A failing case is at its finding's line, a passing one at its object's.
	for name, want := range map[string]int{
		"MDL205 memory-limit-missing: Deployment/default/tf-serving":       24,
		"MDL201 readiness-probe-missing: Deployment/default/tf-serving":    18,
		"MDL001 suppression-reason-missing: Deployment/default/tf-serving": 7,
		"MDL205 memory-limit-missing: Job/ml/batch-infer":                  1, // the finding has no line
		"MDL201 readiness-probe-missing: Job/ml/batch-infer":               1, // suppressed: passes
		"MDL205 memory-limit-missing: Deployment/default/router":           40,
	} {
		if lines[name] != want {
			t.Errorf("case %q: line %d, want %d", name, lines[name], want)
		}
	}
	tests := []struct {
		name        string
		failure     string // a prefix
		skipped     bool
		suppression bool
	}{
		{name: "MDL205 memory-limit-missing: Deployment/default/tf-serving", failure: "error: deploy/serving.yaml:24:11: container"},
		{name: "MDL201 readiness-probe-missing: Deployment/default/tf-serving", failure: "warning: deploy/serving.yaml:18:9: "},
		{name: "MDL001 suppression-reason-missing: Deployment/default/tf-serving", failure: "warning: deploy/serving.yaml:7:5: "},
		{name: "MDL205 memory-limit-missing: Job/ml/batch-infer", failure: "info: deploy/batch job.yaml: the Job"},
		{name: "MDL201 readiness-probe-missing: Job/ml/batch-infer", suppression: true},
		{name: "MDL205 memory-limit-missing: Deployment/default/router"},
		{name: "MDL401 image-runs-as-root: Deployment/default/router", skipped: true},
	}
	for _, test := range tests {
		got, ok := outcomes[test.name]
		switch {
		case !ok:
			t.Errorf("no case %q", test.name)
		case !strings.HasPrefix(got.failure, test.failure) || (test.failure == "") != (got.failure == ""):
			t.Errorf("case %q: failure %q, want one starting with %q", test.name, got.failure, test.failure)
		case test.skipped != (got.skipped != ""):
			t.Errorf("case %q: skipped %q, want skipped=%v", test.name, got.skipped, test.skipped)
		case test.suppression != strings.Contains(got.systemOut, "suppressed by inline: batch jobs take no traffic"):
			t.Errorf("case %q: output %q, want the suppression listed=%v", test.name, got.systemOut, test.suppression)
		}
	}
}

func TestJUnitKeepsAwkwardText(t *testing.T) {
	var report junitReport
	if err := xml.Unmarshal(junitSamples(t)["awkward"], &report); err != nil {
		t.Fatal(err)
	}
	failure := report.Suites[0].Cases[0].Failure
	if failure == nil {
		t.Fatal("no failure")
	}
	// The NUL and the line break of the message are escaped as every
	// format escapes them; XML's own characters are kept.
	want := "a&b <c>.yaml:2:1: bad \\x00 byte, \"quotes\", ]]> and <tags> & more\\nsecond line (spec)\n"
	if failure.Text != want {
		t.Errorf("failure text %q, want %q", failure.Text, want)
	}
	if !strings.HasPrefix(failure.Message, "bad \\x00 byte") {
		t.Errorf("failure message %q", failure.Message)
	}
}

// TestJUnitSuitesEncodedApart: the suites encoded one by one and joined are
// the bytes encoding/xml writes for the whole report: with no suite, one,
// and more than a batch, with text that must be escaped or split.
func TestJUnitSuitesEncodedApart(t *testing.T) {
	awkward := "a <b> & \"c\" 'd'\n\te ]]> f"
	suite := func(i int) junitTestSuite {
		s := junitTestSuite{Name: fmt.Sprintf("dir/file-%d.yaml", i), File: fmt.Sprintf("dir/file-%d.yaml", i)}
		for c := range i % 4 {
			testCase := junitTestCase{Name: fmt.Sprintf("MDL20%d rule: %s", c, awkward), ClassName: "modellint.MDL20" + fmt.Sprint(c), File: s.File, Line: c}
			switch c {
			case 1:
				testCase.Failure = &junitMessage{Message: awkward, Type: "error", Text: awkward + "\n"}
			case 2:
				testCase.Skipped = &junitMessage{Message: "no image read"}
			case 3:
				testCase.SystemOut = &junitText{Text: awkward}
			}
			s.Cases = append(s.Cases, testCase)
			s.Tests++
		}
		return s
	}
	for _, suites := range []int{0, 1, 2, junitSuiteBatch + 3} {
		report := junitTestSuites{Name: "modellint", Tests: suites}
		for i := range suites {
			report.Suites = append(report.Suites, suite(i))
		}
		var whole bytes.Buffer
		whole.WriteString(xml.Header)
		encoder := xml.NewEncoder(&whole)
		encoder.Indent("", "  ")
		if err := encoder.Encode(report); err != nil {
			t.Fatal(err)
		}
		encoder.Close()
		whole.WriteString("\n")

		var apart bytes.Buffer
		if err := writeJUnitSuites(&apart, report); err != nil {
			t.Fatal(err)
		}
		if apart.String() != whole.String() {
			t.Errorf("%d suites: encoded apart\n%s\nwhole\n%s", suites, apart.String(), whole.String())
		}
	}
}
