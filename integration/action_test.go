package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type actionMetadata struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Inputs      map[string]struct {
		Description string  `yaml:"description"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Shell            string            `yaml:"shell"`
	Run              string            `yaml:"run"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
}

func readAction(t *testing.T) actionMetadata {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action actionMetadata
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return action
}

var inputReference = regexp.MustCompile(`\$\{\{\s*inputs\.([a-z-]+)\s*\}\}`)

// TestActionMetadata holds action.yml to its promises: the documented inputs
// and outputs, and inputs that reach scripts only through env.
func TestActionMetadata(t *testing.T) {
	action := readAction(t)
	if action.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite (runs on Linux, macOS and Windows runners)", action.Runs.Using)
	}
	wantInputs := []string{"annotations", "args", "cache", "config", "fail-on", "junit-file", "path", "sarif-file", "summary", "version", "working-directory"}
	var inputs []string
	for name, input := range action.Inputs {
		inputs = append(inputs, name)
		if input.Description == "" || input.Default == nil {
			t.Errorf("input %s needs a description and a default", name)
		}
	}
	sort.Strings(inputs)
	if strings.Join(inputs, " ") != strings.Join(wantInputs, " ") {
		t.Errorf("inputs %v, want %v", inputs, wantInputs)
	}
	for _, name := range []string{"sarif-file", "findings", "exit-code"} {
		output, ok := action.Outputs[name]
		if !ok {
			t.Errorf("output %s is missing", name)
			continue
		}
		if want := "${{ steps.lint.outputs." + name + " }}"; output.Value != want {
			t.Errorf("output %s = %q, want %q", name, output.Value, want)
		}
	}

	used := map[string]bool{}
	for i, step := range action.Runs.Steps {
		// A condition is evaluated by the runner, never pasted into a script.
		for _, match := range regexp.MustCompile(`\binputs\.([a-z-]+)`).FindAllStringSubmatch(step.If, -1) {
			used[match[1]] = true
		}
		if step.Run == "" {
			continue
		}
		if strings.Contains(step.Run, "${{") {
			t.Errorf("step %d (%s): an expression inside run: is pasted into the script; pass it through env:", i, step.Name)
		}
		if step.Shell != "bash" {
			t.Errorf("step %d (%s): shell %q, want bash", i, step.Name, step.Shell)
		}
		for _, value := range step.Env {
			for _, match := range inputReference.FindAllStringSubmatch(value, -1) {
				used[match[1]] = true
			}
		}
		for _, match := range inputReference.FindAllStringSubmatch(step.WorkingDirectory, -1) {
			used[match[1]] = true
		}
		for _, script := range regexp.MustCompile(`scripts/[a-z-]+\.sh`).FindAllString(step.Run+" "+strings.Join(envValues(step), " "), -1) {
			if _, err := os.Stat(filepath.Join(repoRoot, script)); err != nil {
				t.Errorf("step %d (%s) runs %s: %v", i, step.Name, script, err)
			}
		}
	}
	for _, name := range wantInputs {
		if !used[name] {
			t.Errorf("input %s is never passed to a step", name)
		}
	}
}

func envValues(step actionStep) []string {
	var values []string
	for _, value := range step.Env {
		values = append(values, value)
	}
	return values
}

