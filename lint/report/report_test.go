package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/report")

// goldenDir holds the expected output of every format.
var goldenDir = filepath.Join("..", "..", "testdata", "report")

// schemaDir holds the schemas reports are validated against.
var schemaDir = filepath.Join("..", "..", "testdata", "schemas")

func testRules() []*lint.Rule {
	return []*lint.Rule{
		{
			ID: "MDL001", Name: "suppression-reason-missing", Severity: lint.Warning,
			Artifact: lint.ArtifactMeta, Needs: []lint.Fact{lint.FactManifest},
			Doc: lint.Doc{
				Summary: "A suppression gives no reason.",
				Why:     "A silenced finding without a reason cannot be reviewed.",
				Bad:     "metadata:\n  annotations:\n    modellint.dev/ignore: \"MDL205\"",
				Good:    "metadata:\n  annotations:\n    modellint.dev/ignore: \"MDL205 -- set by the LimitRange\"",
				Fix:     "Write the reason after the rule IDs.",
			},
		},
		{
			ID: "MDL201", Name: "readiness-probe-missing", Severity: lint.Warning,
			Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
			Doc: lint.Doc{
				Summary: "A model-server container has no readiness probe.",
				Why:     "Traffic reaches the pod before the model is loaded.",
				Fix:     "Add a readinessProbe on the server's health endpoint.",
			},
		},
		{
			ID: "MDL205", Name: "memory-limit-missing", Severity: lint.Error,
			Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
			Doc: lint.Doc{
				Summary: "A model-server container has no memory limit.",
				Why: "Without a memory limit the container is the first the kernel's OOM killer picks when the node " +
					"runs short, and the pod restarts with exit code 137 in the middle of loading the model; with a " +
					"limit below the model's size it is OOMKilled on every start. Pipes | and <angle> brackets & ampersands " +
					"must survive every format.",
				Bad:        "resources:\n  requests:\n    memory: 4Gi",
				Good:       "resources:\n  requests:\n    memory: 18Gi\n  limits:\n    memory: 18Gi",
				Fix:        "Set resources.limits.memory to at least the model's size times the server's overhead factor.",
				References: []string{"https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/"},
			},
		},
		{
			ID: "MDL401", Name: "image-runs-as-root", Severity: lint.Info,
			Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactManifest, lint.FactImage},
			Doc: lint.Doc{
				Summary: "The image's default user is root.",
				Why:     "A compromised server process owns the container.",
			},
		},
	}
}

const (
	servingFile = "deploy/serving.yaml"
	batchFile   = "deploy/batch job.yaml" // a space, to exercise URI encoding
	tfServing   = "Deployment/default/tf-serving"
	router      = "Deployment/default/router"
	batchInfer  = "Job/ml/batch-infer"
	needsImage  = "needs image facts, which this run does not have"
	// helpersFile and chartTemplate are a chart's helper and the template
	// that includes it.
	helpersFile   = "chart/templates/_helpers.tpl"
	chartTemplate = "chart/templates/deployment.yaml"
	llmServer     = "Deployment/default/llm-mistral"
)

