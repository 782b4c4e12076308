package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// jsonFindings decodes the findings of a -f json report.
func jsonFindings(t *testing.T, report string) (unsuppressed, baselined int) {
	t.Helper()
	var parsed struct {
		Findings []struct {
			Suppression *struct{ Kind string } `json:"suppression"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(report), &parsed); err != nil {
		t.Fatalf("json report: %v\n%s", err, report)
	}
	for _, finding := range parsed.Findings {
		switch {
		case finding.Suppression == nil:
			unsuppressed++
		case finding.Suppression.Kind == "baseline":
			baselined++
		}
	}
	return unsuppressed, baselined
}

// TestBaselineLifecycle follows a deployment through a baseline's life:
// recorded, lines moved, a new problem added, the old ones fixed.
func TestBaselineLifecycle(t *testing.T) {
	dir := t.TempDir()
	broken, err := os.ReadFile(examples + "/broken/tf-serving.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := os.ReadFile(examples + "/fixed/tf-serving.yaml")
	if err != nil {
		t.Fatal(err)
	}
	manifest := writeFile(t, dir, "deploy/serving.yaml", string(broken))
	deploy := filepath.Dir(manifest)
	baselinePath := filepath.Join(dir, "modellint-baseline.json")

	code, stdout, stderr := lintArgs(t, "", "-f", "json", "--write-baseline", baselinePath, deploy)
	if code != exitClean {
		t.Fatalf("--write-baseline: exit %d, want 0 (the findings are accepted): %s", code, stderr)
	}
	unsuppressed, recorded := jsonFindings(t, stdout)
	if unsuppressed != 0 || recorded < 5 {
		t.Fatalf("--write-baseline: %d unsuppressed and %d baselined findings, want 0 and all", unsuppressed, recorded)
	}
	if want := "recorded " + itoa(recorded) + " findings in the baseline " + baselinePath; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not say %q", stderr, want)
	}

	steps := []struct {
		name           string
		manifest       string
		wantCode       int
		wantNew        int
		wantBaselined  int
		wantStderrPart string
	}{
		{"unchanged", string(broken), exitClean, 0, recorded, itoa(recorded) + " findings in the baseline"},
		{"lines moved", "# a comment\n\n# and a blank line above the object\n" + string(broken), exitClean, 0, recorded, itoa(recorded) + " findings in the baseline"},
		{"new problem", string(broken) + "---\n" + strings.ReplaceAll(string(broken), "name: resnet\n", "name: resnet-canary\n"), exitFindings, recorded, recorded, ""},
		{"fixed", string(fixed), exitClean, 0, 0, itoa(recorded) + " baseline entries no longer found"},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			writeFile(t, deploy, "serving.yaml", step.manifest)
			code, stdout, stderr := lintArgs(t, "", "-f", "json", "--baseline", baselinePath, deploy)
			if code != step.wantCode {
				t.Errorf("exit %d, want %d: %s", code, step.wantCode, stderr)
			}
			unsuppressed, baselined := jsonFindings(t, stdout)
			if unsuppressed != step.wantNew || baselined != step.wantBaselined {
				t.Errorf("%d new and %d baselined findings, want %d and %d", unsuppressed, baselined, step.wantNew, step.wantBaselined)
			}
			if !strings.Contains(stderr, step.wantStderrPart) {
				t.Errorf("stderr %q does not contain %q", stderr, step.wantStderrPart)
			}
		})
	}
}

func TestBaselineErrors(t *testing.T) {
	dir := t.TempDir()
	malformed := writeFile(t, dir, "malformed.json", "{\"version\": 1, \"findings\": [\n")
	foreign := writeFile(t, dir, "foreign.json", `{"version": 1, "tool": "modellint", "findings": [], "issues": []}`)
	future := writeFile(t, dir, "future.json", `{"version": 2, "tool": "modellint", "findings": []}`)
	missing := filepath.Join(dir, "missing.json")
	for name, path := range map[string]string{"missing": missing, "malformed": malformed, "foreign": foreign, "future": future} {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := lintArgs(t, "", "--baseline", path, examples+"/broken")
			if code != exitError {
				t.Errorf("exit %d, want %d", code, exitError)
			}
			if !strings.Contains(stderr, path) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("stderr %q is not one line naming %s", stderr, path)
			}
		})
	}
	t.Run("unwritable", func(t *testing.T) {
		path := filepath.Join(dir, "no-such-dir", "baseline.json")
		code, _, stderr := lintArgs(t, "", "--write-baseline", path, examples+"/broken")
		if code != exitError || !strings.Contains(stderr, path) {
			t.Errorf("exit %d, stderr %q; want exit 2 naming %s", code, stderr, path)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestOwnOutputsNotLinted: a baseline and reports written into the linted
// dir are not inputs of this run or the next.
func TestOwnOutputsNotLinted(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "deploy.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n    - {name: web, image: nginx:latest}\n")
	baselineFile, report := filepath.Join(dir, "bl.json"), filepath.Join(dir, "report.json")
	for run := 0; run < 2; run++ {
		_, stdout, _ := lintArgs(t, "", "--offline", "--write-baseline", baselineFile, "-f", "json="+report, "-f", "table", dir)
		if !strings.Contains(stdout, "in 1 file") {
			t.Errorf("run %d: %s", run, stdout)
		}
	}
}
