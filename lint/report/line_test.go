package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
)

// TestLineGolden: the line format is one line per unsuppressed finding,
// file:line:col: severity RULE: message, and nothing else; a hostile
// file name starts no workflow command.
func TestLineGolden(t *testing.T) {
	for name, result := range map[string]*lint.Result{
		"findings.line.txt": testResult(), "clean.line.txt": cleanResult(), "hostile.line.txt": hostileResult(),
	} {
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			if err := Write(&got, "line", result, testOptions); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(goldenDir, name)
			if *update {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./lint/report -run TestLineGolden -update)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("output differs from %s:\n%s", path, got.String())
			}
			for _, line := range strings.Split(got.String(), "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "::") {
					t.Errorf("a line starts a workflow command: %q", line)
				}
			}
		})
	}
}

// TestLineMatcher: the problem matcher shipped for GitHub reads each line
// of the format: file, line, column, severity, rule and message. The
// runner takes error, warning or notice as a severity, from the line or
// as the matcher's default (actions/runner, src/Runner.Worker/IssueMatcher.cs
// Validate and Handlers/OutputManager.cs ConvertToIssue; it drops a line
// whose severity is another word), so info lines have a matcher of their
// own whose default is notice, as -f github writes ::notice for them.
func TestLineMatcher(t *testing.T) {
	data, err := os.ReadFile("../../.github/modellint-matcher.json")
	if err != nil {
		t.Fatal(err)
	}
	type pattern struct {
		Regexp                                            string
		File, Line, Column, Severity, Code, Message, Loop int
	}
	var matcher struct {
		ProblemMatcher []struct {
			Owner    string
			Severity string
			Pattern  []pattern
		}
	}
	if err := json.Unmarshal(data, &matcher); err != nil || len(matcher.ProblemMatcher) == 0 {
		t.Fatalf("%v: %s", err, data)
	}
	// What the runner checks when the matcher is added.
	type compiled struct {
		re       *regexp.Regexp
		pattern  pattern
		severity string // the default
	}
	var matchers []compiled
	owners := map[string]bool{}
	for _, m := range matcher.ProblemMatcher {
		if m.Owner == "" || owners[strings.ToLower(m.Owner)] {
			t.Errorf("owner %q is empty or not unique", m.Owner)
		}
		owners[strings.ToLower(m.Owner)] = true
		switch strings.ToLower(m.Severity) {
		case "", "error", "warning", "notice":
		default:
			t.Errorf("matcher %s: default severity %q, which the runner refuses", m.Owner, m.Severity)
		}
		if len(m.Pattern) != 1 || m.Pattern[0].Message == 0 {
			t.Fatalf("matcher %s: want one pattern with a message group: %+v", m.Owner, m.Pattern)
		}
		re := regexp.MustCompile(m.Pattern[0].Regexp)
		for _, group := range []int{m.Pattern[0].File, m.Pattern[0].Line, m.Pattern[0].Column, m.Pattern[0].Severity, m.Pattern[0].Code, m.Pattern[0].Message} {
			if group > re.NumSubexp() {
				t.Errorf("matcher %s: group %d of a regexp with %d", m.Owner, group, re.NumSubexp())
			}
		}
		matchers = append(matchers, compiled{re, m.Pattern[0], m.Severity})
	}
	// read is what the runner makes of a line: the first matcher that
	// matches it, the severity from the line, else the matcher's default.
	read := func(line string) ([6]string, bool) {
		for _, m := range matchers {
			groups := m.re.FindStringSubmatch(line)
			if groups == nil {
				continue
			}
			group := func(i int) string {
				if i == 0 {
					return ""
				}
				return groups[i]
			}
			severity := group(m.pattern.Severity)
			if severity == "" {
				severity = m.severity
			}
			if severity == "" {
				severity = "error"
			}
			return [6]string{group(m.pattern.File), group(m.pattern.Line), group(m.pattern.Column), strings.ToLower(severity),
				group(m.pattern.Code), group(m.pattern.Message)}, true
		}
		return [6]string{}, false
	}
	result := testResult()
	result.Findings = append(result.Findings,
		lint.Finding{RuleID: "MDL101", Severity: lint.Error, Message: "no version dir: move it", Location: lint.Location{File: "models/a b/saved_model.pb"}},
		lint.Finding{RuleID: "MDL301", Severity: lint.Warning, Message: "at a line", Location: lint.Location{File: "c:d.yaml", Line: 7}},
		lint.Finding{RuleID: "MDL410", Severity: lint.Info, Message: "a note: read it", Location: lint.Location{File: "e.yaml", Line: 3, Column: 2}})
	var out bytes.Buffer
	if err := Write(&out, "line", result, testOptions); err != nil {
		t.Fatal(err)
	}
	want := map[string][6]string{
		"MDL001": {"deploy/serving.yaml", "7", "5", "warning", "MDL001", "the modellint.dev/ignore annotation gives no reason: add one after the rule IDs"},
		"MDL205": {"deploy/serving.yaml", "24", "11", "error", "MDL205", `container "server" sets no memory limit; the model needs about 14.2 GiB (saved_model 9.5 GiB × 1.5), so set resources.limits.memory to at least 15Gi`},
		"MDL101": {"models/a b/saved_model.pb", "", "", "error", "MDL101", "no version dir: move it"},
		"MDL301": {"c:d.yaml", "7", "", "warning", "MDL301", "at a line"},
		"MDL410": {"e.yaml", "3", "2", "notice", "MDL410", "a note: read it"},
	}
	matched := 0
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		got, ok := read(line)
		if !ok {
			t.Errorf("the matcher does not read %q", line)
			continue
		}
		if severity := map[string]string{"error": ": error ", "warning": ": warning ", "notice": ": info "}[got[3]]; !strings.Contains(line, severity) {
			t.Errorf("the matcher reads %q as a %q", line, got[3])
		}
		if w, ok := want[got[4]]; ok && got[0] == w[0] {
			matched++
			if got != w {
				t.Errorf("the matcher reads %q as\n%q, want\n%q", line, got, w)
			}
		}
	}
	if matched < len(want) {
		t.Errorf("matched %d of the expected lines:\n%s", matched, out.String())
	}
}
