package helm

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/render/charts"
)

// TestRenderLastLineWithoutLineEnd renders the shape of a public device
// plugin chart (aws-efa-k8s-device-plugin in Triton's EKS tutorial) whose
// DaemonSet template ends on a value line with no line end: a mapping whose
// only value line no mark accounts for crashed the tracing. The field on
// that line is placed on it, and a value passed through from values.yaml
// still on values.yaml. When the last line's end is trimmed away instead,
// no mark accounts for it and its field is placed on its parent's line.
func TestRenderLastLineWithoutLineEnd(t *testing.T) {
	for ending, pathAt := range map[string]string{
		"/dev/infiniband/":                  "device-plugin/templates/daemonset.yaml:18:13",
		"{{ \"/dev/infiniband/\" -}}\n  \n": "device-plugin/templates/daemonset.yaml:17:11",
	} {
		t.Run(ending, func(t *testing.T) { renderDevicePlugin(t, ending, pathAt) })
	}
}

func renderDevicePlugin(t *testing.T, ending, pathAt string) {
	chartDir := t.TempDir()
	writeFiles(t, chartDir, map[string]string{
		"Chart.yaml":  "apiVersion: v1\nname: device-plugin\nversion: v0.5.3\nappVersion: v0.5.3\n",
		"values.yaml": "image:\n  repository: registry.example/device-plugin\nresources:\n  requests:\n    cpu: 10m\n",
		"templates/daemonset.yaml": `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ .Release.Name }}
spec:
  template:
    spec:
      containers:
        - image: {{ .Values.image.repository }}:{{ .Chart.AppVersion }}
          name: device-plugin
          {{- with .Values.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
      volumes:
        - name: infiniband-volume
          hostPath:
            path: ` + ending,
	})
	files, err := renderBoth(t, chartDir, "device-plugin", charts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	daemonSet := files[0].Objects[0]
	for path, want := range map[string]string{
		"spec.template.spec.volumes[0].hostPath":                  "device-plugin/templates/daemonset.yaml:17:11",
		"spec.template.spec.volumes[0].hostPath.path":             pathAt,
		"spec.template.spec.containers[0].resources.requests.cpu": "device-plugin/values.yaml:5:5",
		"spec.template.spec.containers[0].name":                   "device-plugin/templates/daemonset.yaml:10:11",
	} {
		file, pos := daemonSet.Where(path)
		if got := fmt.Sprintf("%s:%d:%d", file, pos.Line, pos.Column); got != want {
			t.Errorf("%s at %s, want %s", path, got, want)
		}
	}
}

// TestRangeKeys: a range over values declares a key variable, the marks of
// its body (not of its else) write the key, and a values path through the
// element resolves with the keys read back from a render.
func TestRangeKeys(t *testing.T) {
	source := "{{- range .Values.models }}\nimage: {{ .image }}\n{{- else }}\nnone: true\n{{- end }}\n"
	actions, ranges, _, _ := valueActions("t", source)
	if len(ranges) != 1 {
		t.Fatalf("ranges %v, want the one over models", ranges)
	}
	offset := strings.Index(source, ".Values.models")
	if got, want := actions[2], []string{elementPath("models", offset) + ".image"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("line 2 reads %q, want %q", got, want)
	}
	marked := markTemplateKeys(source, 0, ranges)
	for _, want := range []string{
		"range $modellintKey" + strconv.Itoa(offset) + ", $modellintElement" + strconv.Itoa(offset) + " := .Values.models",
		"{{ .image }}⟦0:2@" + strconv.Itoa(offset) + "={{ $modellintKey" + strconv.Itoa(offset) + " | toJson | trunc 64 | b64enc }}⟧",
		"none: true⟦0:4⟧",
	} {
		if !strings.Contains(marked, want) {
			t.Errorf("marked template lacks %q:\n%s", want, marked)
		}
	}
	origins := markOrigins("image: x⟦0:2@"+strconv.Itoa(offset)+"=MQ==⟧\n", func(int, int) bool { return true })
	path, ok := resolveElements(actions[2][0], origins[0].keys)
	if !ok || path != "models[1].image" {
		t.Errorf("resolved %q, %v; want models[1].image", path, ok)
	}
	if path, ok := resolveElements("groups[@7].gpus", map[int]any{7: "generation"}); !ok || path != "groups.generation.gpus" {
		t.Errorf("map key resolved %q, %v; want groups.generation.gpus", path, ok)
	}
	if _, ok := resolveElements("groups[@7].gpus", nil); ok {
		t.Error("a path resolved without its key")
	}
	// A number takes no key variable: declaring one would fail the render.
	if _, ranges, _, _ := valueActions("t", "{{ range $n := int .Values.count }}{{ $n }}{{ end }}"); len(ranges) != 0 {
		t.Errorf("a range over a number was given a key: %v", ranges)
	}
}

// TestChosenLines: the lines of a helper in a branch of an if or with on
// its argument are chosen by the value the innermost such condition reads;
// a condition on the chart's values, or the lines outside any, choose none.
func TestChosenLines(t *testing.T) {
	source := `{{- define "resources" -}}
{{- $spec := . -}}
requests:
  cpu: "4"
{{- if $spec.limitMemory }}
limits:
  memory: {{ .limitMemory }}
  {{- with .gpus }}
  nvidia.com/gpu: {{ . }}
  {{- end }}
{{- else }}
limits: {}
{{- end }}
{{- if .Values.debug }}
debug: true
{{- end }}
{{- end }}`
	_, _, _, chosen := valueActions("_helpers.tpl", source)
	want := map[int]string{5: "limitMemory", 6: "limitMemory", 7: "limitMemory", 8: "gpus", 9: "gpus",
		11: "limitMemory", 12: "limitMemory"}
	for line := 1; line <= strings.Count(source, "\n")+1; line++ {
		got := strings.TrimPrefix(strings.TrimPrefix(chosen[line], helperArg), ".")
		if got != want[line] {
			t.Errorf("line %d chosen by %q, want %q", line, got, want[line])
		}
	}
}

func TestPassedThrough(t *testing.T) {
	source := `{{- define "a" -}}
{{ required "image is required" .Values.image }}
{{- end }}
{{- define "b" -}}
{{- $image := required "x" .Values.proxy.image -}}
{{- $image -}}
{{- end }}
{{- define "c" -}}
{{ .Values.repository }}:{{ .Values.tag }}
{{- end }}
{{- define "d" -}}
image: {{ .Values.image }}
{{- end }}`
	got := passedThrough("_helpers.tpl", source)
	want := map[string]string{"a": "image", "b": "proxy.image"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("passedThrough = %v, want %v", got, want)
	}
}
