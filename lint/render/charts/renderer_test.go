package charts_test

import (
	"bytes"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modellint/modellint/internal/testenv"
	"github.com/modellint/modellint/lint/render/charts"
	"github.com/modellint/modellint/lint/render/helm/helmtest"
)

// rawRenderer builds testdata/rawrenderer, a renderer without modellint's
// checks, and makes the charts package start it until the test ends.
func rawRenderer(t *testing.T) {
	t.Helper()
	goTool := testenv.Tool(t, "go", "building the test renderer needs it")
	rawOnce.Do(func() {
		rawPath = filepath.Join(os.TempDir(), "modellint-rawrenderer-test")
		build := exec.Command(goTool, "build", "-o", rawPath, "./testdata/rawrenderer")
		if output, err := build.CombinedOutput(); err != nil {
			rawErr = err.Error() + ": " + string(output)
		}
	})
	if rawErr != "" {
		t.Fatal("build testdata/rawrenderer: " + rawErr)
	}
	charts.UseRenderer(rawPath)
	t.Cleanup(helmtest.ServeOrUse)
}

var (
	rawOnce sync.Once
	rawPath string
	rawErr  string
)

// writeFiles writes files (path: content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// chart writes a chart of one template and returns its dir.
func chart(t *testing.T, template string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hostile")
	writeFiles(t, dir, map[string]string{"Chart.yaml": "apiVersion: v2\nname: hostile\nversion: 0.1.0\n", "templates/cm.yaml": template})
	return dir
}

// TestRendererCrash: a renderer that panics is reported as a crash, with
// the panic's first line, at once and in one line, not as a bound it did
// not pass; the next request starts a new process.
func TestRendererCrash(t *testing.T) {
	rawRenderer(t)
	renderer := charts.NewRenderer(2)
	defer renderer.Close()
	start := time.Now()
	_, err := renderer.Render(t.TempDir(), "panic", charts.Options{})
	want := "panic: the renderer crashed: panic: index 3 out of range in the trace of templates/cm.yaml — this is a bug in modellint, please report it"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("the crash took %s to report", elapsed)
	}
	_, err = renderer.Render(t.TempDir(), "lookup localhost", charts.Options{})
	if err == nil || strings.Contains(err.Error(), "crashed") {
		t.Errorf("the request after the crash: %v, want the lookup's answer", err)
	}
}

// TestRendererOversizedAnswer: an answer larger than modellint reads is
// refused before it is read, as the renderer's fault.
func TestRendererOversizedAnswer(t *testing.T) {
	rawRenderer(t)
	_, err := charts.Render(t.TempDir(), "flood", charts.Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "flood: the renderer crashed: it sent more than the 32 MiB modellint reads of one answer") {
		t.Errorf("error %v", err)
	}
}

// TestRendererBounds: a template that loops past the deadline, and ones
// that allocate past the memory bound, are reported as the bound they
// passed, by a real renderer. The allocations get a deadline they cannot
// reach first on a loaded machine, so that the memory bound is what stops
// them.
func TestRendererBounds(t *testing.T) {
	for _, c := range []struct {
		name, template string
		timeout        time.Duration
		want           string
	}{
		{"loop", "{{ range until 1000000 }}{{ range until 1000000 }}{{ end }}{{ end }}\n", 2 * time.Second,
			"rendering did not finish within 2s (a template that loops, recurses or repeats without end?)"},
		{"one allocation", `{{ repeat 1000000000 "x" }}` + "\n", time.Minute,
			"rendering needed more than 512 MiB of memory (a template that loops, recurses or repeats without end?)"},
		{"allocation loop", "{{ $s := list }}{{ range until 100000 }}{{ $s = append $s (repeat 100000 \"x\") }}{{ end }}\n", time.Minute,
			"rendering needed more than 512 MiB of memory (a template that loops, recurses or repeats without end?)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := chart(t, c.template)
			_, err := charts.Render(dir, "hostile", charts.Options{Timeout: c.timeout})
			if err == nil || err.Error() != "hostile: "+c.want {
				t.Errorf("error %v, want hostile: %s", err, c.want)
			}
		})
	}
}

