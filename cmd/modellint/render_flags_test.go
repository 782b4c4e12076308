package main

import (
	"strings"
	"testing"
)

const (
	chartsDir = "../../testdata/charts"
	overlays  = "../../testdata/kustomize"
	scenarios = "../../testdata/scenarios"
)

func TestRenderExitCodes(t *testing.T) {
	cases := []struct {
		name       string
		args       []string
		want       int
		wantStderr string
	}{
		{"chart defaults", []string{"--fail-on", "warning", chartsDir + "/serving/tfserving"}, exitFindings, ""},
		{"chart fixed by values", []string{"--helm-values", scenarios + "/helm-tfserving-fixed/values-fixed.yaml",
			"--helm-set", "resources.limits.memory=6Gi", "--release-name", "resnet", "--namespace", "serving",
			"--fail-on", "warning", chartsDir + "/serving/tfserving"}, exitClean, ""},
		{"test hooks included", []string{"--helm-include-tests", "--helm-values", scenarios + "/helm-tfserving-fixed/values-fixed.yaml",
			"--fail-on", "warning", chartsDir + "/serving/tfserving"}, exitFindings, ""},
		{"overlay", []string{overlays + "/serving/overlays/prod"}, exitFindings, ""},
		{"missing required value", []string{chartsDir + "/broken/required-value"}, exitError,
			"modellint: " + chartsDir + "/broken/required-value/templates/deployment.yaml:16:30: execution error at " +
				"(required-value/templates/deployment.yaml:16:30): model.name is required: the model the server loads\n"},
		{"required value given", []string{"--helm-set", "model.name=bert", "--fail-on", "none", chartsDir + "/broken/required-value"}, exitClean, ""},
		{"template syntax", []string{chartsDir + "/broken/template-syntax"}, exitError,
			"modellint: " + chartsDir + "/broken/template-syntax/templates/deployment.yaml:6: parse error at " +
				"(template-syntax/templates/deployment.yaml:6): unexpected \"}\" in operand\n"},
		{"remote base", []string{overlays + "/remote-base"}, exitError,
			"modellint: " + overlays + `/remote-base/kustomization.yaml:4: resources[0] entry "github.com/modellint/serving-bases//tfserving?ref=v1.2.0" ` +
				"is remote: modellint builds overlays offline and does not fetch it; vendor it into the repository and point resources[0] at the local copy\n"},
		{"missing values file", []string{"--helm-values", "nope.yaml", chartsDir + "/serving/tfserving"}, exitError,
			"modellint: nope.yaml: no such file or directory\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := lintArgs(t, "", append([]string{"--no-color"}, c.args...)...)
			if code != c.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.want, stdout, stderr)
			}
			if c.wantStderr != "" && stderr != c.wantStderr {
				t.Errorf("stderr:\n  %q\nwant\n  %q", stderr, c.wantStderr)
			}
		})
	}
}

// TestRenderFindingLines checks the table names the file and line a user
// edits: the values.yaml line that leaves resources empty.
func TestRenderFindingLines(t *testing.T) {
	_, stdout, _ := lintArgs(t, "", "--no-color", "-f", "json", chartsDir+"/serving/tfserving")
	for _, want := range []string{
		`"file": "` + chartsDir + `/serving/tfserving/values.yaml"`,
		`"file": "` + chartsDir + `/serving/tfserving/templates/deployment.yaml"`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("JSON report lacks %s:\n%s", want, stdout)
		}
	}
}
