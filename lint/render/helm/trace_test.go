package helm

import (
	"fmt"
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
