package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigNamesOnlyItsTree: the files a repository's config names (model
// dirs, image tarballs, the cluster's nodes) must lie under the config's
// directory, symlinks resolved; a path inside it loads.
func TestConfigNamesOnlyItsTree(t *testing.T) {
	root := t.TempDir()
	repo, host := filepath.Join(root, "repo"), filepath.Join(root, "host")
	for _, dir := range []string{filepath.Join(repo, "models", "resnet"), host} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(host, filepath.Join(repo, "hostlink")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo)
	cases := map[string]struct{ content, want string }{
		"absolute model path":  {"models: [{path: " + host + ", mountPath: /models}]\n", "models[0].path: "},
		"model path above":     {"models: [{path: ../host, mountPath: /models}]\n", "models[0].path: "},
		"image tarball above":  {"images: [{ref: app:1, source: ../host/app.tar}]\n", "images[0].source: "},
		"image through a link": {"images: [{ref: app:1, source: hostlink/app.tar}]\n", "images[0].source: "},
		"cluster nodes":        {"cluster: {nodes: /root/.kube/nodes.yaml}\n", "cluster.nodes: "},
		"inside":               {"models: [{path: models/resnet, mountPath: /models}]\nimages: [{ref: app:1, source: app.tar}, {ref: b:1, source: registry}, {ref: c:1, source: docker://r.example/c:1}]\ncluster: {nodes: nodes.yaml}\n", ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := writeConfig(t, repo, c.content)
			_, err := Load(path)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case c.want == "":
			case err == nil:
				t.Fatalf("no error, want %q", c.want)
			case !strings.HasPrefix(err.Error(), path+": "+c.want) || !strings.Contains(err.Error(), "outside the config file's directory"):
				t.Errorf("error %q, want %q", err, path+": "+c.want+"… outside the config file's directory")
			}
		})
	}
}
