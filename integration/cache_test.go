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
// computes the same cache key, so nothing new is saved.
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
	cacheStep := func(mode string) map[string]string {
		t.Helper()
		output := filepath.Join(t.TempDir(), "output")
		got := runCommand(t, t.TempDir(), append([]string{"GITHUB_OUTPUT=" + output}, cacheEnv...), "bash", filepath.Join(repoRoot, "scripts", "action-cache.sh"), mode)
		if got.code != 0 {
			t.Fatalf("action-cache.sh %s: exit %d\n%s%s", mode, got.code, got.stdout, got.stderr)
		}
		return readGitHubOutput(t, output)
	}
	dir := cacheStep("dir")["dir"]
	if want := filepath.Join(home, "cache", "modellint"); dir != want {
		t.Fatalf("cache dir %q, want %q (modellint's default)", dir, want)
	}
	if key := cacheStep("key")["key"]; key != "" {
		t.Errorf("key %q before any image was read, want none (nothing to save)", key)
	}
	lint := func() int {
		t.Helper()
		got := runActionLint(t, manifest, append([]string{"MODELLINT_ARGS=--no-color --fail-on none"}, cacheEnv...)...)
		if got.code != 0 {
			t.Fatalf("exit %d:\n%s%s", got.code, got.stdout, got.stderr)
		}
		return counter.take()
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
}
