package baseline

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/modellint/modellint/lint"
)

func finding(rule, path string, line int) lint.Finding {
	return lint.Finding{RuleID: rule, Severity: lint.Error, Message: rule + " at " + path, Target: "Deployment/ns/app",
		Location: lint.Location{File: "deploy.yaml", Line: line, Path: path}}
}

// TestApplyCountsDuplicates: a baseline that knows one of two identical
// findings lets the second one through, so a copy-pasted mistake is new.
func TestApplyCountsDuplicates(t *testing.T) {
	recorded := New(&lint.Result{Findings: []lint.Finding{finding("MDL205", "spec.x", 10)}})
	result := &lint.Result{
		Findings: []lint.Finding{finding("MDL205", "spec.x", 12), finding("MDL205", "spec.x", 30)},
		Evaluations: []lint.Evaluation{
			{RuleID: "MDL205", Target: "Deployment/ns/app", Status: lint.StatusFail},
		},
	}
	outcome := recorded.Apply(result)
	if outcome.Baselined != 1 || outcome.Fixed != 0 {
		t.Errorf("outcome %+v, want 1 baselined and 0 fixed", outcome)
	}
	if !result.Findings[0].Suppressed() || result.Findings[0].Suppression.Kind != Kind {
		t.Errorf("the first finding is not baselined: %+v", result.Findings[0].Suppression)
	}
	if result.Findings[1].Suppressed() {
		t.Error("the second, new occurrence was baselined")
	}
	if result.Evaluations[0].Status != lint.StatusFail {
		t.Error("the rule check passed although a finding is new")
	}
}

func TestApplyPassesBaselinedChecks(t *testing.T) {
	findings := []lint.Finding{finding("MDL205", "spec.x", 10)}
	recorded := New(&lint.Result{Findings: findings})
	result := &lint.Result{
		Findings:    []lint.Finding{finding("MDL205", "spec.x", 10), finding("MDL206", "spec.y", 11)},
		Evaluations: []lint.Evaluation{{RuleID: "MDL205", Target: "Deployment/ns/app", Status: lint.StatusFail}},
	}
	outcome := recorded.Apply(result)
	if outcome.Baselined != 1 || result.Findings[1].Suppressed() {
		t.Errorf("outcome %+v; MDL206 suppressed: %v", outcome, result.Findings[1].Suppressed())
	}
	if result.Evaluations[0].Status != lint.StatusPass {
		t.Errorf("the MDL205 check is %s, want pass: its only finding is baselined", result.Evaluations[0].Status)
	}
	if result.Count(lint.Info) != 1 {
		t.Errorf("%d findings count, want 1 (MDL206)", result.Count(lint.Info))
	}
}

// TestNewSkipsSuppressed: a finding suppressed in the manifest says why
// already; recording it would keep it silent once that suppression goes.
func TestNewSkipsSuppressed(t *testing.T) {
	suppressed := finding("MDL205", "spec.x", 10)
	suppressed.Suppression = &lint.Suppression{Kind: lint.SuppressedByComment, Reason: "accepted"}
	recorded := New(&lint.Result{Findings: []lint.Finding{suppressed, finding("MDL206", "spec.y", 11)}})
	if len(recorded.Findings) != 1 || recorded.Findings[0].Rule != "MDL206" {
		t.Errorf("recorded %+v, want only MDL206", recorded.Findings)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	recorded := New(&lint.Result{Findings: []lint.Finding{finding("MDL205", "spec.x", 10), finding("MDL205", "spec.x", 20)}})
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := recorded.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	read, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := recorded.Write(&a); err != nil {
		t.Fatal(err)
	}
	if err := read.Write(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("baseline changed in a round trip:\n%s\n---\n%s", a.String(), b.String())
	}
	if read.Findings[0].Fingerprint == read.Findings[1].Fingerprint {
		t.Error("two occurrences share a fingerprint")
	}
	data, _ := os.ReadFile(path)
	if !bytes.HasSuffix(data, []byte("}\n")) {
		t.Error("the file does not end with a newline")
	}
}

func TestReadRejects(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"empty":          "",
		"array":          "[]",
		"no fingerprint": `{"version": 1, "tool": "modellint", "findings": [{"rule": "MDL205"}]}`,
		"unknown field":  `{"version": 1, "tool": "modellint", "findings": [], "extra": true}`,
		// A baseline entry has no expiry: one written is refused, not
		// read as an entry that lasts for ever.
		"expires":       `{"version": 1, "tool": "modellint", "findings": [{"fingerprint": "f", "rule": "MDL205", "file": "a.yaml", "message": "m", "expires": "2020-01-01"}]}`,
		"version 0":     `{"tool": "modellint", "findings": []}`,
		"trailing data": `{"version": 1, "tool": "modellint", "findings": []} {}`,
	}
	for name, content := range files {
		path := filepath.Join(dir, name+".json")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(path); err == nil {
			t.Errorf("%s: Read accepted %q", name, content)
		}
	}
}
