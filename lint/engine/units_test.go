package engine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/rules"
)

// lintPaths runs every rule on PATHs as `modellint PATH...` does, offline,
// and returns its findings and model links, one line each, sorted.
func lintPaths(t *testing.T, paths ...string) []string {
	t.Helper()
	result, err := engine.Run(engine.Options{Paths: paths, Rules: rules.All(), Now: "2026-01-15"})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, finding := range result.Findings {
		lines = append(lines, fmt.Sprintf("%s %s %s: %s (%s) suppressed=%v", finding.Location, finding.RuleID, finding.Target,
			finding.Message, finding.Location.Path, finding.Suppressed()))
	}
	for _, link := range result.Links {
		lines = append(lines, "link "+link)
	}
	for _, problem := range result.InputErrors {
		t.Errorf("%v", problem)
	}
	slices.Sort(lines)
	return lines
}

// TestSideBySideDeploymentsLintAsEach: linting the parent of two
// deployments (testdata/examples holds broken/ and fixed/, each with the
// same Deployment and a models/resnet) finds exactly what linting each
// does: one's objects do not resolve the other's references, and each
// model name links to the dir of its own deployment.
func TestSideBySideDeploymentsLintAsEach(t *testing.T) {
	examples := filepath.Join("..", "..", "testdata", "examples")
	var each []string
	for _, child := range []string{"broken", "fixed"} {
		each = append(each, lintPaths(t, filepath.Join(examples, child))...)
	}
	slices.Sort(each)
	parent := lintPaths(t, examples)
	if strings.Join(parent, "\n") != strings.Join(each, "\n") {
		t.Errorf("linting %s finds\n  %s\nlinting each of its dirs finds\n  %s", examples,
			strings.Join(parent, "\n  "), strings.Join(each, "\n  "))
	}
	for _, want := range []string{"MDL209", "MDL210", "MDL403"} {
		if !slices.ContainsFunc(parent, func(line string) bool { return strings.Contains(line, " "+want+" ") }) {
			t.Errorf("no %s finding on broken/ when linting %s", want, examples)
		}
	}
}

// TestSideBySideModelsLinkToTheirOwn: when the two deployments' workloads
// are named apart (fixed/ renamed resnet-v2), the dirs are one unit, but
// each server still links the models/resnet beside its own manifest, not
// "no model dir" for a name two dirs share.
func TestSideBySideModelsLinkToTheirOwn(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "examples"))); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "fixed", "tf-serving.yaml")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.Replace(string(data), "  name: resnet\n", "  name: resnet-v2\n", 1)
	if renamed == string(data) {
		t.Fatal("fixed/tf-serving.yaml names no Deployment resnet")
	}
	if err := os.WriteFile(manifest, []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	var links []string
	for _, line := range lintPaths(t, dir) {
		if strings.HasPrefix(line, "link ") {
			links = append(links, strings.ReplaceAll(line, filepath.ToSlash(dir)+"/", ""))
		}
	}
	for _, want := range []string{"Deployment/serving/resnet ", "Deployment/serving/resnet-v2 "} {
		side := map[string]string{"Deployment/serving/resnet ": "broken/models/resnet", "Deployment/serving/resnet-v2 ": "fixed/models/resnet"}[want]
		if !slices.ContainsFunc(links, func(link string) bool { return strings.Contains(link, want) && strings.Contains(link, side) }) {
			t.Errorf("no link of %sto %s in\n  %s", want, side, strings.Join(links, "\n  "))
		}
	}
}

// TestSiblingDeploymentsSeeWhatIsAbove: dirs that declare no workload twice
// are one deployment (a ConfigMap in config/ resolves the reference in
// apps/); env/staging and env/prod, which declare the same Deployment, are
// two, each seeing the objects above them but not the other's.
func TestSiblingDeploymentsSeeWhatIsAbove(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	deployment := func(name, region string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + "}\nspec:\n  selector: {matchLabels: {app: " + name + "}}\n" +
			"  template:\n    metadata: {labels: {app: " + name + "}}\n    spec:\n      containers:\n        - name: serving\n" +
			"          image: tensorflow/serving:2.14.1\n          env:\n" +
			"            - {name: LEVEL, valueFrom: {configMapKeyRef: {name: settings, key: level}}}\n" +
			"            - {name: REGION, valueFrom: {configMapKeyRef: {name: " + region + ", key: region}}}\n"
	}
	configMap := func(name, key string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + "}\ndata: {" + key + ": \"1\"}\n"
	}
	write("apps/serving.yaml", deployment("serving", "settings"))
	write("config/settings.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: \"1\", region: eu}\n")
	write("env/prod/region.yaml", configMap("prod-only", "region"))
	write("env/prod/canary.yaml", deployment("canary", "prod-only"))
	write("env/staging/canary.yaml", deployment("canary", "prod-only"))
	lines := lintPaths(t, dir)
	missing := slices.DeleteFunc(slices.Clone(lines), func(line string) bool { return !strings.Contains(line, " MDL209 ") })
	if len(missing) != 1 || !strings.HasPrefix(missing[0], filepath.ToSlash(dir)+"/env/staging/canary.yaml:") ||
		!strings.Contains(missing[0], "prod-only") {
		t.Errorf("MDL209 findings\n  %s\nwant one, on env/staging's prod-only", strings.Join(missing, "\n  "))
	}
}
