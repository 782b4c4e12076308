package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const clusterNodes = "../../lint/cluster/testdata/nodes.yaml"

// A pod selecting a GPU the cluster has not got: MDL217 fires with the
// nodes of --cluster, or of the config's cluster.nodes (relative to the
// config file), and the flag wins.
func TestClusterNodes(t *testing.T) {
	dir := t.TempDir()
	nodes, err := filepath.Abs(clusterNodes)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "k8s/h100.yaml", `apiVersion: v1
kind: Pod
metadata: {name: h100}
spec:
  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}
  containers:
    - {name: app, image: "nginx:1.27"}
`)
	withConfig := filepath.Join(dir, "with-config")
	writeFile(t, withConfig, ".modellint.yaml", "cluster:\n  nodes: cluster/nodes.yaml\n")
	writeFile(t, withConfig, "cluster/nodes.yaml", readFile(t, nodes))
	writeFile(t, withConfig, "k8s/h100.yaml", readFile(t, filepath.Join(dir, "k8s/h100.yaml")))
	brokenConfig := filepath.Join(dir, "broken-config")
	writeFile(t, brokenConfig, ".modellint.yaml", "cluster:\n  nodes: gone.yaml\n")

	for _, c := range []struct {
		name       string
		args       []string
		want       int
		wantOutput string
	}{
		{"flag", []string{"--cluster", nodes, "-f", "json", filepath.Join(dir, "k8s")}, exitFindings, "MDL217"},
		{"config", []string{"-f", "json", filepath.Join(withConfig, "k8s")}, exitFindings, "MDL217"},
		{"missing file", []string{"--cluster", filepath.Join(dir, "nodes.yaml"), filepath.Join(dir, "k8s")}, exitError,
			"cluster nodes " + filepath.Join(dir, "nodes.yaml") + ": no such file or directory"},
		{"not nodes", []string{"--cluster", filepath.Join(dir, "k8s/h100.yaml"), filepath.Join(dir, "k8s")}, exitError,
			`kind "Pod" is not a Node`},
		{"config file missing", []string{filepath.Join(brokenConfig)}, exitError, filepath.Join(brokenConfig, "gone.yaml")},
		{"flag wins", []string{"--cluster", nodes, "-f", "json", brokenConfig}, exitClean, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := lintArgs(t, "", c.args...)
			if code != c.want {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.want, stderr)
			}
			if !strings.Contains(stdout+stderr, c.wantOutput) {
				t.Errorf("output does not contain %q:\n%s%s", c.wantOutput, stdout, stderr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("stderr is more than one line: %q", stderr)
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
