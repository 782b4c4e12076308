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

	"github.com/modellint/modellint/lint/image/imagetest"
	"github.com/modellint/modellint/lint/report"
)

// plantedToken is the secret every input below carries; no report may
// print it.
const plantedToken = "hf_PlantedTokenNeverPrinted0123456789"

// TestSecretsNeverReported plants one token in an image's env, in Secret
// data and stringData, and in the registry credentials of a registry that
// echoes what it receives, and greps every report format for it, at -v.
func TestSecretsNeverReported(t *testing.T) {
	dir := t.TempDir()
	built, err := imagetest.Build(&imagetest.ImageSpec{
		Ref: "registry.example.com/serving/app:1.0",
		Config: imagetest.ConfigSpec{
			Entrypoint: []string{"/bin/serve", "--port", "8500"},
			Env:        []string{"PATH=/usr/bin:/bin", "HF_TOKEN=" + plantedToken, "SERVE_OPTS=--auth " + plantedToken},
			Labels:     map[string]string{"org.example.api-key": plantedToken},
		},
		Layers: []imagetest.LayerSpec{{Files: []imagetest.FileSpec{{Path: "/bin/sh", ELF: "stub-amd64"}}}},
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
        - name: private
          image: `+host+`/serving/private:1.0
`)
	inputs := [][]string{
		{"--image", "registry.example.com/serving/app:1.0=" + tarball, "--offline=false", "--image-timeout", "5s", manifests},
		{tarball},
	}
	leaks := []string{plantedToken, encoded, auth}
	for _, format := range report.Formats {
		for _, input := range inputs {
			args := append([]string{"--no-color", "--no-cache", "-v", "-f", format}, input...)
			code, stdout, stderr := lintArgs(t, "", args...)
			if code == exitClean {
				t.Errorf("modellint %v: no findings, want some to print (stderr %s)", args, stderr)
			}
			for _, leak := range leaks {
				if strings.Contains(stdout, leak) || strings.Contains(stderr, leak) {
					t.Errorf("modellint %v printed the planted secret %q:\n%s\n%s", args, leak, stdout, stderr)
				}
			}
		}
	}
	// The test proves nothing unless the keychain's credentials were sent.
	if !sentCredentials.Load() {
		t.Error("the registry never received the planted credentials")
	}
}
