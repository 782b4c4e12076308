package helm

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/render/charts"
)

// plantedToken stands for a credential on the runner, outside the chart.
const plantedToken = "planted-registry-token-4f9c2a"

// writeFiles writes files (slash path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// leakChart is a chart that puts the files it is given into its output the
// way a hostile chart would: encoded, so no redaction recognises them.
var leakChart = map[string]string{
	"Chart.yaml":  "apiVersion: v2\nname: leak\nversion: 0.1.0\n",
	"values.yaml": "note: harmless\n",
	"templates/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: leak
data:
  note: {{ .Values.note | quote }}
  file: {{ .Files.Get "files/config.json" | b64enc | quote }}
  glob: {{ range $name, $_ := .Files.Glob "files/**" }}{{ $.Files.Get $name | b64enc }}{{ end }}
  lines: {{ .Files.Lines "files/config.json" | join "," | b64enc | quote }}
{{ (.Files.Glob "files/*").AsConfig | indent 2 }}
`,
}

// hostFiles is what sits outside the chart on the runner.
func hostFiles(t *testing.T) string {
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{
		"docker/config.json":  `{"auths":{"registry.example":{"auth":"` + plantedToken + `"}}}` + "\n",
		"values.yaml":         "note: " + plantedToken + "\n",
		"template.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: planted\ndata:\n  token: " + plantedToken + "\n",
		"subchart/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
		"subchart/templates/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\ndata:\n  token: " +
			plantedToken + "\n",
	})
	return outside
}

// TestRenderRefusesLinksOutOfTheChart: a chart whose files, values.yaml,
// template, .helmignore or subchart is a symbolic link to a file of the
// runner is refused with one line naming the link, and the file's content
// appears nowhere, plain or encoded.
func TestRenderRefusesLinksOutOfTheChart(t *testing.T) {
	outside := hostFiles(t)
	hostConfig := filepath.Join(outside, "docker", "config.json")
	cases := []struct {
		name  string
		links map[string]string // link in the chart → target
		link  string            // the link the error names
	}{
		{"files dir", map[string]string{"files": filepath.Join(outside, "docker")}, "files"},
		{"file", map[string]string{"files/config.json": hostConfig}, "files/config.json"},
		{"relative file", map[string]string{"files/config.json": "../../" + filepath.Base(outside) + "/docker/config.json"}, "files/config.json"},
		{"values.yaml", map[string]string{"values.yaml": filepath.Join(outside, "values.yaml")}, "values.yaml"},
		{"template", map[string]string{"templates/planted.yaml": filepath.Join(outside, "template.yaml")}, "templates/planted.yaml"},
		{"templates dir", map[string]string{"templates/host": filepath.Join(outside, "docker")}, "templates/host"},
		{"subchart", map[string]string{"charts/sub": filepath.Join(outside, "subchart")}, "charts/sub"},
		{"file of a subchart", map[string]string{"charts/sub/files/config.json": hostConfig}, "charts/sub/files/config.json"},
		{".helmignore", map[string]string{".helmignore": hostConfig}, ".helmignore"},
		{"a device", map[string]string{"files/zero": "/dev/zero"}, "files/zero"},
		{"through a link inside", map[string]string{"files/inside": "config.json", "files/config.json": hostConfig}, "files/config.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chartDir := filepath.Join(filepath.Dir(outside), "chart-"+strings.ReplaceAll(c.name, " ", "-"))
			t.Cleanup(func() { os.RemoveAll(chartDir) })
			files := map[string]string{}
			for name, content := range leakChart {
				if c.links[name] == "" {
					files[name] = content
				}
			}
			if strings.HasPrefix(c.link, "charts/sub/") {
				files["charts/sub/Chart.yaml"] = "apiVersion: v2\nname: sub\nversion: 0.1.0\n"
				files["charts/sub/templates/configmap.yaml"] = leakChart["templates/configmap.yaml"]
			}
			writeFiles(t, chartDir, files)
			for link, target := range c.links {
				symlink(t, target, filepath.Join(chartDir, filepath.FromSlash(link)))
			}
			rendered, err := renderBoth(t, chartDir, "charts/evil", charts.Options{})
			if err == nil {
				t.Fatalf("rendered a chart with a link out of it:\n%s", describeFiles(rendered))
			}
			want := "charts/evil/" + c.link + ": symbolic link to "
			if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "outside the chart charts/evil: refused") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error:\n  %s\nwant one line starting %q, saying the link leaves the chart", err, want)
			}
			assertNoToken(t, err.Error()+describeFiles(rendered))
		})
	}
}

func assertNoToken(t *testing.T, output string) {
	t.Helper()
	for _, form := range []string{plantedToken, base64.StdEncoding.EncodeToString([]byte(plantedToken))[:24]} {
		if strings.Contains(output, form) {
			t.Errorf("the planted token (%s) is in the output:\n%s", form, output)
		}
	}
}

// TestRenderFollowsLinksInsideTheChart: links that stay in the chart (to a
// file, a directory, values.yaml, a template, a subchart, absolute or
// through ..) are followed as Helm follows them, and so is a chart path
// that is itself a link.
func TestRenderFollowsLinksInsideTheChart(t *testing.T) {
	base := t.TempDir()
	chartDir := filepath.Join(base, "chart")
	files := map[string]string{
		"shared/config.json":           `{"model": "resnet"}` + "\n",
		"shared/values-default.yaml":   "note: from-the-linked-values\n",
		"shared/service.yaml":          "apiVersion: v1\nkind: Service\nmetadata:\n  name: linked\n",
		"vendor/sub/Chart.yaml":        "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
		"vendor/sub/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\n",
	}
	for name, content := range leakChart {
		if name != "values.yaml" {
			files[name] = content
		}
	}
	writeFiles(t, chartDir, files)
	symlink(t, "shared", filepath.Join(chartDir, "files"))
	symlink(t, "shared/values-default.yaml", filepath.Join(chartDir, "values.yaml"))
	symlink(t, filepath.Join(chartDir, "shared", "service.yaml"), filepath.Join(chartDir, "templates", "service.yaml"))
	symlink(t, "../../chart/shared/config.json", filepath.Join(chartDir, "templates", "..", "shared", "again.json"))
	symlink(t, "../vendor/sub", filepath.Join(chartDir, "charts", "sub"))
	symlink(t, "chart", filepath.Join(base, "linked-chart"))

	rendered, err := renderBoth(t, filepath.Join(base, "linked-chart"), "charts/linked", charts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var objects []string
	var configMap *manifest.Object
	for _, file := range rendered {
		for _, object := range file.Objects {
			objects = append(objects, object.ID())
			if object.ID() == "ConfigMap/leak" {
				configMap = object
			}
		}
	}
	if got := strings.Join(objects, " "); got != "ConfigMap/sub ConfigMap/leak Service/linked" {
		t.Fatalf("objects %s, want the subchart's, the chart's and the linked template's", got)
	}
	data := configMap.Plain()["data"].(map[string]any)
	if want := base64.StdEncoding.EncodeToString([]byte(`{"model": "resnet"}` + "\n")); data["file"] != want {
		t.Errorf(".Files.Get through a linked directory = %v, want %s", data["file"], want)
	}
	if data["note"] != "from-the-linked-values" {
		t.Errorf("note = %v, want the linked values.yaml's", data["note"])
	}
	if data["again.json"] == nil {
		t.Errorf("AsConfig left out the file linked through ..: %v", data)
	}
}

// TestRenderRefusesLoopsAndIrregularFiles: a link back into the chart's own
// directories and a named pipe are refused at once; neither hangs.
func TestRenderRefusesLoopsAndIrregularFiles(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, chartDir string)
		want string
	}{
		{"link to an ancestor", func(t *testing.T, chartDir string) {
			symlink(t, "..", filepath.Join(chartDir, "files", "loop"))
		}, "charts/odd/files/loop: symbolic link loop back to charts/odd: refused"},
		{"links to each other", func(t *testing.T, chartDir string) {
			symlink(t, "../b", filepath.Join(chartDir, "files", "a", "to-b"))
			symlink(t, "../a", filepath.Join(chartDir, "files", "b", "to-a"))
		}, "charts/odd/files/a/to-b/to-a: symbolic link loop back to charts/odd/files/a: refused"},
		{"named pipe", func(t *testing.T, chartDir string) {
			if err := os.MkdirAll(filepath.Join(chartDir, "files"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(chartDir, "files", "pipe"), 0o644); err != nil {
				testenv.Unavailable(t, "cannot make a FIFO here: "+err.Error())
			}
		}, "charts/odd/files/pipe: a named pipe (FIFO), not a regular file: refused"},
		{"link to a named pipe", func(t *testing.T, chartDir string) {
			// The pipe itself is ignored; the link to it is not.
			writeFiles(t, chartDir, map[string]string{".helmignore": "shared/\n"})
			if err := os.MkdirAll(filepath.Join(chartDir, "shared"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(chartDir, "shared", "pipe"), 0o644); err != nil {
				testenv.Unavailable(t, "cannot make a FIFO here: "+err.Error())
			}
			symlink(t, "../shared/pipe", filepath.Join(chartDir, "templates", "pipe.yaml"))
		}, "charts/odd/templates/pipe.yaml: a named pipe (FIFO), not a regular file: refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chartDir := t.TempDir()
			writeFiles(t, chartDir, leakChart)
			c.make(t, chartDir)
			_, err := renderBoth(t, chartDir, "charts/odd", charts.Options{})
			if err == nil || err.Error() != c.want {
				t.Errorf("error:\n  %v\nwant:\n  %s", err, c.want)
			}
		})
	}
}

// TestRenderArchiveLinks: a symbolic link inside a packaged chart is read
// from the archive (an empty file), never followed on disk.
func TestRenderArchiveLinks(t *testing.T) {
	outside := hostFiles(t)
	var archive bytes.Buffer
	compressed := gzip.NewWriter(&archive)
	tarball := tar.NewWriter(compressed)
	for _, name := range []string{"Chart.yaml", "values.yaml", "templates/configmap.yaml"} {
		content := leakChart[name]
		if err := tarball.WriteHeader(&tar.Header{Name: "leak/" + name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tarball.Write([]byte(content))
	}
	tarball.WriteHeader(&tar.Header{Name: "leak/files/config.json", Typeflag: tar.TypeSymlink, Linkname: filepath.Join(outside, "docker", "config.json")})
	tarball.Close()
	compressed.Close()
	path := filepath.Join(t.TempDir(), "leak-0.1.0.tgz")
	if err := os.WriteFile(path, archive.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rendered, err := renderBoth(t, path, "leak-0.1.0.tgz", charts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	assertNoToken(t, describeFiles(rendered))
	if data := rendered[0].Objects[0].Plain()["data"].(map[string]any); data["file"] != "" {
		t.Errorf("the archive's link was read as %q, want an empty file", data["file"])
	}
}

// TestRenderNoLookups: the template functions that would ask the network
// (getHostByName, a DNS lookup) or the cluster (lookup) answer nothing, as
// in `helm template` without --enable-dns.
func TestRenderNoLookups(t *testing.T) {
	chartDir := t.TempDir()
	writeFiles(t, chartDir, map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: lookups\nversion: 0.1.0\n",
		"templates/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: lookups
data:
  host: {{ getHostByName "localhost" | quote }}
  secrets: {{ lookup "v1" "Secret" "default" "" | len | quote }}
`,
	})
	rendered, err := renderBoth(t, chartDir, "charts/lookups", charts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := rendered[0].Objects[0].Plain()["data"].(map[string]any)
	if data["host"] != "" || data["secrets"] != "0" {
		t.Errorf("lookups answered: %v, want host \"\" and no secrets", data)
	}
}
