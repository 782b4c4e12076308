package integration

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// systemPath is a PATH with no modellint-helm on it: modellint must find
// the renderer beside itself.
const systemPath = "PATH=/usr/local/bin:/usr/bin:/bin"

// checkRendersChart lints a chart with the modellint installed in dir,
// which starts the modellint-helm beside it: the findings are placed in
// the chart's values.yaml and templates.
func checkRendersChart(t *testing.T, dir string) {
	t.Helper()
	chart := filepath.Join(repoRoot, "testdata", "charts", "serving", "tfserving")
	got := runCommand(t, t.TempDir(), []string{systemPath}, filepath.Join(dir, "modellint"), "--offline", "--fail-on", "warning", "-f", "json", chart)
	if got.code != 1 {
		t.Fatalf("modellint %s: exit %d, want 1 (findings):\n%s%s", chart, got.code, got.stdout, got.stderr)
	}
	var report struct {
		Findings []struct {
			Location struct {
				File string `json:"file"`
			} `json:"location"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &report); err != nil {
		t.Fatalf("JSON report: %v\n%s", err, got.stdout)
	}
	files := map[string]bool{}
	for _, finding := range report.Findings {
		files[filepath.Base(finding.Location.File)] = true
	}
	if !files["values.yaml"] || !files["deployment.yaml"] {
		t.Errorf("findings in %v, want some in values.yaml and templates/deployment.yaml", files)
	}
}

// checkBuildsOverlay lints a Kustomize overlay with the modellint installed
// in dir, which starts the modellint-helm beside it to build it: the
// findings are placed in the base's and the overlay's files.
func checkBuildsOverlay(t *testing.T, dir string) {
	t.Helper()
	overlay := filepath.Join(repoRoot, "testdata", "kustomize", "serving", "overlays", "prod")
	got := runCommand(t, t.TempDir(), []string{systemPath}, filepath.Join(dir, "modellint"), "--offline", "--no-color", overlay)
	if got.code != 1 || !strings.Contains(got.stdout, "base/deployment.yaml") {
		t.Fatalf("modellint %s: exit %d, want 1 with findings in the base's deployment.yaml:\n%s%s", overlay, got.code, got.stdout, got.stderr)
	}
}

// TestBuiltBinaryRendersCharts: modellint as built renders a chart and
// builds an overlay with the modellint-helm beside it, and without one says
// what is missing in one line and exits 2, rather than pass them unlinted.
func TestBuiltBinaryRendersCharts(t *testing.T) {
	dir := modellintBinDir(t)
	checkRendersChart(t, dir)
	checkBuildsOverlay(t, dir)

	alone := t.TempDir()
	copyFile(t, filepath.Join(dir, "modellint"), filepath.Join(alone, "modellint"))
	for _, input := range []string{
		filepath.Join(repoRoot, "testdata", "charts", "serving", "tfserving"),
		filepath.Join(repoRoot, "testdata", "kustomize", "serving", "overlays", "prod"),
	} {
		got := runCommand(t, t.TempDir(), []string{systemPath}, filepath.Join(alone, "modellint"), "--offline", input)
		if got.code != 2 || strings.Count(got.stderr, "\n") != 1 || !strings.Contains(got.stderr,
			"rendering a Helm chart or Kustomize overlay needs modellint-helm, found neither beside modellint nor on PATH") {
			t.Errorf("%s without its renderer: exit %d, stderr %q; want exit 2 and one line naming modellint-helm", input, got.code, got.stderr)
		}
	}
}