// TestRendererOutputBound: a chart whose output passes MaxResponse is one
// error naming it and the bound, said by the renderer before it sends it.
func TestRendererOutputBound(t *testing.T) {
	// Each file is within the bound of one manifest file, the two are not.
	big := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n" +
		`{{- range $i := until 20 }}` + "\n  k{{ $i }}: {{ repeat 1000000 \"x\" | quote }}\n{{- end }}\n"
	dir := chart(t, big)
	writeFiles(t, dir, map[string]string{"templates/cm2.yaml": strings.Replace(big, "name: big", "name: big2", 1)})
	_, err := charts.Render(dir, "big", charts.Options{})
	if err == nil || err.Error() != "big: rendering produced 38 MiB of manifests, more than the 32 MiB modellint reads of one chart or overlay" {
		t.Errorf("error %v", err)
	}
}

// TestRendererEnvironment: the renderer starts with nothing of modellint's
// environment (no credential, proxy, PATH or git setting), with HOME and
// its working directory an empty directory.
func TestRendererEnvironment(t *testing.T) {
	rawRenderer(t)
	t.Setenv("AWS_SECRET_ACCESS_KEY", "hunter2")
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	t.Setenv("GIT_DIR", t.TempDir())
	var logged bytes.Buffer
	flags := log.Flags()
	log.SetOutput(&logged)
	log.SetFlags(0)
	defer func() { log.SetOutput(os.Stderr); log.SetFlags(flags) }()
	if _, err := charts.Render(t.TempDir(), "environment", charts.Options{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(logged.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("environment and working directory:\n%s", logged.String())
	}
	env, cwd := lines[:4], lines[4]
	home := strings.TrimPrefix(env[1], "HOME=")
	if env[0] != "PATH=" || !strings.HasPrefix(env[1], "HOME="+os.TempDir()) || env[2] != "TMPDIR="+home || env[3] != "GOMAXPROCS=1" {
		t.Errorf("environment %q, want PATH empty, HOME and TMPDIR an empty directory, GOMAXPROCS=1 and nothing else", env)
	}
	if cwd != "cwd "+home+" <nil>, 0 entries" {
		t.Errorf("working directory: %s, want the empty %s", cwd, home)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("the renderer's directory %s is left behind: %v", home, err)
	}
}

// TestRendererOffline builds overlays whose resources are remote, in a
// renderer that does not refuse them before the build as modellint does:
// kustomize fetches the http one and clones the git one itself, and the
// renderer's process lets neither happen. No request reaches a loopback
// server, and a git on modellint's PATH never runs.
func TestRendererOffline(t *testing.T) {
	rawRenderer(t)
	var requests atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.Write([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fetched}\n"))
	}))
	defer server.Close()
	bin := t.TempDir()
	ran := filepath.Join(t.TempDir(), "git-ran")
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho \"$@\" > "+ran+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"http/kustomization.yaml":      "resources: [" + server.URL + "/cm.yaml]\n",
		"generator/kustomization.yaml": "configMapGenerator:\n- name: fetched\n  files: [" + server.URL + "/settings]\n",
		"git/kustomization.yaml":       "resources: [github.com/modellint/serving-bases//tfserving?ref=v1.2.0]\n",
	})
	renderer := charts.NewRenderer(3)
	defer renderer.Close()
	for _, overlay := range []string{"http", "generator", "git"} {
		_, err := renderer.BuildOverlay(filepath.Join(dir, overlay), overlay, "", "", 0)
		t.Logf("%s: %v", overlay, err)
		if err == nil || strings.Contains(err.Error(), "crashed") {
			t.Errorf("%s: error %v, want kustomize's", overlay, err)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the loopback server got %d requests", n)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("git ran in the renderer")
	}
	_, err := renderer.Render(t.TempDir(), "lookup modellint.example", charts.Options{})
	if err == nil || !strings.Contains(err.Error(), "modellint-helm works offline and opens no network connection") {
		t.Errorf("a name lookup: %v, want it refused", err)
	}
}
