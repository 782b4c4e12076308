package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/redact"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/config"
)

// batchTree writes files (path → content) under a new dir.
func batchTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		writeFile(t, filepath.Join(dir, name), content)
	}
	return dir
}

// writeFile writes a file and the dirs it lies in.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func batchDeployment(name, namespace string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + ", namespace: " + namespace + "}\n" +
		"spec:\n  template:\n    spec:\n      containers: [{name: c, image: x:1}]\n"
}

func TestNamespaceBatches(t *testing.T) {
	secret := "---\napiVersion: v1\nkind: Secret\nmetadata: {name: token, namespace: a}\nstringData: {token: a-long-secret-value}\n"
	whole := map[string]string{
		"a/one.yaml": batchDeployment("one", "a") + secret,
		"a/two.yaml": batchDeployment("two", "a"),
		"b/one.yaml": batchDeployment("three", "b"),
		"c/one.yaml": batchDeployment("four", "c"),
	}
	with := func(name, content string) map[string]string {
		files := map[string]string{}
		for k, v := range whole {
			files[k] = v
		}
		files[name] = content
		return files
	}
	tests := []struct {
		name    string
		files   map[string]string
		options func(*Options)
		// found, when set, says the walk found the shape the case is
		// about, so that a run kept whole is kept whole for it.
		found   func(*inputs) bool
		batches []int // the files of each batch; nil: the run is whole
	}{
		{name: "a namespace a dir", files: whole, batches: []int{2, 1, 1}},
		{name: "namespaces together up to an eighth of the size",
			files: with("z/one.yaml", batchDeployment("five", "z")+"# "+strings.Repeat("x", 4096)+"\n"), options: func(o *Options) {
				o.BatchesPast = 8 * int64(len(whole["a/one.yaml"])+len(whole["a/two.yaml"])+1)
			}, batches: []int{3, 2}},
		{name: "below the size", files: whole, options: func(o *Options) { o.BatchesPast = 1 << 20 }},
		{name: "one namespace", files: map[string]string{"a/one.yaml": whole["a/one.yaml"], "a/two.yaml": whole["a/two.yaml"]}, options: func(o *Options) { o.BatchesPast = 1 }},
		{name: "a namespace again after another", files: with("d.yaml", batchDeployment("five", "a"))},
		{name: "an object of no namespace", files: with("d/one.yaml", strings.Replace(batchDeployment("five", "x"), ", namespace: x", "", 1))},
		{name: "two namespaces in a file", files: with("d/one.yaml", batchDeployment("five", "d")+"---\n"+batchDeployment("six", "e"))},
		{name: "a workload named in two files", files: with("d/one.yaml", batchDeployment("one", "d"))},
		{name: "a kind read across namespaces", files: with("d/one.yaml",
			"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: d}\n")},
		{name: "a List", files: with("d/one.yaml", "apiVersion: v1\nkind: List\nitems:\n  - "+
			strings.ReplaceAll(strings.TrimSuffix(batchDeployment("five", "d"), "\n"), "\n", "\n    ")+"\n")},
		{name: "a file that does not parse", files: with("d/one.yaml", "kind: [\n")},
		{name: "config ignore entries", files: whole, options: func(o *Options) {
			o.Config = &lint.Config{Ignore: []config.Ignore{{Rule: "MDL205", Reason: "r"}}}
		}},
		{name: "a model link", files: whole, options: func(o *Options) { o.Models = []lint.ModelMapping{{Path: "m"}} }},
		{name: "an image given for a reference", files: whole, options: func(o *Options) {
			o.Image.Sources = map[string]string{"x:1": "image.tar"}
		}},
		{name: "images read from registries", files: whole, options: func(o *Options) { o.Image.Registry = true }},
		{name: "a Helm chart", files: with("d/chart/Chart.yaml", "apiVersion: v2\nname: d\nversion: 0.1.0\n"),
			found: func(found *inputs) bool { return len(found.renderDirs) == 1 }},
		{name: "a model dir", files: with("d/model/1/saved_model.pb", "\x08\x01"),
			found: func(found *inputs) bool { return len(found.modelDirs) == 1 }},
		{name: "a pod composed of an InferenceService and its ServingRuntime", files: with("d/serving.yaml",
			"apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: m, namespace: d}\n"+
				"spec:\n  predictor:\n    model: {modelFormat: {name: vllm}, runtime: vllm}\n---\n"+
				"apiVersion: serving.kserve.io/v1alpha1\nkind: ServingRuntime\nmetadata: {name: vllm, namespace: d}\n"+
				"spec:\n  supportedModelFormats: [{name: vllm}]\n  containers: [{name: kserve-container, image: vllm/vllm-openai:v0.6.0}]\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			options := Options{Paths: []string{batchTree(t, tt.files)}, BatchesPast: 4}
			if tt.options != nil {
				tt.options(&options)
			}
			runConfig := options.Config
			if runConfig == nil {
				runConfig = &lint.Config{}
			}
			walked := walk(options.Paths, nil, excludes(options, runConfig), nil)
			if tt.found != nil && !tt.found(walked.found) {
				t.Fatalf("the walk found %+v", walked.found)
			}
			batches := namespaceBatches(walked, options, runConfig)
			var sizes []int
			var secrets []string
			for _, batch := range batches {
				sizes = append(sizes, len(batch.files))
				for _, index := range batch.indexes {
					for _, value := range index.secrets {
						secrets = append(secrets, value.text)
					}
				}
			}
			if !slices.Equal(sizes, tt.batches) {
				t.Fatalf("batches of %v files, want %v", sizes, tt.batches)
			}
			// The Secret's value is known before the first batch is linted.
			if batches != nil && !slices.Equal(secrets, []string{"a-long-secret-value"}) {
				t.Errorf("the Secrets' values: %q", secrets)
			}
		})
	}
}

