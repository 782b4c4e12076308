package engine

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/gcpace"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/model"
)

func TestRunStatuses(t *testing.T) {
	dir := t.TempDir()
	manifest := `apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    modellint.dev/ignore: "MDL903 -- accepted for the test"
spec:
  containers: [{name: c, image: x:1}]
`
	if err := os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	report := func(pass *lint.Pass) { pass.Reportf("spec.containers[0].image", "bad image") }
	rules := []*lint.Rule{
		{ID: "MDL901", Name: "needs-image", Needs: []lint.Fact{lint.FactManifest, lint.FactImage}, Check: report},
		{ID: "MDL902", Name: "not-applicable", Needs: []lint.Fact{lint.FactManifest}, Check: func(pass *lint.Pass) { pass.Skip("no model server") }},
		{ID: "MDL903", Name: "suppressed", Needs: []lint.Fact{lint.FactManifest}, Check: report},
		{ID: "MDL904", Name: "failing", Severity: lint.Warning, Needs: []lint.Fact{lint.FactManifest}, Check: report},
		{ID: "MDL905", Name: "passing", Needs: []lint.Fact{lint.FactManifest}, Check: func(*lint.Pass) {}},
	}
	result, err := Run(Options{Paths: []string{dir}, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]lint.Evaluation{
		// The skip names why the image facts are missing.
		"MDL901": {Status: lint.StatusSkip, Reason: "image x:1 was not read: registry lookups are off (--offline) and no --image maps it to a local source"},
		"MDL902": {Status: lint.StatusSkip, Reason: "no model server"},
		"MDL903": {Status: lint.StatusPass, Reason: "findings suppressed"},
		"MDL904": {Status: lint.StatusFail},
		"MDL905": {Status: lint.StatusPass},
	}
	if len(result.Evaluations) != len(want) {
		t.Fatalf("got %d evaluations: %+v", len(result.Evaluations), result.Evaluations)
	}
	for _, evaluation := range result.Evaluations {
		w := want[evaluation.RuleID]
		if evaluation.Status != w.Status || evaluation.Reason != w.Reason || evaluation.Target != "Pod/p" || evaluation.Line != 1 {
			t.Errorf("%s: got %+v, want %+v", evaluation.RuleID, evaluation, w)
		}
	}
	if len(result.Findings) != 2 || result.Count(lint.Warning) != 1 || result.Count(lint.Error) != 0 {
		t.Fatalf("findings %+v", result.Findings)
	}
	// With RecordSkipped the same findings, and of the checks the skips only.
	skipped, err := Run(Options{Paths: []string{dir}, Rules: rules, Records: RecordSkipped})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, evaluation := range skipped.Evaluations {
		ids = append(ids, evaluation.RuleID)
		if w := want[evaluation.RuleID]; evaluation.Status != w.Status || evaluation.Reason != w.Reason {
			t.Errorf("RecordSkipped: %s: got %+v, want %+v", evaluation.RuleID, evaluation, w)
		}
	}
	if strings.Join(ids, " ") != "MDL901 MDL902" || len(skipped.Findings) != len(result.Findings) {
		t.Errorf("RecordSkipped: evaluations %v, %d findings; want MDL901 MDL902 and %d", ids, len(skipped.Findings), len(result.Findings))
	}
	// With RecordNone the same findings, no checks listed, the skips counted.
	counted, err := Run(Options{Paths: []string{dir}, Rules: rules, Records: RecordNone})
	if err != nil {
		t.Fatal(err)
	}
	if len(counted.Evaluations) != 0 || counted.UnlistedSkips != 2 || len(counted.Findings) != len(result.Findings) {
		t.Errorf("RecordNone: %d evaluations, %d unlisted skips, %d findings; want 0, 2 and %d",
			len(counted.Evaluations), counted.UnlistedSkips, len(counted.Findings), len(result.Findings))
	}
	if skipped.UnlistedSkips != 0 || result.UnlistedSkips != 0 {
		t.Errorf("unlisted skips %d and %d, want none where skips are listed", skipped.UnlistedSkips, result.UnlistedSkips)
	}
	finding := result.Findings[0]
	if finding.RuleID != "MDL903" || finding.Suppression == nil || finding.Suppression.Kind != lint.SuppressedByAnnotation ||
		finding.Suppression.Reason != "accepted for the test" {
		t.Errorf("suppressed finding %+v", finding)
	}
	if loc := result.Findings[1].Location; loc.Line != 8 || loc.Column != 26 || loc.Path != "spec.containers[0].image" {
		t.Errorf("location %+v", loc)
	}
}

// TestSuppressionRuleSettings: MDL001 follows --disable and severity
// overrides like every other rule.
func TestSuppressionRuleSettings(t *testing.T) {
	dir := t.TempDir()
	manifest := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    modellint.dev/ignore: \"MDL904\"\n" +
		"spec:\n  containers: [{name: c, image: x:1}]\n"
	if err := os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	failing := &lint.Rule{ID: "MDL904", Name: "failing", Severity: lint.Warning, Needs: []lint.Fact{lint.FactManifest},
		Check: func(pass *lint.Pass) { pass.Reportf("spec.containers[0].image", "bad image") }}
	for name, test := range map[string]struct {
		reasonRule *lint.Rule
		want       []string
	}{
		"enabled as error": {&lint.Rule{ID: lint.SuppressionRuleID, Name: "suppression-reason-missing", Severity: lint.Error}, []string{"MDL001 error", "MDL904 warning"}},
		"disabled":         {nil, []string{"MDL904 warning"}},
	} {
		t.Run(name, func(t *testing.T) {
			rules := []*lint.Rule{failing}
			if test.reasonRule != nil {
				rules = append(rules, test.reasonRule)
			}
			result, err := Run(Options{Paths: []string{dir}, Rules: rules})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, finding := range result.Findings {
				got = append(got, finding.RuleID+" "+finding.Severity.String())
			}
			if strings.Join(got, ", ") != strings.Join(test.want, ", ") {
				t.Errorf("findings %v, want %v", got, test.want)
			}
		})
	}
}

// TestReportOnModelTarget: a manifest-style report on a model dir points
// at the dir instead of dereferencing a workload it does not have.
func TestReportOnModelTarget(t *testing.T) {
	rule := &lint.Rule{ID: "MDL999", Name: "x"}
	reports := &reporter{rule: rule, target: &lint.Target{Model: &model.Model{Dir: "models/resnet"}}}
	pass := newPass(reports, nil, nil, &checker{})
	pass.Rule = rule
	pass.Reportf("spec", "a finding")
	if len(reports.findings) != 1 || reports.findings[0].Location.File != "models/resnet" {
		t.Errorf("findings %+v", reports.findings)
	}
}

// TestInNamespaceTurns: the workers take a target of each open namespace
// in turn, two open here, the targets of no namespace first, every target
// once; a namespace that runs out gives its place to the next.
func TestInNamespaceTurns(t *testing.T) {
	var targets []*lint.Target
	for _, namespace := range []string{"a", "a", "a", "b", "", "b", "c"} {
		object := &manifest.Object{Kind: "Deployment", Namespace: namespace}
		targets = append(targets, &lint.Target{Workload: &manifest.Workload{Object: object}})
	}
	targets = append(targets, &lint.Target{Model: &model.Model{Dir: "m"}}) // no namespace, as ""
	got := inNamespaceTurns(targets, 2)
	want := []int{4, 0, 7, 1, 3, 2, 5, 6}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if got := inNamespaceTurns(targets, 100); !slices.Equal(got, []int{4, 0, 3, 6, 7, 1, 5, 2}) {
		t.Errorf("every namespace open: order %v", got)
	}
	if got := inNamespaceTurns(nil, 2); len(got) != 0 {
		t.Errorf("no targets: order %v", got)
	}
}

// TestNamespaceRelease: a namespace is released once its last target is
// done and so is every target of no namespace, whose rules read the
// objects of any namespace.
func TestNamespaceRelease(t *testing.T) {
	var source strings.Builder
	for _, namespace := range []string{"a", "b", ""} {
		fmt.Fprintf(&source, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: %q}\n"+
			"spec: {template: {spec: {containers: [{name: c, image: i}]}}}\n---\n"+
			"apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: %q}\nspec: {selector: {app: a}}\n---\n", namespace, namespace)
	}
	file, err := manifest.Load("release.yaml", []byte(source.String()))
	if err != nil {
		t.Fatal(err)
	}
	set, err := manifest.NewSet([]*manifest.File{file}, manifest.ReleaseTyped())
	if err != nil {
		t.Fatal(err)
	}
	var targets []*lint.Target
	for _, w := range set.Workloads {
		targets = append(targets, &lint.Target{Workload: w})
	}
	release := newNamespaceRelease(targets, []*manifest.Set{set})
	serviceIn := func(namespace string) *manifest.Object {
		for _, object := range set.Objects {
			if object.Kind == "Service" && object.Namespace == namespace {
				return object
			}
		}
		t.Fatalf("no Service in %q", namespace)
		return nil
	}
	release.done(targets[0]) // a's only target, before the one of no namespace
	if !serviceIn("a").Has("spec") {
		t.Error("a released while the target of no namespace, which reads its objects, is not done")
	}
	release.done(targets[2])
	if serviceIn("a").Has("spec") || !serviceIn("b").Has("spec") || !serviceIn("").Has("spec") {
		t.Error("after a's and no namespace's targets: want a's Service released, b's and the one of no namespace kept")
	}
	release.done(targets[1])
	if serviceIn("b").Has("spec") || !serviceIn("").Has("spec") {
		t.Error("after b's target: want b's Service released, the one of no namespace kept")
	}
}

