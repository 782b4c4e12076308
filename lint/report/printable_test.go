package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/modellint/modellint/internal/redact"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// controlName holds an escape sequence, a line break with a forged
// workflow command, a C1 control, DEL and a bidi override.
const controlName = "x\x1b[2J\n::warning file=forged.yaml::forged\u009b\x7f\u202e"

// commandName needs no control character to forge a command: the table
// wraps it to the start of a line, and the runner reads "##[" anywhere.
const commandName = "a ::error file=forged.yaml::wrapped to a line start ##[error]legacy"

// controlResult has controlName in every string a format prints, and a
// secret in the text of a fix's edit (kept whole for --fix).
func controlResult(secrets *redact.Set) *lint.Result {
	finding := lint.Finding{
		RuleID: "MDL203", RuleName: "startup-probe-missing", Severity: lint.Warning,
		Message:     "message " + controlName + " " + strings.Repeat(commandName+" ", 8),
		Location:    lint.Location{File: "deploy/" + controlName + ".yaml", Line: 3, Column: 1, Path: "spec." + controlName},
		Target:      "Deployment/ns/" + controlName,
		Suppression: &lint.Suppression{Kind: lint.SuppressedByComment, Reason: "reason " + controlName},
		Image:       &lint.ImageLocation{Reference: "registry.example.com/" + controlName, Layer: "sha256:" + controlName, Path: "/opt/" + controlName},
		Related:     []lint.RelatedLocation{{Location: lint.Location{File: "templates/" + controlName, Line: 1}, Message: "helper " + controlName}},
		Fix: &lint.Fix{Description: "fix " + controlName, Safety: lint.FixSafe, Suggestion: "startupProbe:\n  path: /" + controlName + "\n",
			Edits: []manifest.Edit{{File: "deploy/" + controlName + ".yaml", Text: "path: /health?token=hf_SecretInTheEdit0123\n" + controlName,
				Review: manifest.Review{StartLine: 3, EndLine: 3, Text: "path: " + controlName}}},
			Moves: []lint.Move{{From: "model/" + controlName, To: "model/1/" + controlName}}},
	}
	unsuppressed := finding
	unsuppressed.Suppression = nil
	return &lint.Result{
		Rules:       testRules(),
		Files:       []string{"deploy/" + controlName + ".yaml"},
		Findings:    []lint.Finding{unsuppressed, finding},
		Evaluations: []lint.Evaluation{{RuleID: "MDL203", Target: "Deployment/ns/" + controlName, File: "deploy/" + controlName + ".yaml", Status: lint.StatusSkip, Reason: "skipped " + controlName}},
		Notes:       []string{"note " + controlName, commandName},
		Links:       []string{"link " + controlName},
		InputErrors: []lint.InputError{{File: "broken/" + controlName, Line: 2, Message: "invalid " + controlName}},
		Unused:      []string{"--image " + controlName},
		Secrets:     secrets,
	}
}

// TestEveryFormatEscapes writes controlResult in every format, verbose,
// and finds no raw control character (but the formats' own line ends), no
// line starting a workflow command but the github annotations, and not
// the secret of the edit.
func TestEveryFormatEscapes(t *testing.T) {
	secrets := &redact.Set{}
	secrets.Add("hf_SecretInTheEdit0123")
	for _, format := range Formats {
		result := controlResult(secrets)
		var out bytes.Buffer
		if err := Write(&out, format, result, Options{ToolVersion: "1.2.0", Verbose: true}); err != nil {
			t.Fatal(err)
		}
		text := out.String()
		for i, r := range text {
			if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r == utf8.RuneError {
				t.Errorf("%s: raw %U at byte %d: %q", format, r, i, text[max(0, i-30):min(len(text), i+30)])
			}
		}
		for _, line := range strings.Split(text, "\n") {
			command := strings.TrimLeftFunc(line, unicode.IsSpace)
			if strings.HasPrefix(command, "::warning file=forged") || strings.HasPrefix(command, "::") && format != "github" ||
				strings.Contains(line, "##[") {
				t.Errorf("%s: a line starts a workflow command: %q", format, line)
			}
		}
		if strings.Contains(text, "hf_SecretInTheEdit0123") {
			t.Errorf("%s prints the secret of the edit:\n%s", format, text)
		}
		// The result itself is not changed: --fix applies its edits.
		if got := result.Findings[0].Fix.Edits[0].Text; !strings.Contains(got, "hf_SecretInTheEdit0123\n"+controlName) {
			t.Errorf("%s changed the edit --fix applies: %q", format, got)
		}
	}
}

// TestPrintableKeepsCleanResults: a result with nothing to escape or hide
// is printed from its own lists, not a copy.
func TestPrintableKeepsCleanResults(t *testing.T) {
	result := testResult()
	view := printable(result)
	if &view.Findings[0] != &result.Findings[0] || &view.Files[0] != &result.Files[0] || &view.Evaluations[0] != &result.Evaluations[0] {
		t.Error("a clean result was copied")
	}
	escaped := printable(controlResult(nil))
	if got, want := escaped.Findings[0].Target, `Deployment/ns/x\x1b[2J\n::warning file=forged.yaml::forged\u009b\x7f\u202e`; got != want {
		t.Errorf("target %q, want %q", got, want)
	}
	// A suggestion keeps its line breaks: a line that starts a workflow
	// command is the writers' to escape (lineGuard).
	if got, want := escaped.Findings[0].Fix.Suggestion, "startupProbe:\n  path: /x\\x1b[2J\n::warning file=forged.yaml::forged\\u009b\\x7f\\u202e\n"; got != want {
		t.Errorf("suggestion %q, want %q", got, want)
	}
}
