package main

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modellint/modellint/lint/image/imagetest"
	"github.com/modellint/modellint/lint/report"
)

// TestRegistryFaultsCLI lints a pod whose image is served by a real
// registry behind a proxy that breaks one kind of request, and checks how
// each fault ends: MDL310, a skip note naming the image, or a one-line
// error naming it. The keychain's credentials, and the token they buy,
// appear in no report format, on stderr or at -v.
func TestRegistryFaultsCLI(t *testing.T) {
	registry := imagetest.StartRegistry(t)
	built, err := imagetest.Build(&imagetest.ImageSpec{
		Ref:    "registry.example.com/serving/app:1.0",
		Config: imagetest.ConfigSpec{Entrypoint: []string{"/usr/bin/serve"}},
		Layers: []imagetest.LayerSpec{{Compression: "none", Files: []imagetest.FileSpec{
			{Path: "/usr/bin/serve", ELF: "stub-amd64"},
			{Path: "/models/weights.bin", Content: strings.Repeat("weights ", 16<<10)},
		}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := imagetest.Push(registry.Ref("serving/app:1.0"), built); err != nil {
		t.Fatalf("push to %s: %v", registry.Kind, err)
	}
	layers, _ := built.Images["linux/amd64"].Layers()
	layerDigest, _ := layers[0].Digest()
	layer := func(fault imagetest.Fault) func(*http.Request) imagetest.Fault {
		return func(r *http.Request) imagetest.Fault {
			if imagetest.IsBlob(r, layerDigest.String()) {
				return fault
			}
			return imagetest.Pass
		}
	}
	const username, password, token = "ci-bot", "keychain-password-5f3a", "issued-token-9c1e"
	cases := []struct {
		name       string
		rule       func(*http.Request) imagetest.Fault
		password   string // in DOCKER_CONFIG; "" for no token flow
		args       []string
		want       int
		wantStdout string // REF stands for the image reference
		wantStderr string
		// maxLayerRequests bounds the requests for the layer blob (0: any).
		maxLayerRequests int
	}{
		{name: "token flow", password: password, want: exitClean, wantStdout: "0 errors, 0 warnings, 1 info"},
		{name: "token flow, refused credentials", password: "wrong-password-77d0", want: exitClean,
			wantStdout: "image REF was not read: "},
		{name: "401 without a token flow", rule: func(*http.Request) imagetest.Fault { return imagetest.Unauthorized },
			want: exitClean, wantStdout: "image REF was not read: "},
		{name: "404 manifest", rule: func(r *http.Request) imagetest.Fault {
			if imagetest.IsManifest(r) {
				return imagetest.NotFound
			}
			return imagetest.Pass
		}, want: exitFindings, wantStdout: "MDL310"},
		{name: "500 on the layer", rule: layer(imagetest.ServerError), want: exitClean, wantStdout: "image REF was not read: "},
		{name: "reset mid-layer", rule: layer(imagetest.Reset), want: exitClean, wantStdout: "image REF was not read: "},
		{name: "stalled layer", rule: layer(imagetest.Stall), args: []string{"--timeout", "1s"}, want: exitClean,
			wantStdout: "image REF was not read: the registry reads did not finish within --timeout 1s"},
		{name: "digest mismatch", rule: layer(imagetest.Corrupt), want: exitError,
			wantStderr: "modellint: image REF: layer 1/1 "},
		{name: "layer redirects to itself", rule: layer(imagetest.RedirectSelf), want: exitClean,
			wantStdout: "image REF was not read: ", maxLayerRequests: 12},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			proxy := imagetest.StartFaultProxy(t, registry)
			proxy.Rule = c.rule
			dockerConfig := t.TempDir()
			if c.password != "" {
				proxy.Username, proxy.Password, proxy.Token = username, password, token
				dockerConfig = imagetest.WriteDockerConfig(t, proxy.Host, username, c.password)
			}
			t.Setenv("DOCKER_CONFIG", dockerConfig)
			ref := proxy.Ref("serving/app:1.0")
			dir := t.TempDir()
			manifest := writeFile(t, dir, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: app}\nspec:\n  containers:\n    - name: app\n      image: "+ref+"\n")
			args := []string{"-v", "--no-color", "--no-cache", "--image", ref + "=registry"}
			var reports []string
			for _, format := range report.Formats {
				if format == "table" {
					continue
				}
				file := filepath.Join(dir, "report."+format)
				reports = append(reports, file)
				args = append(args, "-f", format+"="+file)
			}
			args = append(append(append(args, "-f", "table"), c.args...), manifest)
			code, stdout, stderr := lintArgs(t, "", args...)
			if code != c.want {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, c.want, stdout, stderr)
			}
			if !strings.Contains(stdout, strings.ReplaceAll(c.wantStdout, "REF", ref)) ||
				!strings.Contains(stderr, strings.ReplaceAll(c.wantStderr, "REF", ref)) {
				t.Errorf("stdout %q\nstderr %q\nwant %q / %q", stdout, stderr, c.wantStdout, c.wantStderr)
			}
			if !strings.Contains(c.wantStdout, "was not read") && strings.Contains(stdout, "was not read") {
				t.Errorf("the image was not read:\n%s", stdout)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("stderr is more than one line: %q", stderr)
			}
			if requests := proxy.Requests(layerDigest.String()); c.maxLayerRequests > 0 && requests > c.maxLayerRequests {
				t.Errorf("the layer was requested %d times, want at most %d", requests, c.maxLayerRequests)
			}
			outputs := map[string]string{"stdout": stdout, "stderr": stderr}
			for _, file := range reports {
				data, _ := os.ReadFile(file) // absent after exit 2
				outputs[filepath.Base(file)] = string(data)
			}
			secrets := []string{password, "wrong-password-77d0", token,
				base64.StdEncoding.EncodeToString([]byte(username + ":" + password)),
				base64.StdEncoding.EncodeToString([]byte(username + ":wrong-password-77d0"))}
			for output, text := range outputs {
				for _, secret := range secrets {
					if strings.Contains(text, secret) {
						t.Errorf("%s prints the credential %q", output, secret)
					}
				}
			}
		})
	}
}

// TestMalformedDockerConfig: a docker config the keychain cannot read is a
// one-line error naming the file (exit 2) as soon as an image is to be read
// from a registry, not a skipped image in a passing run; no config (no
// DOCKER_CONFIG, or a directory without config.json) reads anonymously,
// and a run that reads no registry never opens the file.
func TestMalformedDockerConfig(t *testing.T) {
	var requests atomic.Int32
	registry := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("WWW-Authenticate", `Basic realm="modellint-test"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer registry.Close()
	ref := strings.TrimPrefix(registry.URL, "http://") + "/serving/app:1.0"
	manifest := writeFile(t, t.TempDir(), "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: app}\nspec:\n  containers:\n    - name: app\n      image: "+ref+"\n")
	configDir := func(content string) string {
		dir := t.TempDir()
		if content != "" {
			writeFile(t, dir, "config.json", content)
		}
		return dir
	}
	cases := []struct {
		name         string
		dockerConfig string // "" leaves DOCKER_CONFIG unset
		offline      bool
		wantError    bool
	}{
		{name: "invalid JSON", dockerConfig: configDir(`{"auths": {`), wantError: true},
		{name: "auth not base64", dockerConfig: configDir(`{"auths": {"registry.example.com": {"auth": "%%%"}}}`), wantError: true},
		{name: "valid", dockerConfig: configDir(`{"auths": {}}`)},
		{name: "no config.json", dockerConfig: configDir("")},
		{name: "no DOCKER_CONFIG"},
		{name: "invalid JSON, offline", dockerConfig: configDir(`{"auths": {`), offline: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir()) // no ~/.docker/config.json
			t.Setenv("DOCKER_CONFIG", c.dockerConfig)
			code, stdout, stderr := lintArgs(t, "", "--no-color", "--no-cache", "--offline="+strconv.FormatBool(c.offline), manifest)
			file := filepath.Join(c.dockerConfig, "config.json")
			switch {
			case c.wantError && (code != exitError || !strings.HasPrefix(stderr, "modellint: "+file+": the registry credentials cannot be read: ") ||
				strings.Count(stderr, "\n") != 1):
				t.Errorf("exit %d, stderr %q: want exit %d and one line naming %s", code, stderr, exitError, file)
			case !c.wantError && (code == exitError || stderr != ""):
				t.Errorf("exit %d, stderr %q: want the image read anonymously or not at all\n%s", code, stderr, stdout)
			}
		})
	}
	if requests.Load() == 0 {
		t.Error("the registry was never asked: the cases prove nothing")
	}
}
