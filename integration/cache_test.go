package integration

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/modellint/modellint/lint/image/imagetest"
)

// blobCounter counts the layer downloads a registry served.
type blobCounter struct {
	mu     sync.Mutex
	layers map[string]bool // digests of the image's layers
	gets   int
}

func (c *blobCounter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, digest, ok := strings.Cut(r.URL.Path, "/blobs/"); ok && r.Method == http.MethodGet {
			c.mu.Lock()
			if c.layers[digest] {
				c.gets++
			}
			c.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

func (c *blobCounter) take() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	gets := c.gets
	c.gets = 0
	return gets
}

// TestActionCacheWarm runs the action's cache and lint scripts twice, as
// two jobs would with actions/cache between them: the second run reads
// every layer from the cache the first one left, downloads none, and
// computes the same cache key, so nothing new is saved. Then with the
// args' own --cache-dir, relative to the working directory, the cache
// steps name and key the directory modellint filled, and with --no-cache
// they name none and key nothing.
func TestActionCacheWarm(t *testing.T) {
	skipUnlessLinux(t)
	counter := &blobCounter{layers: map[string]bool{}}
	server := httptest.NewServer(counter.wrap(registry.New(registry.Logger(log.New(io.Discard, "", 0)))))
	t.Cleanup(server.Close)
	reference := strings.TrimPrefix(server.URL, "http://") + "/serving:1.0"
	built, err := imagetest.Build(&imagetest.ImageSpec{
		Ref:    reference,
		Config: imagetest.ConfigSpec{Entrypoint: []string{"/usr/bin/server"}},
		Layers: []imagetest.LayerSpec{
			{Files: []imagetest.FileSpec{{Path: "etc/os-release", Content: "ID=debian\n"}, {Path: "usr/lib/libbase.so", Size: 1 << 20}}},
			{Files: []imagetest.FileSpec{{Path: "usr/bin/server", Mode: "0755", Content: "#!/bin/sh\nexec sleep infinity\n"}}},
		},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := imagetest.Push(reference, built); err != nil {
		t.Fatal(err)
	}
	layers, err := built.Images[built.Order[0]].Layers()
	if err != nil {
		t.Fatal(err)
	}
	for _, layer := range layers {
		digest, err := layer.Digest()
		if err != nil {
			t.Fatal(err)
		}
		counter.layers[digest.String()] = true
	}
	counter.take() // the push

	manifest := filepath.Join(t.TempDir(), "deployment.yaml")
	deployment := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: server
spec:
  selector:
    matchLabels: {app: server}
  template:
    metadata:
      labels: {app: server}
    spec:
      containers:
        - name: server
          image: ` + reference + `
`
	if err := os.WriteFile(manifest, []byte(deployment), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cacheEnv := []string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "MODELLINT_CACHE_PREFIX=modellint-Linux-"}
	// cacheStepIn runs a cache step in the lint step's working directory,
	// with its args.
	cacheStepIn := func(workDir, args, mode string) map[string]string {
		t.Helper()
		output := filepath.Join(t.TempDir(), "output")
		env := append([]string{"GITHUB_OUTPUT=" + output, "MODELLINT_ARGS=" + args}, cacheEnv...)
		got := runCommand(t, workDir, env, "bash", filepath.Join(repoRoot, "scripts", "action-cache.sh"), mode)
		if got.code != 0 {
			t.Fatalf("action-cache.sh %s: exit %d\n%s%s", mode, got.code, got.stdout, got.stderr)
		}
		return readGitHubOutput(t, output)
	}
	cacheStep := func(mode string) map[string]string {
		t.Helper()
		return cacheStepIn(t.TempDir(), "--no-color --fail-on none", mode)
	}
	dir := cacheStep("dir")["dir"]
	if want := filepath.Join(home, "cache", "modellint"); dir != want {
		t.Fatalf("cache dir %q, want %q (modellint's default)", dir, want)
	}
	if key := cacheStep("key")["key"]; key != "" {
		t.Errorf("key %q before any image was read, want none (nothing to save)", key)
	}
	lintWith := func(args string) (downloads int, workDir string) {
		t.Helper()
		got := runActionLint(t, manifest, append([]string{"MODELLINT_ARGS=" + args}, cacheEnv...)...)
		if got.code != 0 {
			t.Fatalf("exit %d:\n%s%s", got.code, got.stdout, got.stderr)
		}
		return counter.take(), got.dir
	}
	lint := func() int {
		t.Helper()
		downloads, _ := lintWith("--no-color --fail-on none")
		return downloads
	}

	if cold := lint(); cold != len(layers) {
		t.Fatalf("the cold run downloaded %d layers, want %d", cold, len(layers))
	}
	images, err := os.ReadFile(filepath.Join(dir, "images.txt"))
	if err != nil {
		t.Fatalf("the run listed no images in the cache: %v", err)
	}
	digest, err := built.Images[built.Order[0]].Digest()
	if err != nil {
		t.Fatal(err)
	}
	if want := digest.String() + " " + reference + " linux/amd64\n"; string(images) != want {
		t.Errorf("images.txt:\n%s\nwant:\n%s", images, want)
	}
	key := cacheStep("key")["key"]
	if !regexp.MustCompile(`^modellint-Linux-[0-9a-f]{64}$`).MatchString(key) {
		t.Fatalf("cache key %q", key)
	}

	// The next job: actions/cache restored the directory the first left.
	if warm := lint(); warm != 0 {
		t.Errorf("the warm run downloaded %d layers, want 0: every layer is in the cache", warm)
	}
	if again := cacheStep("key")["key"]; again != key {
		t.Errorf("the warm run keyed the cache %q, the cold one %q: the same images must save nothing new", again, key)
	}

	// The args' --cache-dir, both spellings: a directory of its own, cold.
	for _, args := range []string{"--no-color --cache-dir layers --fail-on none", "--no-color --cache-dir=layers --fail-on none"} {
		downloads, workDir := lintWith(args)
		if downloads != len(layers) {
			t.Errorf("%s: the run downloaded %d layers, want %d into its own cache dir", args, downloads, len(layers))
		}
		if got, want := cacheStepIn(workDir, args, "dir")["dir"], filepath.Join(workDir, "layers"); got != want {
			t.Errorf("%s: the action caches %q, want %q, the dir modellint used", args, got, want)
		}
		if got := cacheStepIn(workDir, args, "key")["key"]; got != key {
			t.Errorf("%s: key %q, want %q, from the images.txt of the args' cache dir", args, got, key)
		}
	}
	// --no-cache: nothing to restore or save.
	args := "--no-color --no-cache --fail-on none"
	downloads, workDir := lintWith(args)
	if downloads != len(layers) {
		t.Errorf("--no-cache: the run downloaded %d layers, want %d", downloads, len(layers))
	}
	if got, ok := cacheStepIn(workDir, args, "dir")["dir"]; !ok || got != "" {
		t.Errorf("--no-cache: the action caches %q, want none (dir= empty)", got)
	}
	if got, ok := cacheStepIn(workDir, args, "key")["key"]; !ok || got != "" {
		t.Errorf("--no-cache: key %q, want none (nothing to save)", got)
	}
}

// TestActionCacheDir: the cache directory the action restores and saves is
// the one modellint uses with the action's args and environment: the last
// --cache-dir, in either spelling, relative to the working directory, else
// MODELLINT_CACHE_DIR; none with --no-cache, MODELLINT_NO_CACHE or an
// empty --cache-dir, whatever the order; the default otherwise, and for
// what follows --.
func TestActionCacheDir(t *testing.T) {
	skipUnlessLinux(t)
	home := t.TempDir()
	work := t.TempDir()
	defaultDir := filepath.Join(home, "cache", "modellint")
	for _, test := range []struct {
		args string
		env  []string
		want string
	}{
		{"", nil, defaultDir},
		{"--offline --disable MDL208", nil, defaultDir},
		{"--cache-dir /srv/layers", nil, "/srv/layers"},
		{"--cache-dir=/srv/layers --offline", nil, "/srv/layers"},
		{"--cache-dir relative/dir", nil, filepath.Join(work, "relative", "dir")},
		{"--cache-dir=one --cache-dir two", nil, filepath.Join(work, "two")},
		{"--no-cache", nil, ""},
		{"--no-cache=true --cache-dir=/srv/layers", nil, ""},
		{"--cache-dir /srv/layers --no-cache", nil, ""},
		{"--no-cache=false --cache-dir /srv/layers", nil, "/srv/layers"},
		{"--no-cache --no-cache=false", nil, ""},
		{"--cache-dir=", nil, ""},
		{"--cache-dir= --cache-dir /srv/layers", nil, ""},
		{"--offline -- --cache-dir /srv/layers", nil, defaultDir},
		{"", []string{"MODELLINT_CACHE_DIR=/srv/env"}, "/srv/env"},
		{"--cache-dir=/srv/layers", []string{"MODELLINT_CACHE_DIR=/srv/env"}, "/srv/layers"},
		{"", []string{"MODELLINT_NO_CACHE=1"}, ""},
		{"--no-cache=false", []string{"MODELLINT_NO_CACHE=1"}, defaultDir},
	} {
		output := filepath.Join(t.TempDir(), "output")
		env := append([]string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "GITHUB_OUTPUT=" + output,
			"MODELLINT_ARGS=" + test.args, "MODELLINT_CACHE_DIR=", "MODELLINT_NO_CACHE="}, test.env...)
		got := runCommand(t, work, env, "bash", filepath.Join(repoRoot, "scripts", "action-cache.sh"), "dir")
		if got.code != 0 {
			t.Fatalf("%q: exit %d\n%s%s", test.args, got.code, got.stdout, got.stderr)
		}
		if dir, ok := readGitHubOutput(t, output)["dir"]; !ok || dir != test.want {
			t.Errorf("args %q, env %q: dir %q, want %q", test.args, test.env, dir, test.want)
		}
	}
}

// TestActionCacheSteps: action.yml runs the cache steps as it runs the
// Lint step, with its args and in its working directory, so that they
// name the directory modellint uses; it restores only a directory named
// and saves under the key the key step gave.
func TestActionCacheSteps(t *testing.T) {
	steps := map[string]actionStep{}
	for _, step := range readAction(t).Runs.Steps {
		steps[step.ID] = step
	}
	lint := steps["lint"]
	for _, id := range []string{"cache-dir", "cache-key"} {
		step, ok := steps[id]
		if !ok {
			t.Fatalf("action.yml has no step %s", id)
		}
		if step.Env["MODELLINT_ARGS"] != lint.Env["MODELLINT_ARGS"] || step.WorkingDirectory != lint.WorkingDirectory {
			t.Errorf("step %s runs with args %q in %q, the Lint step with %q in %q", id, step.Env["MODELLINT_ARGS"],
				step.WorkingDirectory, lint.Env["MODELLINT_ARGS"], lint.WorkingDirectory)
		}
	}
	if restore := steps["cache-restore"]; !strings.Contains(restore.If, "steps.cache-dir.outputs.dir != ''") {
		t.Errorf("the restore step runs if %q: without a directory (--no-cache) there is nothing to restore", restore.If)
	}
}
