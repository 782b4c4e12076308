package main

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modellint/modellint/internal/redact"
	"github.com/modellint/modellint/lint/image/imagetest"
)

// plantedToken is the secret every input below carries; no report may
// print it.
const plantedToken = "hf_PlantedTokenNeverPrinted0123456789"

// TestSecretsNeverReported plants one token in an image's env (where the
// start-path rules expand it into the paths and modules they name), in
// Secret data and stringData, in the registry credentials of a registry
// that echoes what it receives, in --helm-set values (rendered, and
// malformed) and in a probe path's query, and greps stdout, stderr and
// every report format for it and its base64, at -v.
func TestSecretsNeverReported(t *testing.T) {
	dir := t.TempDir()
	built, err := imagetest.Build(&imagetest.ImageSpec{
		Ref: "registry.example.com/serving/app:1.0",
		Config: imagetest.ConfigSpec{
			// The shell resolver expands HF_TOKEN into the path MDL301
			// reports missing.
			Entrypoint: []string{"/bin/sh", "-c", "exec /opt/$HF_TOKEN/serve --port 8500"},
			Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HF_TOKEN=" + plantedToken,
				"SERVE_OPTS=--auth " + plantedToken},
			Labels: map[string]string{"org.example.api-key": plantedToken},
		},
		Layers: []imagetest.LayerSpec{{Files: []imagetest.FileSpec{
			{Path: "/bin/sh", ELF: "stub-amd64"},
			{Path: "/usr/local/bin/python3.11", ELF: "stub-amd64"},
			{Path: "/usr/local/bin/python3", Symlink: "python3.11"},
			{Path: "/usr/local/lib/python3.11/os.py", Content: "import abc\n"},
		}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(dir, "app.tar")
	if err := imagetest.WriteTarball(tarball, built, ""); err != nil {
		t.Fatal(err)
	}

	// A registry that refuses every request and echoes the credentials it
	// was sent in its error, as a misconfigured proxy might.
	var sentCredentials atomic.Bool
	registry := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization"), plantedToken) ||
			strings.Contains(r.Header.Get("Authorization"), base64.StdEncoding.EncodeToString([]byte("modellint:"+plantedToken))) {
			sentCredentials.Store(true)
		}
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="modellint-test"`)
		}
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"errors":[{"code":"UNAUTHORIZED","message":"rejected %s"}]}`, r.Header.Get("Authorization"))
	}))
	defer registry.Close()
	host := strings.TrimPrefix(registry.URL, "http://")
	auth := base64.StdEncoding.EncodeToString([]byte("modellint:" + plantedToken))
	dockerConfig := writeFile(t, dir, "docker/config.json", fmt.Sprintf(`{"auths":{%q:{"auth":%q}}}`, host, auth))
	t.Setenv("DOCKER_CONFIG", filepath.Dir(dockerConfig))

	encoded := base64.StdEncoding.EncodeToString([]byte(plantedToken))
	manifests := writeFile(t, dir, "manifests/serving.yaml", `apiVersion: v1
kind: Secret
metadata: {name: hf-token}
data:
  token: `+encoded+`
stringData:
  token: `+plantedToken+`
  extra: "`+plantedToken+`"
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: serving}
spec:
  selector: {matchLabels: {app: serving}}
  template:
    metadata: {labels: {app: serving}}
    spec:
      containers:
        - name: app
          image: registry.example.com/serving/app:1.0
          env:
            - name: HF_TOKEN
              valueFrom: {secretKeyRef: {name: hf-token, key: missing}}
          envFrom:
            - secretRef: {name: hf-token}
        - name: module
          image: registry.example.com/serving/app:1.0
          command: ["/bin/sh", "-c", "exec python3 -m $HF_TOKEN"]
        - name: private
          image: `+host+`/serving/private:1.0
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.0
          args: ["--model", "/models/llama"]
          livenessProbe:
            httpGet: {path: "/health?token=`+plantedToken+`", port: 8000}
`)
	chart := filepath.Join(dir, "chart")
	writeFile(t, chart, "Chart.yaml", "apiVersion: v2\nname: serving\nversion: 1.0.0\n")
	writeFile(t, chart, "values.yaml", "token: none\n")
	writeFile(t, chart, "templates/serving.yaml", `apiVersion: v1
kind: Secret
metadata: {name: rendered}
data:
  token: {{ .Values.token | b64enc }}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: rendered}
spec:
  selector: {matchLabels: {app: rendered}}
  template:
    metadata: {labels: {app: rendered}}
    spec:
      containers:
        - name: app
          image: "registry.example.com/serving/app:{{ .Values.token }}"
          args: ["--token", {{ .Values.token | quote }}]
`)
	// Each run must print what shows the secret was there and hidden.
	inputs := []struct {
		args []string
		want string
	}{
		{[]string{"--image", "registry.example.com/serving/app:1.0=" + tarball, "--offline=false", "--image-timeout", "5s", manifests}, redact.Marker},
		{[]string{tarball}, redact.Marker},
		{[]string{"--helm-set", "token=" + plantedToken, chart}, redact.Marker},
		{[]string{"--helm-set", "token[=" + plantedToken, chart}, "--helm-set token[=…: error parsing index"},
	}
	leaks := []string{plantedToken, encoded, auth}
	for _, input := range inputs {
		args := append([]string{"--no-color", "--no-cache", "-v"}, input.args...)
		_, outputs := lintEveryFormat(t, args...)
		for name, output := range outputs {
			for _, leak := range leaks {
				if strings.Contains(output, leak) {
					t.Errorf("modellint %v printed the planted secret %q in %s:\n%s", args, leak, name, output)
				}
			}
		}
		if !strings.Contains(outputs["json"]+outputs["stderr"], input.want) {
			t.Errorf("modellint %v: neither the JSON report nor stderr says %q, so the secret never reached them:\n%s\n%s",
				args, input.want, outputs["json"], outputs["stderr"])
		}
	}
	// The test proves nothing unless the keychain's credentials were sent.
	if !sentCredentials.Load() {
		t.Error("the registry never received the planted credentials")
	}
}
