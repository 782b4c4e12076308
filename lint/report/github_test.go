package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/message"
	"github.com/modellint/modellint/lint"
)

// hostileResult has text that breaks naive writers: workflow-command syntax,
// escapes, line breaks and Markdown in messages, targets and file names, and
// more errors than GitHub annotates in one step.
func hostileResult() *lint.Result {
	result := &lint.Result{
		Rules: testRules(),
		Files: []string{"deploy/a,b:c.yaml", "deploy/100%.yaml"},
		Findings: []lint.Finding{
			{
				RuleID: "MDL205", RuleName: "memory-limit-missing", Severity: lint.Error,
				Message:  "50% of 2Gi\r\n::error file=evil.yaml::forged annotation\n::stop-commands::token",
				Location: lint.Location{File: "deploy/a,b:c.yaml", Line: 3, Column: 7, Path: "spec.containers[0]"},
				Target:   "Deployment/ns/name,with:colons",
			},
			{
				RuleID: "MDL201", RuleName: "readiness-probe-missing", Severity: lint.Warning,
				Message:  "a | pipe, a `tick`, *stars*, _under_, [link](x), <script>alert(1)</script> & \\ back\nsecond line",
				Location: lint.Location{File: "deploy/100%.yaml", Line: 9},
				Target:   "Pod/ns/a|b",
			},
			{
				RuleID: "MDL401", RuleName: "image-runs-as-root", Severity: lint.Info,
				Message:  "%25 already escaped %0A stays literal",
				Location: lint.Location{File: "deploy\\windows.yaml"},
			},
		},
	}
	for i := 1; i <= githubAnnotationLimit+2; i++ {
		result.Findings = append(result.Findings, lint.Finding{
			RuleID: "MDL900", Severity: lint.Error, Message: fmt.Sprintf("error number %d", i),
			Location: lint.Location{File: "deploy/many.yaml", Line: i, Column: 1},
		})
	}
	return result
}

// workflowCommand is a line as the Actions runner parses it.
type workflowCommand struct {
	command    string
	properties map[string]string
	data       string
}

// parseWorkflowCommand follows the runner (ActionCommand.TryParseV2 in
// actions/runner): the command ends at the first "::" after the leading one,
// properties are split at "," and "=", and values are unescaped.
func parseWorkflowCommand(line string) (workflowCommand, bool) {
	if !strings.HasPrefix(line, "::") {
		return workflowCommand{}, false
	}
	end := strings.Index(line[2:], "::")
	if end < 0 {
		return workflowCommand{}, false
	}
	info, data := line[2:2+end], line[2+end+2:]
	name, props, _ := strings.Cut(info, " ")
	parsed := workflowCommand{command: name, properties: map[string]string{}, data: unescapeWorkflow(data, false)}
	for _, prop := range strings.Split(props, ",") {
		if key, value, ok := strings.Cut(prop, "="); ok {
			parsed.properties[key] = unescapeWorkflow(value, true)
		}
	}
	return parsed, true
}

func unescapeWorkflow(text string, property bool) string {
	pairs := []string{"%0D", "\r", "%0A", "\n"}
	if property {
		pairs = append(pairs, "%3A", ":", "%2C", ",")
	}
	// %25 last, so that an escaped "%0A" in the text stays "%0A".
	for i := 0; i < len(pairs); i += 2 {
		text = strings.ReplaceAll(text, pairs[i], pairs[i+1])
	}
	return strings.ReplaceAll(text, "%25", "%")
}