// TestLintInBatchesWhenFilesDiffer checks that a batch whose files are not
// what the first read found leaves the result and the secrets as they
// were, so the run is linted whole.
func TestLintInBatchesWhenFilesDiffer(t *testing.T) {
	dir := batchTree(t, map[string]string{
		"a/one.yaml": batchDeployment("one", "a") +
			"---\napiVersion: v1\nkind: Secret\nmetadata: {name: token, namespace: a}\nstringData: {token: a-long-secret-value}\n",
		"b/one.yaml": batchDeployment("two", "b"),
	})
	options := Options{Paths: []string{dir}, BatchesPast: 1}
	walked := walk(options.Paths, nil, nil, nil)
	batches := namespaceBatches(walked, options, &lint.Config{})
	if len(batches) != 2 {
		t.Fatalf("%d batches", len(batches))
	}
	batches[1].indexes[0].workloads = []string{"read otherwise"}
	secrets, result := &redact.Set{}, &lint.Result{}
	batched, err := lintInBatches(options, &lint.Config{}, secrets, walked, batches, result)
	if err != nil || batched {
		t.Fatalf("batched %v, %v", batched, err)
	}
	if hidden := secrets.String("a-long-secret-value"); hidden != "a-long-secret-value" {
		t.Errorf("the Secret's value stays added: %s", hidden)
	}
	if len(result.Files) > 0 || len(result.Findings) > 0 {
		t.Errorf("a part of the batches is in the result: %+v", result)
	}
}

// TestFindingsInParts checks that a run linted in batches makes its
// findings by parts when each batch's files follow the files of the
// batches before in the reports' order, and whole when they do not (a dir
// "a" is walked before a file "a-b.yaml", which the reports list first).
func TestFindingsInParts(t *testing.T) {
	rules := []*lint.Rule{{ID: "MDL901", Name: "image", Severity: lint.Warning, Needs: []lint.Fact{lint.FactManifest},
		Check: func(pass *lint.Pass) {
			pass.Reportf("spec.template.spec.containers[0].image", "image of %s", pass.Target.Name())
		}}}
	for _, c := range []struct {
		name    string
		files   map[string]string
		inParts bool
	}{
		{"in order", map[string]string{"a/one.yaml": batchDeployment("one", "a"), "b/one.yaml": batchDeployment("two", "b"),
			"c/one.yaml": batchDeployment("three", "c")}, true},
		{"walked out of order", map[string]string{"a/one.yaml": batchDeployment("one", "a"), "a-b.yaml": batchDeployment("two", "b")}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			options := Options{Paths: []string{batchTree(t, c.files)}, Rules: rules}
			whole, err := Run(options)
			if err != nil {
				t.Fatal(err)
			}
			options.BatchesPast, options.FindingsInParts = 1, true
			batched, err := Run(options)
			if err != nil {
				t.Fatal(err)
			}
			if batched.InParts() != c.inParts {
				t.Fatalf("in parts: %v, want %v", batched.InParts(), c.inParts)
			}
			parts := 0
			for range batched.FindingParts() {
				parts++
			}
			if want := map[bool]int{true: len(c.files), false: 1}[c.inParts]; parts != want {
				t.Errorf("%d parts, want %d", parts, want)
			}
			got := slices.Collect(batched.EachFinding())
			if len(got) != len(c.files) || !slices.EqualFunc(got, whole.Findings, func(a, b lint.Finding) bool {
				return a.Location == b.Location && a.Message == b.Message
			}) {
				t.Errorf("findings\n%+v\nwhole:\n%+v", got, whole.Findings)
			}
		})
	}
}