// TestCollectorPacedWithManifests: the collector is paced once a run has
// manifests to read, and left alone by a run of a model dir: start-up
// alone nearly reaches the heap the first collection would wait for.
func TestCollectorPacedWithManifests(t *testing.T) {
	gcpace.Stop()
	t.Cleanup(gcpace.Stop)
	paced := func() bool {
		return debug.SetMemoryLimit(-1) != math.MaxInt64
	}
	models := filepath.Join("..", "testdata", "models", "saved_model_half_plus_two_cpu")
	if _, err := Run(Options{Paths: []string{models}, GCPercent: 50}); err != nil {
		t.Fatal(err)
	}
	if paced() {
		t.Error("after a run of a model dir, the collector is paced")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(Options{Paths: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	if paced() {
		t.Error("after a run of manifests without GCPercent, the collector is paced")
	}
	if _, err := Run(Options{Paths: []string{dir}, GCPercent: 50}); err != nil {
		t.Fatal(err)
	}
	if !paced() {
		t.Error("after a run of manifests, the collector is not paced")
	}
}

// TestNotesNameTheController: at -v, a serving kind whose controller
// builds its pods from fields that are no pod template is noted as such,
// naming the controller, not as an object only used for references.
func TestNotesNameTheController(t *testing.T) {
	dir := t.TempDir()
	objects := "apiVersion: kubeai.org/v1\nkind: Model\nmetadata: {name: llama}\nspec: {engine: VLLM, url: \"hf://m\"}\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"
	if err := os.WriteFile(filepath.Join(dir, "models.yaml"), []byte(objects), 0o644); err != nil {
		t.Fatal(err)
	}
	result, err := Run(Options{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`Model/llama: spec.resourceProfile "" is not <name>:<multiple>, so KubeAI's controller refuses to build its pods`,
		":1: Model/llama (kubeai.org/v1): KubeAI's model controller builds the server's pods (vLLM, Ollama, " +
			"Infinity, FasterWhisper) from spec.engine, spec.url, spec.args and spec.resourceProfile with the images and " +
			"resource profiles of its system configuration; modellint builds them the same way on the default " +
			"configuration (lint/compose)",
		":6: ConfigMap/settings (v1): no pod template, only used for references",
	}
	if len(result.Notes) != len(want) {
		t.Fatalf("notes %q, want %d", result.Notes, len(want))
	}
	for i, note := range result.Notes {
		if !strings.HasSuffix(note, want[i]) {
			t.Errorf("note %q, want one ending in %q", note, want[i])
		}
	}

	// A run whose reports read no notes leaves out those on its objects.
	result, err = Run(Options{Paths: []string{dir}, WithoutNotes: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(result.Notes) != 1 || !strings.HasSuffix(result.Notes[0], want[0]) {
		t.Errorf("without notes read: notes %q, want only %q", result.Notes, want[0])
	}
	if len(result.Files) != 1 {
		t.Errorf("without notes read: files %q, want models.yaml", result.Files)
	}
}
