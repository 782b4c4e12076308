package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// TestFixableMarks: the table marks the findings --fix fixes and says how
// many there are, and how many more --unsafe-fixes would fix, as ruff
// does; suppressed findings and suggestions are not counted. The JSON
// report's summary gives the same counts.
func TestFixableMarks(t *testing.T) {
	edit := []manifest.Edit{{File: "a.yaml", Text: "x"}}
	finding := func(message string, fix *lint.Fix) lint.Finding {
		return lint.Finding{RuleID: "MDL205", Severity: lint.Error, Message: message, Location: lint.Location{File: "a.yaml", Line: 1}, Fix: fix}
	}
	cases := []struct {
		name            string
		findings        []lint.Finding
		want            string
		fixable, unsafe int // the JSON summary's fixable and unsafeFixable
	}{
		{"none", []lint.Finding{finding("plain", nil)}, "", 0, 0},
		{"suggestion", []lint.Finding{finding("by hand", &lint.Fix{Safety: lint.FixSafe, Suggestion: "memory: 1Gi\n"})}, "", 0, 0},
		{"safe", []lint.Finding{finding("safe one", &lint.Fix{Safety: lint.FixSafe, Edits: edit}), finding("plain", nil)},
			"[*] 1 fixable with --fix", 1, 0},
		{"counted only", []lint.Finding{finding("safe one", lint.FixableOnly(lint.FixSafe)), finding("unsafe one", lint.FixableOnly(lint.FixUnsafe))},
			"[*] 1 fixable with --fix (1 more with --fix --unsafe-fixes)", 1, 1},
		{"unsafe", []lint.Finding{finding("unsafe one", &lint.Fix{Safety: lint.FixUnsafe, Moves: []lint.Move{{From: "a", To: "1/a"}}})},
			"1 fixable with --fix --unsafe-fixes", 0, 1},
		{"suppressed", []lint.Finding{{RuleID: "MDL205", Fix: &lint.Fix{Safety: lint.FixSafe, Edits: edit}, Suppression: &lint.Suppression{Kind: "config"}}}, "", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			result := &lint.Result{Files: []string{"a.yaml"}, Findings: c.findings}
			if got := fixableLine(countResult(result)); got != c.want {
				t.Errorf("fixableLine = %q, want %q", got, c.want)
			}
			var out bytes.Buffer
			if err := Write(&out, "table", result, Options{}); err != nil {
				t.Fatal(err)
			}
			if c.want != "" && !strings.HasSuffix(out.String(), "\n"+c.want+"\n") {
				t.Errorf("the table does not end with %q:\n%s", c.want, out.String())
			}
			marked := strings.Contains(out.String(), "[*] safe one")
			if wantMark := strings.HasPrefix(c.want, "[*]"); marked != wantMark {
				t.Errorf("safe fix marked %v, want %v:\n%s", marked, wantMark, out.String())
			}
			if strings.Contains(out.String(), "[*] unsafe") || strings.Contains(out.String(), "[*] plain") {
				t.Errorf("a finding --fix leaves is marked:\n%s", out.String())
			}
			out.Reset()
			if err := Write(&out, "json", result, Options{}); err != nil {
				t.Fatal(err)
			}
			var report struct {
				Summary map[string]int `json:"summary"`
			}
			if err := json.Unmarshal(out.Bytes(), &report); err != nil {
				t.Fatal(err)
			}
			fixable, fixableSet := report.Summary["fixable"]
			unsafe, unsafeSet := report.Summary["unsafeFixable"]
			if !fixableSet || !unsafeSet || fixable != c.fixable || unsafe != c.unsafe {
				t.Errorf("JSON summary %v, want fixable %d and unsafeFixable %d", report.Summary, c.fixable, c.unsafe)
			}
		})
	}
}
