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

// TestLineMatcher: the problem matcher shipped for GitHub reads each error
// and warning line of the format: file, line, column, severity, rule and
// message; info lines stay in the log only (a matcher's severity is error
// or warning).
func TestLineMatcher(t *testing.T) {
	data, err := os.ReadFile("../../.github/modellint-matcher.json")
	if err != nil {
		t.Fatal(err)
	}
	var matcher struct {
		ProblemMatcher []struct {
			Owner   string
			Pattern []struct {
				Regexp                                            string
				File, Line, Column, Severity, Code, Message, Loop int
			}
		}
	}
	if err := json.Unmarshal(data, &matcher); err != nil || len(matcher.ProblemMatcher) != 1 || len(matcher.ProblemMatcher[0].Pattern) != 1 {
		t.Fatalf("%v: %s", err, data)
	}
	pattern := matcher.ProblemMatcher[0].Pattern[0]
	re := regexp.MustCompile(pattern.Regexp)
	result := testResult()
	result.Findings = append(result.Findings,
		lint.Finding{RuleID: "MDL101", Severity: lint.Error, Message: "no version dir: move it", Location: lint.Location{File: "models/a b/saved_model.pb"}},
		lint.Finding{RuleID: "MDL301", Severity: lint.Warning, Message: "at a line", Location: lint.Location{File: "c:d.yaml", Line: 7}})
	var out bytes.Buffer
	if err := Write(&out, "line", result, testOptions); err != nil {
		t.Fatal(err)
	}
	want := map[string][6]string{
		"MDL001": {"deploy/serving.yaml", "7", "5", "warning", "MDL001", "the modellint.dev/ignore annotation gives no reason: add one after the rule IDs"},
		"MDL205": {"deploy/serving.yaml", "24", "11", "error", "MDL205", `container "server" sets no memory limit; the model needs about 14.2 GiB (saved_model 9.5 GiB × 1.5), so set resources.limits.memory to at least 15Gi`},
		"MDL101": {"models/a b/saved_model.pb", "", "", "error", "MDL101", "no version dir: move it"},
		"MDL301": {"c:d.yaml", "7", "", "warning", "MDL301", "at a line"},
	}
	matched := 0
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		groups := re.FindStringSubmatch(line)
		if strings.Contains(line, ": info ") {
			if groups != nil {
				t.Errorf("an info line is annotated: %q", line)
			}
			continue
		}
		if groups == nil {
			t.Errorf("the matcher does not read %q", line)
			continue
		}
		got := [6]string{groups[pattern.File], groups[pattern.Line], groups[pattern.Column], groups[pattern.Severity], groups[pattern.Code], groups[pattern.Message]}
		if w, ok := want[got[4]]; ok {
			matched++
			if got != w {
				t.Errorf("the matcher reads %q as\n%q, want\n%q", line, got, w)
			}
		}
	}
	if matched < 3 {
		t.Errorf("matched %d of the expected lines:\n%s", matched, out.String())
	}
}
