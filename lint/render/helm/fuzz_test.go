package helm

import (
	"path"
	"regexp"
	"strings"
	"testing"
	"text/template/parse"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/modellint/modellint/lint/render/charts"
)

// FuzzTemplateLines checks that no template source makes the line tracing
// panic: the marks, each line's own text, the values actions and helper
// calls, and reading the marks back off a render. Seeds live in
// testdata/fuzz/FuzzTemplateLines.
func FuzzTemplateLines(f *testing.F) {
	f.Add("{{- range $spec := .Values.models }}\n---\nspec:\n  {{- include \"x\" $spec | nindent 2 }}\n{{- end }}\n")
	f.Add("{{- define \"x\" -}}\na: {{ .a }}\n{{- end }}\n{{ template \"x\" . }}\n")
	f.Add("x: {{ tpl (include \"y\" .) . }}\n{{/* a comment */}}\ny: `{{ \"}}\" }}`\n")
	f.Fuzz(func(t *testing.T, source string) {
		marked := markTemplate(source, 0)
		if stripped := markPattern.ReplaceAllLiteralString(marked, ""); strings.Count(stripped, "\n") != strings.Count(source, "\n") {
			t.Errorf("marks changed the number of lines:\n%q\n%q", source, marked)
		}
		lines := literalLines(source)
		_, ranges, _, _ := valueActions("fuzz", source)
		markTemplateKeys(source, 0, ranges)
		passedThrough("fuzz", source)
		for _, line := range helperCalls("fuzz", source) {
			if line < 1 || line > len(lines)-1 {
				t.Errorf("helper call on line %d of a %d-line template", line, len(lines)-1)
			}
		}
		readMarks(marked, markPattern.ReplaceAllLiteralString(marked, ""), func(int, int) bool { return true })
	})
}

// FuzzRenderChart renders and traces a chart whose one template and
// values.yaml are the input, next to the helpers of the chart `helm create`
// writes, the start of most public charts: no input may panic, an error is
// one line, and every field rendered is placed on a line of a file of the
// chart. Seeds are the templates of that chart, with its values and with
// everything it makes optional turned on, and the shapes of public
// model-serving charts in testdata/fuzz/FuzzRenderChart.
func FuzzRenderChart(f *testing.F) {
	scaffold, err := chartutil.Create("app", f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	top, err := loader.Load(scaffold)
	if err != nil {
		f.Fatal(err)
	}
	var helpers, values []byte
	for _, file := range top.Templates {
		if file.Name == "templates/_helpers.tpl" {
			helpers = file.Data
		}
	}
	for _, file := range top.Raw {
		if file.Name == chartutil.ValuesfileName {
			values = file.Data
		}
	}
	allEnabled := strings.ReplaceAll(string(values), "enabled: false", "enabled: true")
	for _, file := range top.Templates {
		if base := path.Base(file.Name); strings.HasPrefix(base, "_") || base == "NOTES.txt" {
			continue
		}
		f.Add(string(file.Data), string(values))
		f.Add(string(file.Data), allEnabled)
	}
	modelConfig := []byte("name: \"resnet\"\nplatform: \"onnxruntime_onnx\"\nmax_batch_size: 8\n")
	chartYAML := []byte("apiVersion: v2\nname: app\nversion: 0.1.0\nappVersion: \"1.16.0\"\n")
	f.Fuzz(func(t *testing.T, template, values string) {
		if costly(template) || costly(values) {
			t.Skip("an input whose render is bounded only by the time and memory limits")
		}
		files := []*loader.BufferedFile{
			{Name: "Chart.yaml", Data: chartYAML},
			{Name: "values.yaml", Data: []byte(values)},
			{Name: "templates/_helpers.tpl", Data: helpers},
			{Name: "templates/fuzz.yaml", Data: []byte(template)},
			{Name: "files/config.pbtxt", Data: modelConfig},
		}
		top, err := loader.LoadFiles(files)
		if err != nil {
			return
		}
		rendered, valuesFiles, err := renderChart(top, "fuzz", "", charts.Options{})
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
			return
		}
		lines := map[string]int{}
		for _, file := range files {
			lines[path.Join("fuzz", "app", file.Name)] = strings.Count(string(file.Data), "\n") + 1
		}
		for _, file := range valuesFiles {
			if _, ok := lines[file.Path]; !ok {
				t.Errorf("values file %s is not the chart's", file.Path)
			}
		}
		for _, template := range rendered {
			for _, object := range template.file.Objects {
				for field := range object.Doc.Fields() {
					file, pos := object.Doc.Where(field)
					if count, ok := lines[file]; !ok || pos.Line < 1 || pos.Line > count || pos.Column < 1 {
						t.Errorf("%s %s placed at %s:%d:%d, not on a line of the chart's files", object.ID(), field, file, pos.Line, pos.Column)
					}
				}
			}
		}
	})
}

// costly reports an input whose render is long or large by design rather
// than by a bug: loops and strings whose size is a number in the input, key
// generation, password hashing, ranges nested three deep.
func costly(source string) bool {
	return costlyCall.MatchString(source) || rangeDepth(source) >= 3
}

var costlyCall = regexp.MustCompile(`until|seq|repeat|gen[A-Z]|bcrypt|htpasswd|derivePassword|[0-9]{6,}|[0-9][eE][0-9+]|0[xXoObB]`)

// rangeDepth is how deep a template nests its range actions (0 when it does
// not parse).
func rangeDepth(source string) int {
	tree := parse.New("fuzz")
	tree.Mode = parse.SkipFuncCheck
	treeSet := map[string]*parse.Tree{}
	if _, err := tree.Parse(source, "{{", "}}", treeSet); err != nil {
		return 0
	}
	var depth func(node parse.Node) int
	lists := func(lists ...*parse.ListNode) int {
		deepest := 0
		for _, list := range lists {
			if list != nil {
				deepest = max(deepest, depth(list))
			}
		}
		return deepest
	}
	depth = func(node parse.Node) int {
		switch n := node.(type) {
		case *parse.ListNode:
			deepest := 0
			for _, child := range n.Nodes {
				deepest = max(deepest, depth(child))
			}
			return deepest
		case *parse.RangeNode:
			return 1 + lists(n.List, n.ElseList)
		case *parse.IfNode:
			return lists(n.List, n.ElseList)
		case *parse.WithNode:
			return lists(n.List, n.ElseList)
		}
		return 0
	}
	deepest := 0
	for _, tree := range treeSet {
		deepest = max(deepest, depth(tree.Root))
	}
	return deepest
}
