package helm

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/render/charts"
	"github.com/modellint/modellint/lint/render/rendertest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// chartsDir is where the fixture charts live, and chartsDisplay how they
// are named in output.
const (
	chartsDir     = "../../../testdata/charts"
	chartsDisplay = "charts"
)

// TestMain lets the test binary serve as the renderer charts.Render starts.
func TestMain(m *testing.M) {
	if charts.IsRenderChild() {
		os.Exit(charts.Serve(os.Stdin, os.Stdout, Respond))
	}
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	charts.UseRenderer(self, charts.ChildEnv+"=1")
	os.Exit(m.Run())
}

// renderBoth renders the chart in this process and in the renderer, which
// must give the same files (names, texts, objects and where every field is
// placed) or the same error; it returns the first.
func renderBoth(t *testing.T, chartPath, display string, options charts.Options) ([]*manifest.File, error) {
	t.Helper()
	files, err := Render(chartPath, display, options)
	wire, wireErr := charts.Render(chartPath, display, options)
	if fmt.Sprint(err) != fmt.Sprint(wireErr) {
		t.Errorf("in process: %v\nin the renderer: %v", err, wireErr)
	}
	if got, want := describeFiles(wire), describeFiles(files); got != want {
		t.Errorf("the renderer's files differ from this process's:\n%s\nwant:\n%s", got, want)
	}
	return files, err
}

// describeFiles is what a lint run reads of rendered files.
func describeFiles(files []*manifest.File) string {
	var out strings.Builder
	for _, file := range files {
		fmt.Fprintf(&out, "%s rendered=%v\n%s\n", file.Path, file.Rendered, file.Source)
		for _, object := range file.Objects {
			fmt.Fprintf(&out, "%v\n", object.Plain())
		}
	}
	return out.String() + rendertest.Locations(files)
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	rendertest.CheckGolden(t, filepath.Join("testdata", name+".golden"), got, *update, "./lint/render/helm")
}

func TestRenderLocations(t *testing.T) {
	cases := []struct {
		golden  string
		chart   string
		options charts.Options
	}{
		{"tfserving-defaults", "serving/tfserving", charts.Options{}},
		{"tfserving-values", "serving/tfserving", charts.Options{
			ValuesFiles: []string{"testdata/values-production.yaml"},
			Set:         []string{"replicaCount=4"},
			ReleaseName: "resnet", Namespace: "serving",
		}},
		{"tfserving-tests", "serving/tfserving", charts.Options{IncludeTests: true}},
		{"inference-stack", "serving/inference-stack", charts.Options{}},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			files, err := renderBoth(t, filepath.Join(chartsDir, c.chart), chartsDisplay+"/"+c.chart, c.options)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, c.golden, rendertest.Locations(files))
		})
	}
}

// TestRenderDeterministic renders each chart twice: the objects, their
// fields and where they are placed must not change between runs.
func TestRenderDeterministic(t *testing.T) {
	for _, chart := range []string{"serving/tfserving", "serving/inference-stack"} {
		render := func() string {
			files, err := Render(filepath.Join(chartsDir, chart), chart, charts.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			for _, file := range files {
				out.Write(file.Source)
				for _, object := range file.Objects {
					fmt.Fprintf(&out, "%v\n", object.Plain())
				}
			}
			return out.String() + rendertest.Locations(files)
		}
		if first, second := render(), render(); first != second {
			t.Errorf("%s renders differently the second time", chart)
		}
	}
}

func TestRenderErrors(t *testing.T) {
	cases := []struct {
		chart   string
		options charts.Options
		want    string
	}{
		{"broken/required-value", charts.Options{},
			"charts/broken/required-value/templates/deployment.yaml:16:30: execution error at (required-value/templates/deployment.yaml:16:30): " +
				"model.name is required: the model the server loads"},
		{"broken/template-syntax", charts.Options{},
			`charts/broken/template-syntax/templates/deployment.yaml:6: parse error at (template-syntax/templates/deployment.yaml:6): unexpected "}" in operand`},
		{"broken/missing-dependency", charts.Options{},
			"charts/broken/missing-dependency/Chart.yaml: Chart.yaml depends on triton, missing from charts/ " +
				"(run `helm dependency build`; modellint does not download charts)"},
		{"broken/invalid-yaml", charts.Options{},
			"charts/broken/invalid-yaml/templates/configmap.yaml:4: the rendered output is not valid YAML (at its line 4): did not find expected key"},
		{"serving/tfserving", charts.Options{ValuesFiles: []string{"testdata/missing.yaml"}},
			"testdata/missing.yaml: no such file or directory"},
		{"serving/tfserving", charts.Options{ValuesFiles: []string{"testdata/malformed-values.yaml"}},
			"testdata/malformed-values.yaml:2: invalid YAML: mapping values are not allowed in this context"},
		{"serving/tfserving", charts.Options{Set: []string{"image.tag"}},
			"--helm-set image.tag: key \"tag\" has no value"},
		{"serving/tfserving", charts.Options{Set: []string{"token[=hf_NeverInTheError0123"}},
			"--helm-set token[=…: error parsing index: EOF"},
		{"serving", charts.Options{}, "charts/serving: not a loadable Helm chart"},
	}
	for _, c := range cases {
		t.Run(c.chart, func(t *testing.T) {
			_, err := renderBoth(t, filepath.Join(chartsDir, c.chart), chartsDisplay+"/"+c.chart, c.options)
			if err == nil {
				t.Fatal("rendered without error")
			}
			if !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error:\n  %s\nwant one line starting with:\n  %s", err, c.want)
			}
		})
	}
}