// testResult has every shape a report must handle: findings with and without
// a line, a suppressed one, one from a rule with no evaluation, passing and
// skipped evaluations, and two files.
func testResult() *lint.Result {
	return &lint.Result{
		Rules: testRules(),
		Files: []string{servingFile, batchFile},
		Findings: []lint.Finding{
			{
				RuleID: "MDL205", RuleName: "memory-limit-missing", Severity: lint.Info,
				Message:  "the Job's container has no memory limit; it runs once, so this is reported as info",
				Location: lint.Location{File: batchFile}, Target: batchInfer,
			},
			{
				RuleID: "MDL201", RuleName: "readiness-probe-missing", Severity: lint.Warning,
				Message:  `container "worker" has no readiness probe`,
				Location: lint.Location{File: batchFile, Line: 12, Column: 9, Path: "spec.template.spec.containers[0]"},
				Target:   batchInfer, Suppression: &lint.Suppression{Kind: "inline", Reason: "batch jobs take no traffic"},
			},
			{
				RuleID: "MDL001", RuleName: "suppression-reason-missing", Severity: lint.Warning,
				Message:  "the modellint.dev/ignore annotation gives no reason: add one after the rule IDs",
				Location: lint.Location{File: servingFile, Line: 7, Column: 5, Path: "metadata.annotations"},
				Target:   tfServing,
			},
			{
				RuleID: "MDL201", RuleName: "readiness-probe-missing", Severity: lint.Warning,
				Message:  `container "server" has no readiness probe: Services send it requests while the model is still loading`,
				Location: lint.Location{File: servingFile, Line: 18, Column: 9, Path: "spec.template.spec.containers[0]"},
				Target:   tfServing,
			},
			{
				RuleID: "MDL205", RuleName: "memory-limit-missing", Severity: lint.Error,
				Message: `container "server" sets no memory limit; the model needs about 14.2 GiB (saved_model 9.5 GiB × 1.5), ` +
					"so set resources.limits.memory to at least 15Gi",
				Location: lint.Location{File: servingFile, Line: 24, Column: 11, Path: "spec.template.spec.containers[0].resources.limits"},
				Target:   tfServing,
				Fix: &lint.Fix{Description: "set the memory limit to 15Gi", Safety: lint.FixSafe, Suggestion: "memory: 15Gi\n",
					Edits: []manifest.Edit{{File: servingFile, Start: 612, End: 612, Text: "            memory: 15Gi\n",
						Line: 25, Column: 1, EndLine: 25, EndColumn: 1,
						Review: manifest.Review{StartLine: 24, EndLine: 24, Text: "          limits:\n            memory: 15Gi"}}}},
			},
		},
		Evaluations: []lint.Evaluation{
			{RuleID: "MDL205", Target: batchInfer, File: batchFile, Line: 1, Status: lint.StatusFail},
			{RuleID: "MDL201", Target: batchInfer, File: batchFile, Line: 1, Status: lint.StatusFail},
			{RuleID: "MDL401", Target: batchInfer, File: batchFile, Line: 1, Status: lint.StatusSkip, Reason: needsImage},
			{RuleID: "MDL205", Target: tfServing, File: servingFile, Line: 3, Status: lint.StatusFail},
			{RuleID: "MDL201", Target: tfServing, File: servingFile, Line: 3, Status: lint.StatusFail},
			{RuleID: "MDL401", Target: tfServing, File: servingFile, Line: 3, Status: lint.StatusSkip, Reason: needsImage},
			{RuleID: "MDL205", Target: router, File: servingFile, Line: 40, Status: lint.StatusPass},
			{RuleID: "MDL201", Target: router, File: servingFile, Line: 40, Status: lint.StatusPass},
			{RuleID: "MDL401", Target: router, File: servingFile, Line: 40, Status: lint.StatusSkip, Reason: needsImage},
		},
		Notes: []string{"deploy/serving.yaml:52: ConfigMap/default/tf-config (v1): no pod template, only used for references"},
	}
}

// helperResult is a finding in a Helm helper, with the template line that
// includes the helper as its related location.
func helperResult() *lint.Result {
	return &lint.Result{
		Rules: testRules(),
		Files: []string{chartTemplate},
		Findings: []lint.Finding{{
			RuleID: "MDL205", RuleName: "memory-limit-missing", Severity: lint.Error,
			Message:  `container "vllm" sets no memory limit; set resources.limits.memory`,
			Location: lint.Location{File: helpersFile, Line: 20, Column: 1, Path: "spec.template.spec.containers[0].resources.limits"},
			Target:   llmServer,
			Related: []lint.RelatedLocation{{
				Location: lint.Location{File: chartTemplate, Line: 36, Column: 13}, Message: lint.IncludedFrom,
			}},
		}},
		Evaluations: []lint.Evaluation{{RuleID: "MDL205", Target: llmServer, File: chartTemplate, Line: 3, Status: lint.StatusFail}},
	}
}