// TestShellcheck runs shellcheck on the action's scripts and on every run:
// body of action.yml.
func TestShellcheck(t *testing.T) {
	shellcheck := requireTool(t, "shellcheck", "apt-get install shellcheck")
	scripts, err := filepath.Glob(filepath.Join(repoRoot, "scripts", "*.sh"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts under scripts/: %v", err)
	}
	for _, script := range scripts {
		if got := runCommand(t, repoRoot, nil, shellcheck, script); got.code != 0 {
			t.Errorf("shellcheck %s:\n%s%s", filepath.Base(script), got.stdout, got.stderr)
		}
	}
	dir := t.TempDir()
	for i, step := range readAction(t).Runs.Steps {
		if step.Run == "" {
			continue
		}
		path := filepath.Join(dir, "step.sh")
		if err := os.WriteFile(path, []byte("#!/usr/bin/env bash\n"+step.Run+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := runCommand(t, dir, nil, shellcheck, path); got.code != 0 {
			t.Errorf("shellcheck action.yml step %d (%s):\n%s%s", i, step.Name, got.stdout, got.stderr)
		}
	}
}

// actionRun runs scripts/action-lint.sh as the Lint step would, in a copy
// of a deployment, and returns what the step printed and wrote.
type actionRun struct {
	result
	outputs map[string]string
	summary string
	dir     string
}

func runActionLint(t *testing.T, manifest string, env ...string) actionRun {
	t.Helper()
	dir := t.TempDir()
	copyFile(t, manifest, filepath.Join(dir, "deploy", "tf-serving.yaml"))
	outputFile, summaryFile := filepath.Join(t.TempDir(), "output"), filepath.Join(t.TempDir(), "summary")
	env = append([]string{
		withPath(modellintBinDir(t)),
		"GITHUB_OUTPUT=" + outputFile, "GITHUB_STEP_SUMMARY=" + summaryFile, "RUNNER_TEMP=" + t.TempDir(),
		"MODELLINT_PATH=deploy", "MODELLINT_SARIF_FILE=modellint.sarif", "MODELLINT_JUNIT_FILE=reports/junit.xml",
		"MODELLINT_ANNOTATIONS=true", "MODELLINT_SUMMARY=true", "MODELLINT_ARGS=--no-color",
		"MODELLINT_CONFIG=", "MODELLINT_FAIL_ON=",
	}, env...)
	if err := os.MkdirAll(filepath.Join(dir, "reports"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := actionRun{result: runCommand(t, dir, env, "bash", filepath.Join(repoRoot, "scripts", "action-lint.sh")), dir: dir}
	got.outputs = readGitHubOutput(t, outputFile)
	summary, _ := os.ReadFile(summaryFile)
	got.summary = string(summary)
	return got
}

// readGitHubOutput parses $GITHUB_OUTPUT as the runner does: NAME=VALUE,
// or NAME<<DELIMITER, lines, DELIMITER.
func readGitHubOutput(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("GITHUB_OUTPUT: %v", err)
	}
	outputs := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if name, delimiter, ok := strings.Cut(lines[i], "<<"); ok {
			var value []string
			for i++; i < len(lines) && lines[i] != delimiter; i++ {
				value = append(value, lines[i])
			}
			if i == len(lines) {
				t.Fatalf("GITHUB_OUTPUT: %s has no closing %s", name, delimiter)
			}
			outputs[name] = strings.Join(value, "\n")
			continue
		}
		name, value, _ := strings.Cut(lines[i], "=")
		outputs[name] = value
	}
	return outputs
}

// jsonCount is the number of unsuppressed findings modellint reports in
// JSON for a manifest.
func jsonCount(t *testing.T, manifest string) int {
	t.Helper()
	got := runCommand(t, filepath.Dir(manifest), nil, filepath.Join(modellintBinDir(t), "modellint"), "-f", "json", manifest)
	var report struct {
		Summary struct{ Error, Warning, Info int } `json:"summary"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &report); err != nil {
		t.Fatalf("modellint -f json: %v\n%s", err, got.stderr)
	}
	return report.Summary.Error + report.Summary.Warning + report.Summary.Info
}

func TestActionLintFindings(t *testing.T) {
	got := runActionLint(t, brokenExample)
	if got.code != 1 {
		t.Fatalf("exit %d, want 1 (findings at or above error):\n%s%s", got.code, got.stdout, got.stderr)
	}
	if !regexp.MustCompile(`(?m)^::error file=deploy/tf-serving\.yaml,line=\d+,col=\d+,title=MDL204 probe-port-unknown::`).MatchString(got.stdout) {
		t.Errorf("no MDL204 error annotation in the log:\n%s", got.stdout)
	}
	if !strings.Contains(got.stdout, "MDL205") || !strings.Contains(got.stdout, "LINE:COL") {
		t.Errorf("the log has no findings table:\n%s", got.stdout)
	}
	if !strings.HasPrefix(got.summary, "## modellint\n") || !strings.Contains(got.summary, "| error | [MDL204 probe-port-unknown](") {
		t.Errorf("step summary:\n%s", got.summary)
	}
	want := map[string]string{
		"exit-code":  "1",
		"findings":   strconv.Itoa(jsonCount(t, brokenExample)),
		"sarif-file": filepath.Join(got.dir, "modellint.sarif"),
	}
	for name, value := range want {
		if got.outputs[name] != value {
			t.Errorf("output %s = %q, want %q", name, got.outputs[name], value)
		}
	}
	for _, file := range []string{"modellint.sarif", "reports/junit.xml"} {
		if info, err := os.Stat(filepath.Join(got.dir, file)); err != nil || info.Size() == 0 {
			t.Errorf("report %s was not written: %v", file, err)
		}
	}
}

func TestActionLintClean(t *testing.T) {
	got := runActionLint(t, fixedExample, "MODELLINT_ANNOTATIONS=false", "MODELLINT_SARIF_FILE=")
	if got.code != 0 {
		t.Fatalf("exit %d, want 0:\n%s%s", got.code, got.stdout, got.stderr)
	}
	if strings.Contains(got.stdout, "::") {
		t.Errorf("annotations were written although annotations is false:\n%s", got.stdout)
	}
	if got.outputs["exit-code"] != "0" || got.outputs["findings"] != "0" || got.outputs["sarif-file"] != "" {
		t.Errorf("outputs %v, want exit-code 0, findings 0, no sarif-file", got.outputs)
	}
}

// TestActionLintKeepsExitCodes: a usage error is exit 2 for the step too,
// and a threshold from the inputs changes exit 1 to 0.
func TestActionLintKeepsExitCodes(t *testing.T) {
	if got := runActionLint(t, brokenExample, "MODELLINT_FAIL_ON=fatal"); got.code != 2 || got.outputs["exit-code"] != "2" {
		t.Errorf("bad fail-on: exit %d, output %q; want 2", got.code, got.outputs["exit-code"])
	}
	if got := runActionLint(t, brokenExample, "MODELLINT_FAIL_ON=none"); got.code != 0 || got.outputs["findings"] == "0" {
		t.Errorf("fail-on none: exit %d, findings %q; want exit 0 with the findings counted", got.code, got.outputs["findings"])
	}
	// Input text is data: a path that looks like shell code is a path.
	got := runActionLint(t, brokenExample, "MODELLINT_PATH=deploy $(touch injected) ;touch injected2")
	if _, err := os.Stat(filepath.Join(got.dir, "injected")); err == nil {
		t.Error("the path input was run as shell code")
	}
	if got.code != 2 {
		t.Errorf("nonexistent paths: exit %d, want 2", got.code)
	}
}