func TestGitHubAnnotationsRoundTrip(t *testing.T) {
	result := hostileResult()
	var out bytes.Buffer
	if err := Write(&out, "github", result, testOptions); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	var commands []workflowCommand
	for _, line := range lines {
		if command, ok := parseWorkflowCommand(line); ok {
			commands = append(commands, command)
		} else if !strings.HasPrefix(line, "modellint: ") {
			t.Errorf("line is neither an annotation nor modellint's own: %q", line)
		}
	}
	wantCommands := []string{"error", "error", "error", "error", "error", "error", "error", "error", "error", "error", "warning", "notice"}
	if len(commands) != len(wantCommands) {
		t.Fatalf("got %d annotations, want %d (10 errors, 1 warning, 1 notice):\n%s", len(commands), len(wantCommands), out.String())
	}
	for i, command := range commands {
		if command.command != wantCommands[i] {
			t.Errorf("annotation %d is %s, want %s", i, command.command, wantCommands[i])
		}
	}
	first := commands[0]
	wantProperties := map[string]string{"file": "deploy/a,b:c.yaml", "line": "3", "col": "7", "title": "MDL205 memory-limit-missing"}
	for key, want := range wantProperties {
		if got := first.properties[key]; got != want {
			t.Errorf("property %s = %q, want %q", key, got, want)
		}
	}
	if len(first.properties) != len(wantProperties) {
		t.Errorf("properties %v, want exactly %v", first.properties, wantProperties)
	}
	// The message's own line breaks are escaped (message.Escape); the
	// annotation's are the format's, between the message and the object.
	if want := message.Escape(result.Findings[0].Message) + "\nDeployment/ns/name,with:colons:spec.containers[0]"; first.data != want {
		t.Errorf("message = %q, want %q", first.data, want)
	}
	if got, want := commands[len(commands)-1].data, "%25 already escaped %0A stays literal"; got != want {
		t.Errorf("notice message = %q, want %q", got, want)
	}
	if got := commands[len(commands)-1].properties["file"]; got != "deploy/windows.yaml" {
		t.Errorf("Windows path = %q, want forward slashes", got)
	}
	if !strings.Contains(out.String(), "modellint: 3 findings not annotated") {
		t.Errorf("no line says that 3 errors were not annotated:\n%s", out.String())
	}
}

func TestGitHubSkipsSuppressed(t *testing.T) {
	var out bytes.Buffer
	if err := Write(&out, "github", testResult(), testOptions); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "worker") {
		t.Errorf("the suppressed finding was annotated:\n%s", out.String())
	}
	if n := strings.Count(out.String(), "\n::"); n+1 != 4 {
		t.Errorf("%d annotations, want 4 (one per unsuppressed finding):\n%s", n+1, out.String())
	}
}

// TestGitHubAnnotatesOnlyTheFilesGiven: with AnnotateFiles (a pull
// request's changed files) the findings elsewhere are not annotated but
// counted, and the per-level limit applies to those annotated, so a busy
// file outside the change cannot use up the annotations of one in it.
func TestGitHubAnnotatesOnlyTheFilesGiven(t *testing.T) {
	result := &lint.Result{Files: []string{"deploy/old.yaml", "deploy/changed.yaml"}}
	for i := range 12 {
		result.Findings = append(result.Findings, lint.Finding{RuleID: "MDL205", Severity: lint.Error, Message: "old",
			Location: lint.Location{File: "deploy/old.yaml", Line: i + 1}})
	}
	result.Findings = append(result.Findings,
		lint.Finding{RuleID: "MDL205", Severity: lint.Error, Message: "changed", Location: lint.Location{File: "deploy/changed.yaml", Line: 3}},
		lint.Finding{RuleID: "MDL208", Severity: lint.Warning, Message: "changed", Location: lint.Location{File: "deploy/changed.yaml", Line: 5}})
	options := testOptions
	options.AnnotateFiles = map[string]bool{"deploy/changed.yaml": true}
	var out bytes.Buffer
	if err := Write(&out, "github", result, options); err != nil {
		t.Fatal(err)
	}
	var annotated []string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "::") {
			annotated = append(annotated, line)
		}
	}
	if len(annotated) != 2 || !strings.HasPrefix(annotated[0], "::error file=deploy/changed.yaml,line=3,") ||
		!strings.HasPrefix(annotated[1], "::warning file=deploy/changed.yaml,line=5,") {
		t.Errorf("annotations %q, want the two findings of deploy/changed.yaml", annotated)
	}
	if !strings.Contains(out.String(), "modellint: 12 findings in files the pull request does not change not annotated") ||
		strings.Contains(out.String(), "GitHub shows at most") {
		t.Errorf("output does not count the findings left out, or blames the limit:\n%s", out.String())
	}
}
