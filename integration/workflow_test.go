package integration

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"

	"github.com/modellint/modellint/internal/testenv"
)

// readmeWorkflow is the workflow the README shows; the test keeps the two
// the same, so the README's copy is the one actionlint checked.
const readmeWorkflow = "testdata/github-workflow.yml"

// actionUses is how the README's workflow refers to the action.
const actionUses = "uses: modellint/modellint@COMMIT_SHA"

// lintWorkflow runs actionlint on a workflow inside a repository root that
// holds this repository's action.yml, so that `uses: ./` is checked
// against the real inputs and outputs. Shellcheck checks run: scripts when
// it is installed.
func lintWorkflow(t *testing.T, workflow string) []*actionlint.Error {
	t.Helper()
	root := t.TempDir()
	copyFile(t, filepath.Join(repoRoot, "action.yml"), filepath.Join(root, "action.yml"))
	path := filepath.Join(root, ".github", "workflows", "modellint.yml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(workflow), 0o644); err != nil {
		t.Fatal(err)
	}
	shellcheck, _ := exec.LookPath("shellcheck")
	if shellcheck == "" && testenv.Required() {
		t.Fatalf("shellcheck is not installed; %s=1 requires it", testenv.RequireTools)
	}
	linter, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{Shellcheck: shellcheck})
	if err != nil {
		t.Fatal(err)
	}
	project, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := linter.LintFile(path, project)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

func readWorkflow(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(readmeWorkflow)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestWorkflowInREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```yaml\n"+readWorkflow(t)+"```\n") {
		t.Errorf("README.md does not show %s verbatim in a yaml block", readmeWorkflow)
	}
}

// TestWorkflowActionlint lints the README's workflow twice: as users copy
// it, and with the action replaced by this checkout (uses: ./), which makes
// actionlint check every input and output against action.yml.
func TestWorkflowActionlint(t *testing.T) {
	workflow := readWorkflow(t)
	if !strings.Contains(workflow, actionUses) {
		t.Fatalf("%s does not use the action as %q", readmeWorkflow, actionUses)
	}
	for name, text := range map[string]string{
		"as published": workflow,
		"this action":  strings.Replace(workflow, actionUses, "uses: ./", 1),
	} {
		t.Run(name, func(t *testing.T) {
			for _, problem := range lintWorkflow(t, text) {
				t.Errorf("actionlint: line %d: %s [%s]", problem.Line, problem.Message, problem.Kind)
			}
		})
	}
}

// TestWorkflowActionlintCatchesMistakes shows that the check above can
// fail: actionlint knows the action's inputs and outputs from action.yml.
func TestWorkflowActionlintCatchesMistakes(t *testing.T) {
	local := strings.Replace(readWorkflow(t), actionUses, "uses: ./", 1)
	mistakes := map[string]struct{ from, to, want string }{
		"unknown input":  {"fail-on: error", "fail-level: error", "fail-level"},
		"unknown output": {"steps.modellint.outputs.findings", "steps.modellint.outputs.finding_count", "finding_count"},
	}
	for name, mistake := range mistakes {
		t.Run(name, func(t *testing.T) {
			problems := lintWorkflow(t, strings.Replace(local, mistake.from, mistake.to, 1))
			found := false
			for _, problem := range problems {
				found = found || strings.Contains(problem.Message, mistake.want)
			}
			if !found {
				t.Errorf("actionlint did not report %q; it reported %d problems", mistake.want, len(problems))
			}
		})
	}
}