// TestRenderArchive renders the chart packaged as `helm package` would: the
// same objects, placed on the same lines, with file names inside the archive.
func TestRenderArchive(t *testing.T) {
	chart, err := loader.Load(filepath.Join(chartsDir, "serving/tfserving"))
	if err != nil {
		t.Fatal(err)
	}
	archive, err := chartutil.Save(chart, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	packaged, err := renderBoth(t, archive, "tfserving-0.3.0.tgz", charts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	unpacked, err := Render(filepath.Join(chartsDir, "serving/tfserving"), "tfserving", charts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if packaged[0].Path != "tfserving-0.3.0.tgz/tfserving/templates/deployment.yaml" {
		t.Errorf("packaged template named %q", packaged[0].Path)
	}
	want := strings.ReplaceAll(rendertest.Locations(unpacked), "tfserving/", "tfserving-0.3.0.tgz/tfserving/")
	if got := rendertest.Locations(packaged); got != want {
		t.Errorf("packaged chart placed differently:\n%s\nwant:\n%s", got, want)
	}
}

// TestRenderPackagedSubchart renders a chart directory whose subchart is
// packaged under charts/ (twice, once under an alias): no field stays
// inside the archive; each lands on the parent's values line that sets it
// or would (the subchart's key), else on the subchart's entry in
// Chart.yaml, with the line in the archive beside it.
func TestRenderPackagedSubchart(t *testing.T) {
	files, err := renderBoth(t, "../../../testdata/scenarios/helm-packaged-subchart/chart", "chart", charts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	locations := rendertest.Locations(files)
	checkGolden(t, "packaged-subchart", locations)
	for _, line := range strings.Split(locations, "\n") {
		if where, _, _ := strings.Cut(strings.TrimSpace(line), " ("); strings.Contains(where, ".tgz/") && strings.HasPrefix(line, "    ") {
			t.Errorf("a field placed inside the archive: %s", line)
		}
	}
	var listed bool
	for _, file := range files {
		listed = listed || (file.Path == "chart/Chart.yaml" && len(file.Source) > 0)
	}
	if !listed {
		t.Error("chart/Chart.yaml, which fields are placed in, is not among the files (an ignore comment there would not be read)")
	}
}

func TestMarkTemplate(t *testing.T) {
	cases := []struct{ name, template, want string }{
		{"plain lines", "a: 1\nb: 2\n", "a: 1⟦0:1⟧\nb: 2⟦0:2⟧\n"},
		{"action keeps its line", "a: {{ .x }}\n", "a: {{ .x }}⟦0:1⟧\n"},
		{"right trim eats the newline", "{{- if .x -}}\nb: 2\n{{- end }}\n", "{{- if .x -}}\nb: 2⟦0:2⟧\n{{- end }}⟦0:3⟧\n"},
		{"right trim eats blank lines too", "{{ .x -}}\n\n  b: 2\n", "{{ .x -}}\n\n  b: 2⟦0:3⟧\n"},
		{"multi-line action", "a: {{ list 1\n 2 }}\nb: 3\n", "a: {{ list 1\n 2 }}⟦0:2⟧\nb: 3⟦0:3⟧\n"},
		{"comment", "{{/* a\n}} b */}}\nc: 1\n", "{{/* a\n}} b */}}⟦0:2⟧\nc: 1⟦0:3⟧\n"},
		{"delimiters in a string", "a: {{ \"}}\" }}\nb: 2\n", "a: {{ \"}}\" }}⟦0:1⟧\nb: 2⟦0:2⟧\n"},
		{"raw string over lines", "a: {{ `x\n}}` }}\n", "a: {{ `x\n}}` }}⟦0:2⟧\n"},
		{"carriage return", "a: 1\r\nb: 2\r\n", "a: 1⟦0:1⟧\r\nb: 2⟦0:2⟧\r\n"},
		{"last line without a line end", "a: 1\nb: {{ .x }}", "a: 1⟦0:1⟧\nb: {{ .x }}⟦0:2⟧"},
		{"last line trimmed away", "a: {{ .x -}}\n  ", "a: {{ .x -}}\n  "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := markTemplate(c.template, 0); got != c.want {
				t.Errorf("markTemplate(%q) =\n  %q\nwant\n  %q", c.template, got, c.want)
			}
		})
	}
}

func TestReadMarks(t *testing.T) {
	// Template line 2 is `{{ toYaml .Values.x | nindent 2 }}`, which writes no
	// text of its own: both lines it generated are attributed to it.
	marked := "x:⟦0:1⟧\n  a: 1\n  b: 2⟦0:2⟧\ny: 3⟦0:3⟧"
	literal := func(_, line int) bool { return line != 2 }
	got := readMarks(marked, "x:\n  a: 1\n  b: 2\ny: 3", literal)
	want := []lineOrigin{
		{file: 0, line: 1, run: 0, lastFile: -1, secondFile: -1},
		{file: 0, line: 2, generated: true, run: 1, lastFile: -1, secondFile: -1},
		{file: 0, line: 2, generated: true, run: 1, lastFile: -1, secondFile: -1},
		{file: 0, line: 3, run: 2, lastFile: -1, secondFile: -1},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("readMarks = %v, want %v", got, want)
	}
	// A helper's last line carries its mark, then the including line's.
	helper := readMarks("x:⟦0:1⟧\n  a: 1⟦1:4⟧⟦0:2⟧", "x:\n  a: 1", literal)
	if len(helper) != 2 || helper[1].file != 1 || helper[1].line != 4 || helper[1].lastFile != 0 || helper[1].lastLine != 2 {
		t.Errorf("readMarks of a helper's last line = %v, want its own mark 1:4 and the including line 0:2 last", helper)
	}
	if readMarks(marked, "x:\n  a: 1\n  b: 2\ny: 3\n", literal) != nil {
		t.Error("output with other lines than the real one was trusted")
	}
	// Same number of lines, other text: a helper's marks changed a condition.
	if readMarks(marked, "x:\n  c: 1\n  b: 2\ny: 3", literal) != nil {
		t.Error("output with other text than the real one was trusted")
	}
}

func TestKeyOnly(t *testing.T) {
	for literal, want := range map[string]bool{
		"  memory: ":             true,
		`  image: ""`:            true,
		"  - ":                   true,
		`  - name: ""`:           true,
		`  "nvidia.com/gpu": `:   true,
		"  - --model_name=":      false,
		"  image: :":             false,
		"  path: /v1/models/":    false,
		"  a: b: ":               false,
		"  checksum/config: x-y": false,
	} {
		if got := keyOnly(literal); got != want {
			t.Errorf("keyOnly(%q) = %v, want %v", literal, got, want)
		}
	}
}

func TestValuesPrecedence(t *testing.T) {
	files, err := Render(filepath.Join(chartsDir, "serving/tfserving"), "tfserving", charts.Options{
		ValuesFiles: []string{"testdata/values-production.yaml"},
		Set:         []string{"model.claimName=bert-models"},
	})
	if err != nil {
		t.Fatal(err)
	}
	deployment := files[0].Objects[0]
	cases := []struct{ path, want string }{
		// The user's file overrides values.yaml.
		{"spec.template.spec.containers[0].resources.limits.memory", "testdata/values-production.yaml:6:5"},
		// values.yaml still holds what the user's file leaves alone.
		{"spec.replicas", "tfserving/values.yaml:3:1"},
		// --helm-set is on no file: the template line that renders it.
		{"spec.template.spec.volumes[0].persistentVolumeClaim.claimName", "tfserving/templates/deployment.yaml:62:13"},
	}
	for _, c := range cases {
		file, pos := deployment.Where(c.path)
		if got := fmt.Sprintf("%s:%d:%d", file, pos.Line, pos.Column); got != c.want {
			t.Errorf("%s at %s, want %s", c.path, got, c.want)
		}
	}
	var sources bytes.Buffer
	for _, file := range files {
		if len(file.Objects) == 0 {
			fmt.Fprintln(&sources, file.Path)
		}
	}
	if want := "tfserving/templates/tests/test-connection.yaml\ntestdata/values-production.yaml\ntfserving/values.yaml\n"; sources.String() != want {
		t.Errorf("files without objects:\n%swant:\n%s", &sources, want)
	}
}

// TestKindLineFallback: a template whose lines could not be traced places
// each document at the kind: line that writes it; the instances of a ranged
// object all start on its one kind: line, not on the Nth kind: of the file.
func TestKindLineFallback(t *testing.T) {
	source := []byte("{{- range .Values.models }}\n---\napiVersion: apps/v1\nkind: Deployment\n{{- end }}\n---\napiVersion: v1\nkind: Service\n---\nkind: {{ .Values.kind }}\n")
	cases := []struct {
		kind string
		n    int
		want int
	}{{"Deployment", 0, 4}, {"Deployment", 1, 4}, {"Deployment", 5, 4}, {"Service", 0, 8}, {"Service", 1, 8}, {"ConfigMap", 0, 10}}
	for _, c := range cases {
		if got := kindLine(source, c.kind, c.n); got != c.want {
			t.Errorf("kindLine(%s, %d) = %d, want %d", c.kind, c.n, got, c.want)
		}
	}
}

// TestHelperCallLines renders a range over two model specs whose pod spec a
// helper writes: each object's pod-spec fields are placed on the helper's
// lines and name the template line that includes the helper; the fields the
// template writes itself stay on its own lines, per object.
func TestHelperCallLines(t *testing.T) {
	const (
		chartDir = "../../../testdata/scenarios/helm-helper-pod-spec/chart"
		template = "chart/templates/deployment.yaml"
		helpers  = "chart/templates/_helpers.tpl"
	)
	files, err := Render(chartDir, "chart", charts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type placed struct {
		file       string
		line       int
		calledFrom int // 0: not written by a helper
	}
	// The helpers are given each model's entry: what they pass through
	// from it lands on its values line (see valuesOf), what they write
	// themselves on their own lines, called from the template's.
	want := map[string]placed{
		"metadata.name":                {template, 6, 0},
		"spec.progressDeadlineSeconds": {template, 11, 0},
		"spec.template.spec":           {template, 19, 0},
		"spec.template.spec.containers[0].securityContext.fsGroup":     {helpers, 15, 20},
		"spec.template.spec.containers[0].readinessProbe.httpGet.port": {helpers, 24, 20},
		"spec.template.spec.volumes[0].emptyDir":                       {helpers, 29, 20},
	}
	var objects []string
	for _, file := range files {
		for _, object := range file.Objects {
			objects = append(objects, object.ID())
			for path, w := range want {
				file, pos := object.Doc.Where(path)
				call, called := object.Doc.CalledFrom(path)
				got := placed{file: file, line: pos.Line}
				if called {
					if call.File != template {
						t.Errorf("%s %s: included from %s, want %s", object.ID(), path, call.File, template)
					}
					got.calledFrom = call.Line
				}
				if got != w {
					t.Errorf("%s %s: at %s:%d included from line %d, want %s:%d included from line %d",
						object.ID(), path, got.file, got.line, got.calledFrom, w.file, w.line, w.calledFrom)
				}
			}
		}
	}
	const values = "chart/values.yaml"
	valuesOf := map[string]map[string]int{ // object → field → values line
		"Deployment/release-name-llama": {`metadata.labels["app.kubernetes.io/name"]`: 2, "spec.template.spec.containers[0].image": 3},
		"Deployment/release-name-qwen":  {`metadata.labels["app.kubernetes.io/name"]`: 6, "spec.template.spec.containers[0].image": 7},
	}
	for _, file := range files {
		for _, object := range file.Objects {
			for path, line := range valuesOf[object.ID()] {
				if file, pos := object.Doc.Where(path); file != values || pos.Line != line {
					t.Errorf("%s %s: at %s:%d, want %s:%d", object.ID(), path, file, pos.Line, values, line)
				}
			}
		}
	}
	if fmt.Sprint(objects) != "[Deployment/release-name-llama Deployment/release-name-qwen]" {
		t.Errorf("objects %v, want the two ranged Deployments", objects)
	}
}

// TestHelperCallLinesOrigins: the call of each rendered helper line is
// the last helper call between the template's marks around it, also when a
// range starts over between them, and 0 for the template's own lines.
func TestHelperCallLinesOrigins(t *testing.T) {
	self := &templateFile{index: 0, parsed: true, calls: []int{3, 7}}
	own := func(line int) lineOrigin { return lineOrigin{file: 0, line: line, lastFile: -1} }
	helper := func(line int) lineOrigin { return lineOrigin{file: 1, line: line, lastFile: -1} }
	closing := func(line, including int) lineOrigin {
		return lineOrigin{file: 1, line: line, lastFile: 0, lastLine: including}
	}
	origins := []lineOrigin{
		own(1), own(2), helper(10), closing(11, 3), // first pass of a range: the call on line 3
		own(5), helper(20), helper(21), // the call on line 7, ended by the next pass's first mark
		own(1), own(2), helper(10), closing(11, 3), own(5), helper(20), // last pass: no mark after
	}
	got := helperCallLines(self, origins)
	want := []int{0, 0, 3, 3, 0, 7, 7, 0, 0, 3, 3, 0, 7}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("helperCallLines = %v, want %v", got, want)
	}
}

// TestRangedHelperChosenLines renders a range over model specs whose
// resources a helper writes from each spec: a line the spec chose to write
// (a branch of `if .limitMemory`) lands in the spec's entry, on the value
// the condition reads or, when the entry lacks it, on the entry, with the
// helper's line beside it; a line the helper writes for every spec stays
// on the helper, called from the template.
func TestRangedHelperChosenLines(t *testing.T) {
	const (
		chartDir = "../../../testdata/scenarios/helm-range-models/chart"
		template = "chart/templates/deployment.yaml"
		helpers  = "chart/templates/_helpers.tpl"
		values   = "chart/values.yaml"
	)
	files, err := renderBoth(t, chartDir, "chart", charts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const resources = "spec.template.spec.containers[0].resources"
	cases := []struct {
		object, path, want, related string
	}{
		// llama sets limitMemory: the branch that writes the memory limit.
		{"Deployment/release-name-llama", resources + ".limits", values + ":5", manifest.HelperLine + " " + helpers + ":16"},
		{"Deployment/release-name-llama", resources + ".limits.memory", values + ":5", ""},
		// mistral does not: the branch without one, placed on its entry.
		{"Deployment/release-name-mistral", resources + ".limits", values + ":6", manifest.HelperLine + " " + helpers + ":20"},
		{"Deployment/release-name-mistral", manifest.JoinPath(resources+".limits", "nvidia.com/gpu"), values + ":6", manifest.HelperLine + " " + helpers + ":21"},
		// requests: are written for every spec.
		{"Deployment/release-name-llama", resources + ".requests", helpers + ":12", "included from " + template + ":36"},
		{"Deployment/release-name-mistral", resources + ".requests", helpers + ":12", "included from " + template + ":36"},
	}
	objects := map[string]*manifest.Object{}
	for _, file := range files {
		for _, object := range file.Objects {
			objects[object.ID()] = object
		}
	}
	for _, c := range cases {
		object := objects[c.object]
		if object == nil {
			t.Fatalf("no %s among %v", c.object, objects)
		}
		file, pos := object.Doc.Where(c.path)
		related := ""
		if call, ok := object.Doc.CalledFrom(c.path); ok && call.Note != "" {
			related = fmt.Sprintf("%s %s:%d", call.Note, call.File, call.Line)
		} else if ok {
			related = fmt.Sprintf("included from %s:%d", call.File, call.Line)
		}
		if got := fmt.Sprintf("%s:%d", file, pos.Line); got != c.want || related != c.related {
			t.Errorf("%s %s: at %s (%s), want %s (%s)", c.object, c.path, got, related, c.want, c.related)
		}
	}
}
