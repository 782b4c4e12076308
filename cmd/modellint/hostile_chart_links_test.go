package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileChartLinks lints a chart from a pull request that links a
// runner's credentials file into files/ and prints it base64-encoded, past
// secret redaction: the run stops with one line naming the link, and the
// file's content is in no output, in any format.
func TestHostileChartLinks(t *testing.T) {
	const token = "planted-docker-auth-8e1d0b"
	home := t.TempDir()
	credentials := filepath.Join(home, ".docker", "config.json")
	os.MkdirAll(filepath.Dir(credentials), 0o755)
	os.WriteFile(credentials, []byte(`{"auths":{"registry.example":{"auth":"`+token+`"}}}`+"\n"), 0o600)

	chart := filepath.Join(t.TempDir(), "chart")
	os.MkdirAll(filepath.Join(chart, "templates"), 0o755)
	os.MkdirAll(filepath.Join(chart, "files"), 0o755)
	os.WriteFile(filepath.Join(chart, "Chart.yaml"), []byte("apiVersion: v2\nname: leak\nversion: 0.1.0\n"), 0o644)
	os.WriteFile(filepath.Join(chart, "templates", "configmap.yaml"), []byte(
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: leak\ndata:\n  config: {{ .Files.Get \"files/config.json\" | b64enc | quote }}\n"), 0o644)
	if err := os.Symlink(credentials, filepath.Join(chart, "files", "config.json")); err != nil {
		t.Fatal(err)
	}
	encoded := base64.StdEncoding.EncodeToString([]byte(token))[:24]
	for _, format := range []string{"table", "json", "sarif"} {
		output := runHostile(t, []string{"--no-color", "--format", format, chart}, exitError)
		want := filepath.Join(chart, "files", "config.json") + ": symbolic link to "
		if !strings.Contains(output, want) || !strings.Contains(output, "outside the chart") {
			t.Errorf("--format %s: output %q does not say the link %s leaves the chart", format, truncate(output, 2000), want)
		}
		if strings.Contains(output, token) || strings.Contains(output, encoded) {
			t.Errorf("--format %s: the credentials file is in the output: %q", format, truncate(output, 2000))
		}
	}
}