// cleanResult is a run that found nothing.
// realResult lints the bundled examples and every scenario with the real
// rules, so the validators also see what users get (suppressed findings,
// MDL001, skipped checks, many files).
func realResult(t *testing.T) *lint.Result {
	t.Helper()
	// Lint from the repository root, as CI does, for repo-relative paths;
	// back to this package before the test goes on to read its own files.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir("../.."); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd) //nolint:errcheck // wd existed a moment ago
	result, err := engine.Run(engine.Options{
		Paths: []string{"testdata/examples", "testdata/scenarios"},
		Rules: rules.All(), Config: &lint.Config{},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(result.Findings) < 50 {
		t.Fatalf("only %d findings from the scenarios", len(result.Findings))
	}
	return result
}

func cleanResult() *lint.Result {
	return &lint.Result{
		Rules: testRules()[1:3],
		Files: []string{servingFile},
		Evaluations: []lint.Evaluation{
			{RuleID: "MDL205", Target: router, File: servingFile, Line: 40, Status: lint.StatusPass},
			{RuleID: "MDL201", Target: router, File: servingFile, Line: 40, Status: lint.StatusPass},
		},
	}
}

var testOptions = Options{ToolVersion: "1.2.0"}

type output struct {
	golden string
	write  func(*bytes.Buffer) error
}

func outputs() []output {
	format := func(name string, result *lint.Result, options Options) func(*bytes.Buffer) error {
		return func(out *bytes.Buffer) error { return Write(out, name, result, options) }
	}
	verbose, color := testOptions, testOptions
	verbose.Verbose = true
	color.Color = true
	return []output{
		{"findings.table.txt", format("table", testResult(), testOptions)},
		{"findings.verbose.table.txt", format("table", testResult(), verbose)},
		{"findings.color.table.txt", format("table", testResult(), color)},
		{"findings.json", format("json", testResult(), testOptions)},
		{"findings.sarif", format("sarif", testResult(), testOptions)},
		{"findings.junit.xml", format("junit", testResult(), testOptions)},
		{"helper.table.txt", format("table", helperResult(), testOptions)},
		{"helper.json", format("json", helperResult(), testOptions)},
		{"helper.sarif", format("sarif", helperResult(), testOptions)},
		{"helper.junit.xml", format("junit", helperResult(), testOptions)},
		{"helper.github.txt", format("github", helperResult(), testOptions)},
		{"helper.md", format("markdown", helperResult(), testOptions)},
		{"clean.table.txt", format("table", cleanResult(), testOptions)},
		{"clean.json", format("json", cleanResult(), Options{ToolVersion: "dev"})},
		{"clean.sarif", format("sarif", cleanResult(), Options{ToolVersion: "dev"})},
		{"clean.junit.xml", format("junit", cleanResult(), testOptions)},
		{"findings.gitlab.json", format("gitlab", testResult(), testOptions)},
		{"clean.gitlab.json", format("gitlab", cleanResult(), testOptions)},
		{"findings.github.txt", format("github", testResult(), testOptions)},
		{"clean.github.txt", format("github", cleanResult(), testOptions)},
		{"hostile.github.txt", format("github", hostileResult(), testOptions)},
		{"findings.md", format("markdown", testResult(), testOptions)},
		{"clean.md", format("markdown", cleanResult(), testOptions)},
		{"hostile.md", format("markdown", hostileResult(), testOptions)},
		{"rules.txt", func(out *bytes.Buffer) error { return RuleList(out, testRules(), 0) }},
		{"explain.txt", func(out *bytes.Buffer) error { return Explain(out, testRules()[2]) }},
		{"rules.md", func(out *bytes.Buffer) error { return RulesMarkdown(out, testRules()) }},
	}
}

func TestGolden(t *testing.T) {
	for _, test := range outputs() {
		t.Run(test.golden, func(t *testing.T) {
			var got bytes.Buffer
			if err := test.write(&got); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(goldenDir, test.golden)
			if *update {
				if err := os.MkdirAll(goldenDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./lint/report -update to create it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("output differs from %s (run go test ./lint/report -update after checking the change):\n%s", path, got.String())
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	for _, test := range outputs() {
		t.Run(test.golden, func(t *testing.T) {
			var first, second bytes.Buffer
			if err := test.write(&first); err != nil {
				t.Fatal(err)
			}
			if err := test.write(&second); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first.Bytes(), second.Bytes()) {
				t.Errorf("two writes differ:\n%s\n---\n%s", first.String(), second.String())
			}
		})
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	var out bytes.Buffer
	if err := Write(&out, "yaml", testResult(), testOptions); err == nil {
		t.Fatal("Write accepted an unknown format")
	}
	for _, format := range Formats {
		out.Reset()
		if err := Write(&out, format, testResult(), testOptions); err != nil {
			t.Errorf("format %s: %v", format, err)
		}
		if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
			t.Errorf("format %s: output does not end with a newline", format)
		}
	}
}

func TestSummaryLine(t *testing.T) {
	tests := []struct {
		name   string
		result *lint.Result
		want   string
	}{
		{"findings", testResult(), "1 error, 2 warnings, 1 info in 2 files (1 suppressed; 3 rule checks skipped)"},
		{"clean", cleanResult(), "no findings in 1 file"},
		{"empty", &lint.Result{}, "no findings in 0 files"},
		{"only suppressed", &lint.Result{
			Files:    []string{"a.yaml", "b.yaml"},
			Findings: []lint.Finding{{RuleID: "MDL205", Suppression: &lint.Suppression{Kind: "config"}}},
		}, "no findings in 2 files (1 suppressed)"},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			if got := summaryLine(test.result, countResult(test.result)); got != test.want {
				t.Errorf("summaryLine = %q, want %q", got, test.want)
			}
		})
	}
}

// TestWriteFindingsInParts checks that every format writes a result whose
// findings are made by parts as it writes the result holding them whole:
// a part for each file, as a run linted in batches makes them.
func TestWriteFindingsInParts(t *testing.T) {
	result := realResult(t)
	if len(result.Links) < 3 {
		t.Fatalf("only %d links", len(result.Links))
	}
	var parts [][]lint.Finding
	for start := 0; start < len(result.Findings); {
		end := start + 1
		for end < len(result.Findings) && result.Findings[end].Location.File == result.Findings[start].Location.File {
			end++
		}
		parts = append(parts, result.Findings[start:end])
		start = end
	}
	for _, format := range Formats {
		var whole, inParts bytes.Buffer
		options := Options{ToolVersion: "1.0.0", Verbose: true}
		if err := Write(&whole, format, result, options); err != nil {
			t.Fatal(err)
		}
		byParts := *result
		byParts.SetParts(func(yield func([]lint.Finding) bool) {
			for _, part := range parts {
				if !yield(slices.Clone(part)) {
					return
				}
			}
		}, func(yield func([]string) bool) {
			for start := 0; start < len(result.Links); start += 2 {
				if !yield(slices.Clone(result.Links[start:min(start+2, len(result.Links))])) {
					return
				}
			}
		})
		if err := Write(&inParts, format, &byParts, options); err != nil {
			t.Fatal(err)
		}
		if whole.String() != inParts.String() {
			t.Errorf("%s: written by parts:\n%s\nwhole:\n%s", format, inParts.String(), whole.String())
		}
		if !byParts.InParts() || len(byParts.Findings) > 0 {
			t.Errorf("%s: writing changed the result it was given", format)
		}
	}
}
