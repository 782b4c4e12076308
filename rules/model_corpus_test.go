package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/rules"
)

// corpusModels holds real public model directories; it sits beside the
// repository in the shared folder.
const corpusModels = "../../shared/corpus/models"

// corpusGolden records, per model dir, what modellint knows and reports.
const corpusGolden = "../testdata/models/corpus.golden"

// TestModelCorpus lints every model dir of the corpus, records the facts
// and findings, and checks the verdicts the corpus's own sources give:
// TF Serving loads its test models, Triton's QA marks some configs as
// failing and says why.
func TestModelCorpus(t *testing.T) {
	if _, err := os.Stat(corpusModels); err != nil {
		t.Skipf("model corpus %s not present (%v): it lives beside the repository in the shared folder", corpusModels, err)
	}
	root, err := filepath.Abs(corpusModels)
	if err != nil {
		t.Fatal(err)
	}
	golden, err := filepath.Abs(corpusGolden)
	if err != nil {
		t.Fatal(err)
	}
	// Lint from the corpus root so that the recorded paths do not depend
	// on where the repository is checked out.
	t.Chdir(root)
	result, err := engine.Run(engine.Options{Paths: []string{"."}, Rules: rules.All(), Config: &lint.Config{}})
	if err != nil {
		t.Fatalf("the corpus must lint without errors: %v", err)
	}
	findings := map[string][]lint.Finding{}
	for _, finding := range result.Findings {
		findings[strings.TrimPrefix(finding.Target, "model ")] = append(findings[strings.TrimPrefix(finding.Target, "model ")], finding)
	}
	var out strings.Builder
	out.WriteString("# Every model dir of ../shared/corpus/models: facts, then findings.\n" +
		"# Regenerate with: go test ./rules -run TestModelCorpus -update\n")
	verdicts := map[string][]string{} // dir -> "RULE severity"
	var dirs []string
	for _, dir := range result.Files {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			dirs = append(dirs, dir)
		}
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		m, err := model.Load(dir, dir)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "\n%s\n  %s\n", dir, describeModel(m))
		for _, finding := range findings[dir] {
			fmt.Fprintf(&out, "  %s %s %s\n    %s\n", finding.RuleID, finding.Severity, finding.Location.File, finding.Message)
			verdicts[dir] = append(verdicts[dir], finding.RuleID+" "+finding.Severity.String())
		}
	}
	checkCorpusVerdicts(t, dirs, verdicts)
	if *update {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run `go test ./rules -run TestModelCorpus -update` to create it)", err)
	}
	if string(want) != out.String() {
		t.Errorf("corpus results differ from %s (run `go test ./rules -run TestModelCorpus -update` and review the diff)\n%s",
			corpusGolden, diffLines(string(want), out.String()))
	}
}

// describeModel is one line of facts about a model dir.
func describeModel(m *model.Model) string {
	var versions []string
	for _, version := range m.Versions {
		name := version.Name
		if version.Resident {
			name += "*"
		}
		versions = append(versions, name)
	}
	line := fmt.Sprintf("layout=%s files=%d bytes=%d", m.Layout, len(m.Files), m.Bytes)
	if len(versions) > 0 || m.Layout == model.LayoutTFServing || m.Layout == model.LayoutTriton {
		line += fmt.Sprintf(" versions=[%s] resident=%d/%dB", strings.Join(versions, " "), m.ResidentVersions, m.ResidentBytes)
	}
	if m.WeightBytes > 0 || m.Parameters > 0 {
		line += fmt.Sprintf(" weights=%dB params=%d", m.WeightBytes, m.Parameters)
	}
	for _, version := range m.Resident() {
		if saved := version.SavedModel; saved != nil && saved.Graph != nil {
			for _, graph := range saved.Graph.MetaGraphs {
				line += fmt.Sprintf(" tf=%s tags=%s signatures=%d ops=%d", graph.TensorFlowVersion, strings.Join(graph.Tags, ","), len(graph.Signatures), len(graph.Ops))
			}
		}
	}
	return line
}

// checkCorpusVerdicts holds the corpus to what its sources say about it.
func checkCorpusVerdicts(t *testing.T, dirs []string, verdicts map[string][]string) {
	t.Helper()
	has := func(dir, verdict string) bool {
		for _, v := range verdicts[dir] {
			if v == verdict {
				return true
			}
		}
		return false
	}
	errorsIn := func(dir string) []string {
		var errs []string
		for _, v := range verdicts[dir] {
			if strings.HasSuffix(v, " error") {
				errs = append(errs, v)
			}
		}
		return errs
	}
	seen := map[string]bool{}
	for _, dir := range dirs {
		seen[dir] = true
		switch {
		// TF Serving's own tests load these; half_plus_two is a legacy
		// session bundle that current TF Serving no longer loads, and
		// bad_half_plus_two is broken on purpose.
		case strings.HasPrefix(dir, "tensorflow-serving/") && dir != "tensorflow-serving/half_plus_two" && dir != "tensorflow-serving/bad_half_plus_two":
			if errs := errorsIn(dir); len(errs) > 0 {
				t.Errorf("%s: TF Serving loads this model, but modellint reports %v", dir, errs)
			}
		// Triton's QA expects these configs to fail because they do not
		// match the ONNX model (see their `expected` files).
		case strings.HasPrefix(dir, "triton-inference-server-server/qa_L0_model_config/autofill_noplatform/"):
			if !has(dir, "MDL121 error") {
				t.Errorf("%s: Triton's QA expects a config/model mismatch; got %v", dir, verdicts[dir])
			}
		// Triton's example repository ships these without version dirs
		// (fetch_models.sh downloads them).
		case dir == "triton-inference-server-server/model_repository/densenet_onnx" || dir == "triton-inference-server-server/model_repository/inception_onnx":
			if !has(dir, "MDL120 error") {
				t.Errorf("%s: no version directory; got %v", dir, verdicts[dir])
			}
		case strings.HasPrefix(dir, "triton-inference-server-server/model_repository/"), strings.HasPrefix(dir, "triton-inference-server-server/example_model_repository/"),
			strings.HasPrefix(dir, "triton-inference-server-server/mlflow_examples/"):
			if errs := errorsIn(dir); len(errs) > 0 {
				t.Errorf("%s: a working Triton example, but modellint reports %v", dir, errs)
			}
		}
	}
	for _, dir := range []string{"tensorflow-serving/bad_half_plus_two", "tensorflow-serving/saved_model_half_plus_two_cpu", "triton-inference-server-server/model_repository/simple"} {
		if !seen[dir] {
			t.Errorf("%s was not discovered as a model directory", dir)
		}
	}
	if !has("tensorflow-serving/bad_half_plus_two", "MDL102 error") {
		t.Errorf("bad_half_plus_two (no saved_model.pb) must give MDL102; got %v", verdicts["tensorflow-serving/bad_half_plus_two"])
	}
}
