package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/rules"
)

// TestConfigErrorsHaveLines: each mistake in .modellint.yaml is one line,
// at the file:line of the key, saying what is wrong and, for a misspelt
// rule, which rule was probably meant.
func TestConfigErrorsHaveLines(t *testing.T) {
	cases := []struct {
		name, config, want string
	}{
		{"severity", "rules:\n  MDL205:\n    severity: critical\n",
			`:3:5: rules.MDL205.severity: unknown severity "critical" (want error, warning or info)`},
		{"disable", "failOn: warning\ndisable: [MDL205, MDL2O8]\n", `:2:19: disable: no rule "MDL2O8" (did you mean MDL208?)`},
		{"enable name", "enable:\n  - memory-limit-mising\n", `:2:5: enable: no rule "memory-limit-mising" (did you mean memory-limit-missing?)`},
		{"rules key", "rules:\n  MDL2O8: {disabled: true}\n", `:2:3: rules: no rule "MDL2O8" (did you mean MDL208?)`},
		{"ignore rule", "ignore:\n  - rule: MDL2O8\n    reason: known\n", `:2:5: ignore[0].rule: no rule "MDL2O8" (did you mean MDL208?)`},
		{"ignore without rule", "ignore:\n  - reason: known\n", `:2:5: ignore[0]: rule is required`},
		{"models entry", "models:\n  - path: m\n    mountPath: models\n", `:2:5: models[0]: want a path and an absolute mountPath`},
		{"images entry", "images:\n  - ref: r\n", `:2:5: images[0]: ref and source are required`},
		{"duplicate", "failOn: warning\nfailOn: error\n", `:2: "failOn" is written twice in one mapping; keep one`},
		{"syntax", "failOn: warning\n  disable: x\n", `:2: mapping values are not allowed in this context`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			config := writeFile(t, dir, ".modellint.yaml", c.config)
			code, _, stderr := lintArgs(t, "", "--offline", dir)
			if want := "modellint: " + config + c.want + "\n"; code != exitError || stderr != want {
				t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
			}
		})
	}
}

// TestEnvironmentErrorsNameTheVariable: a bad value from MODELLINT_<FLAG>
// is named by the variable the user set, not by a flag never typed; the
// values --fail-on takes include none.
func TestEnvironmentErrorsNameTheVariable(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		env, value, want string
	}{
		{"MODELLINT_FAIL_ON", "fatal", `modellint: MODELLINT_FAIL_ON: "fatal" is not a severity (want error, warning, info or none)` + "\n"},
		{"MODELLINT_DISABLE", "MDL2O8", `modellint: MODELLINT_DISABLE: no rule "MDL2O8" (did you mean MDL208?)` + "\n"},
		{"MODELLINT_FORMAT", "yaml", `modellint: MODELLINT_FORMAT "yaml": unknown format`},
		{"MODELLINT_COLOR", "sometimes", `modellint: MODELLINT_COLOR "sometimes": want auto, always or never` + "\n"},
	}
	for _, c := range cases {
		t.Run(c.env, func(t *testing.T) {
			t.Setenv(c.env, c.value)
			code, _, stderr := lintArgs(t, "", "--offline", dir)
			if code != exitError || !strings.HasPrefix(stderr, c.want) {
				t.Errorf("exit %d, stderr %q, want it to start %q", code, stderr, c.want)
			}
		})
	}
	if _, _, stderr := lintArgs(t, "", "--offline", "--fail-on", "fatal", dir); !strings.Contains(stderr, "--fail-on: \"fatal\" is not a severity (want error, warning, info or none)") {
		t.Errorf("--fail-on fatal: %q", stderr)
	}
}

// TestExcludeAbsolutePath: an absolute --exclude path inside the working
// dir leaves that file out, as its relative path does; one outside it is
// refused rather than excluding nothing.
func TestExcludeAbsolutePath(t *testing.T) {
	example, err := filepath.Abs(examples + "/broken")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.CopyFS("broken", os.DirFS(example)); err != nil {
		t.Fatal(err)
	}
	_, all, _ := lintArgs(t, "", "--offline", "-f", "line", "broken")
	if !strings.Contains(all, "broken/tf-serving.yaml:") {
		t.Fatalf("no finding in broken/tf-serving.yaml:\n%s", all)
	}
	for _, exclude := range []string{filepath.Join(dir, "broken", "tf-serving.yaml"), "broken/tf-serving.yaml"} {
		_, some, stderr := lintArgs(t, "", "--offline", "-f", "line", "--exclude", exclude, "broken")
		if strings.Contains(some, "broken/tf-serving.yaml:") || some == "" {
			t.Errorf("--exclude %s: still linted, or nothing was (%s):\n%s", exclude, stderr, some)
		}
	}
	code, _, stderr := lintArgs(t, "", "--offline", "--exclude", filepath.Dir(dir), "broken")
	if code != exitError || !strings.Contains(stderr, "outside the working dir") {
		t.Errorf("--exclude outside the working dir: exit %d, %q", code, stderr)
	}
}

// TestHelpUnknownCommand: help for a command that does not exist is a
// usage error, not the main help and exit 0.
func TestHelpUnknownCommand(t *testing.T) {
	code, stdout, stderr := lintArgs(t, "", "help", "nosuch")
	if code != exitError || stdout != "" || !strings.HasPrefix(stderr, `modellint: help: no command "nosuch" (the commands are completion, config, explain, rules, version;`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, stdout, _ := lintArgs(t, "", "help", "explain"); code != exitClean || !strings.Contains(stdout, "modellint explain RULE") {
		t.Errorf("help explain: exit %d\n%s", code, stdout)
	}
}

// TestRulesJSON: rules -f json lists every rule, in ID order, with what a
// script needs to name and explain its findings.
func TestRulesJSON(t *testing.T) {
	code, stdout, stderr := lintArgs(t, "", "rules", "-f", "json")
	if code != exitClean {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var listed []struct {
		ID, Name, Severity, Artifact, Summary, URL string
		Fixes                                      string
	}
	if err := json.Unmarshal([]byte(stdout), &listed); err != nil {
		t.Fatal(err)
	}
	all := rules.All()
	if len(listed) != len(all) {
		t.Fatalf("%d rules listed, want %d", len(listed), len(all))
	}
	for i, rule := range all {
		got := listed[i]
		if got.ID != rule.ID || got.Name != rule.Name || got.Severity != rule.Severity.String() || got.Summary != rule.Doc.Summary ||
			got.URL != rule.DocsURL() || got.Fixes != string(rule.Fixes) {
			t.Errorf("rule %d: %+v, want %s %s", i, got, rule.ID, rule.Name)
		}
	}
	if code, _, stderr := lintArgs(t, "", "rules", "-f", "xml"); code != exitError || !strings.Contains(stderr, "want table, json or markdown") {
		t.Errorf("rules -f xml: exit %d, %q", code, stderr)
	}
}

// TestConfigShowsDefaults: modellint config prints the settings in force,
// the defaults of those the file leaves unset included, not empty mappings.
func TestConfigShowsDefaults(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".modellint.yaml", "estimates:\n  memoryFactor: 1.5\n")
	code, stdout, stderr := lintArgs(t, "", "config", dir)
	if code != exitClean {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"failOn: error\n", "  memoryFactor: 1.5\n", "  baselineMiB: 256\n", "  minStartupSeconds: 60\n", "  gpuResource: nvidia.com/gpu\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("config lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "{}") {
		t.Errorf("config prints an empty mapping:\n%s", stdout)
	}
}
