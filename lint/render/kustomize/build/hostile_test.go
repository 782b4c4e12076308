package build

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/modellint/modellint/lint/render/kustomize"
)

// secret is what a runner's host file holds; no build may print it.
const secret = "https://ci-bot:ghp_S3CR3T@github.com"

// hostile is a repository under test and what watches it: a loopback
// server standing in for the network, which must see no request, and a
// git on PATH, which must never run.
type hostile struct {
	repo, host, marker string
	requests           *atomic.Int64
	url                string
}

// newHostile makes a repository (repo, holding .git) beside a runner's
// home (host, holding .git-credentials), a base and a resource the overlay
// may use, a loopback server and a fake git.
func newHostile(t *testing.T) *hostile {
	t.Helper()
	dir := t.TempDir()
	h := &hostile{repo: filepath.Join(dir, "repo"), host: filepath.Join(dir, "home"), marker: filepath.Join(dir, "git-ran"),
		requests: &atomic.Int64{}}
	write(t, filepath.Join(h.host, ".git-credentials"), secret+"\n")
	write(t, filepath.Join(h.repo, ".git", "config"), "[http]\n\textraheader = AUTHORIZATION: basic "+secret+"\n")
	write(t, filepath.Join(h.repo, "overlay", "pod.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n")
	write(t, filepath.Join(h.repo, "shared", "pod.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: shared}\n")
	if err := os.Symlink(filepath.Join(h.host, ".git-credentials"), filepath.Join(h.repo, "overlay", "creds")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(h.host, filepath.Join(h.repo, "overlay", "home")); err != nil {
		t.Fatal(err)
	}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h.requests.Add(1)
		w.Write([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fetched}\ndata: {token: " + secret + "}\n"))
	}))
	t.Cleanup(server.Close)
	h.url = server.URL
	bin := filepath.Join(dir, "bin")
	write(t, filepath.Join(bin, "git"), "#!/bin/sh\necho ran > "+h.marker+"\nexit 1\n")
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return h
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// untouched fails the test if the network was asked or git ran.
func (h *hostile) untouched(t *testing.T) {
	t.Helper()
	if n := h.requests.Load(); n != 0 {
		t.Errorf("the server got %d requests, want none", n)
	}
	if _, err := os.Stat(h.marker); err == nil {
		t.Error("git ran")
	}
}

// TestHostileFields names, in every field of a kustomization that names a
// file or directory, a URL, a git repository, an absolute path or a path
// out of the repository: each is one error naming the kustomization, the
// field and the entry, before kustomize reads, fetches or clones anything.
func TestHostileFields(t *testing.T) {
	h := newHostile(t)
	url := h.url + "/latest/meta-data/iam"
	const (
		remote   = "is remote: modellint builds overlays offline"
		absolute = "is an absolute path"
		outside  = "leads outside "
		gitDir   = "leads into a .git directory"
		helmRun  = "inflates a chart with the helm binary"
		notBuilt = "is not one of kustomize's builtin plugins"
	)
	cases := []struct{ name, kustomization, field, want string }{
		{"resources url", "resources: [" + url + "]", "resources[0]", remote},
		{"resources github", "resources: ['github.com/org/repo//base?ref=v1']", "resources[0]", remote},
		{"resources git::", "resources: ['git::https://example.com/org/repo.git//base']", "resources[0]", remote},
		{"resources scp", "resources: ['git@example.com:org/repo.git']", "resources[0]", remote},
		{"resources ssh", "resources: ['ssh://git@example.com/org/repo']", "resources[0]", remote},
		{"resources file url", "resources: ['file:///tmp/repo']", "resources[0]", remote},
		{"resources absolute", "resources: [" + h.host + "]", "resources[0]", absolute},
		{"resources outside", "resources: [../../home]", "resources[0]", outside},
		{"resources symlink", "resources: [home]", "resources[0]", outside},
		{"bases url", "bases: [" + url + "]", "bases[0]", remote},
		{"components github", "components: [github.com/org/repo/components/gpu]", "components[0]", remote},
		{"crds url", "crds: [" + url + "]", "crds[0]", remote},
		{"configurations url", "configurations: [" + url + "]", "configurations[0]", remote},
		{"openapi url", "openapi: {path: " + url + "}", "openapi.path", remote},
		{"patchesStrategicMerge url", "patchesStrategicMerge: [" + url + "]", "patchesStrategicMerge[0]", remote},
		{"patches url", "patches: [{path: " + url + "}]", "patches[0].path", remote},
		{"patches outside", "patches: [{path: ../../home/.git-credentials}]", "patches[0].path", outside},
		{"patchesJson6902 url", "patchesJson6902: [{path: " + url + ", target: {kind: Pod, name: p}}]", "patchesJson6902[0].path", remote},
		{"replacements url", "replacements: [{path: " + url + "}]", "replacements[0].path", remote},
		{"configMapGenerator files url", "configMapGenerator: [{name: c, files: [" + url + "]}]", "configMapGenerator[0].files[0]", remote},
		{"configMapGenerator files key=url", "configMapGenerator: [{name: c, files: ['k=" + url + "']}]", "configMapGenerator[0].files[0]", remote},
		{"configMapGenerator files absolute", "configMapGenerator: [{name: c, files: [/etc/passwd]}]", "configMapGenerator[0].files[0]", absolute},
		{"configMapGenerator files outside", "configMapGenerator: [{name: c, files: [../../home/.git-credentials]}]", "configMapGenerator[0].files[0]", outside},
		{"configMapGenerator files symlink", "configMapGenerator: [{name: c, files: [creds]}]", "configMapGenerator[0].files[0]", outside},
		{"configMapGenerator files .git", "configMapGenerator: [{name: c, files: [../.git/config]}]", "configMapGenerator[0].files[0]", gitDir},
		{"configMapGenerator envs url", "configMapGenerator: [{name: c, envs: [" + url + "]}]", "configMapGenerator[0].envs[0]", remote},
		{"configMapGenerator env outside", "configMapGenerator: [{name: c, env: ../../home/.git-credentials}]", "configMapGenerator[0].env", outside},
		{"secretGenerator files url", "secretGenerator: [{name: s, files: [" + url + "]}]", "secretGenerator[0].files[0]", remote},
		{"secretGenerator envs symlink", "secretGenerator: [{name: s, envs: [creds]}]", "secretGenerator[0].envs[0]", outside},
		{"generators url", "generators: [" + url + "]", "generators[0]", remote},
		{"generators git", "generators: ['github.com/org/repo//gen?ref=main']", "generators[0]", remote},
		{"transformers url", "transformers: [" + url + "]", "transformers[0]", remote},
		{"transformers git", "transformers: ['git::https://example.com/org/repo.git//t']", "transformers[0]", remote},
		{"validators git", "validators: ['git@github.com:org/repo.git//v']", "validators[0]", remote},
		{"transformers inline PatchTransformer", "transformers:\n- |\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata: {name: t}\n  path: " + url + "\n",
			"transformers[0].path", remote},
		{"transformers inline ReplacementTransformer", "transformers:\n- |\n  apiVersion: builtin\n  kind: ReplacementTransformer\n  metadata: {name: t}\n  replacements: [{path: ../../home/.git-credentials}]\n",
			"transformers[0].replacements[0].path", outside},
		{"generators inline ConfigMapGenerator", "generators:\n- |\n  apiVersion: builtin\n  kind: ConfigMapGenerator\n  metadata: {name: g}\n  files: [creds]\n",
			"generators[0].files[0]", outside},
		{"transformers inline ValueAddTransformer", "transformers:\n- |\n  apiVersion: builtin\n  kind: ValueAddTransformer\n  metadata: {name: t}\n  targetFilePath: " + url + "\n",
			"transformers[0].targetFilePath", remote},
		{"transformers inline exec plugin", "transformers:\n- |\n  apiVersion: example.com/v1\n  kind: Runner\n  metadata: {name: t, annotations: {config.kubernetes.io/function: 'exec: {path: /bin/sh}'}}\n",
			"transformers[0] plugin", notBuilt},
		{"transformers inline helm", "transformers:\n- |\n  apiVersion: builtin\n  kind: HelmChartInflationGenerator\n  metadata: {name: t}\n  chartName: x\n",
			"transformers[0]", helmRun},
		{"helmCharts", "helmCharts: [{name: x, repo: " + url + "}]", "helmCharts", helmRun},
		{"helmGlobals", "helmGlobals: {chartHome: ../../home}", "helmGlobals", helmRun},
		{"helmChartInflationGenerator", "helmChartInflationGenerator: [{chartName: x, chartRepoUrl: " + url + "}]", "helmChartInflationGenerator", helmRun},
		{"case-folded key", "Resources: [" + url + "]", "resources[0]", remote},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			overlay := filepath.Join(h.repo, "overlay")
			write(t, filepath.Join(overlay, "kustomization.yaml"), c.kustomization+"\n")
			_, err := Overlay(overlay, "overlay", "", "")
			if err == nil {
				t.Fatal("built without error")
			}
			got := err.Error()
			if !strings.HasPrefix(got, "overlay/kustomization.yaml") || !strings.Contains(got, " "+c.field+" ") ||
				!strings.Contains(got, c.want) || strings.Contains(got, "\n") || strings.Contains(got, "S3CR3T") {
				t.Errorf("error:\n  %s\nwant one line naming overlay/kustomization.yaml and %s, saying %q", got, c.field, c.want)
			}
			h.untouched(t)
		})
	}
}

// TestHostileNested: the check reaches every kustomization the overlay
// builds on, and the plugin configs a transformers directory holds.
func TestHostileNested(t *testing.T) {
	h := newHostile(t)
	overlay := filepath.Join(h.repo, "overlay")
	write(t, filepath.Join(overlay, "kustomization.yaml"), "resources: [../base]\ncomponents: [../component]\ntransformers: [../transformers]\n")
	write(t, filepath.Join(h.repo, "transformers", "kustomization.yaml"), "resources: [replace.yaml]\n")
	replace := "apiVersion: builtin\nkind: ReplacementTransformer\nmetadata: {name: r}\nreplacements: [{path: %s}]\n"
	cases := []struct{ name, base, component, transformer, want string }{
		{"base", "configMapGenerator: [{name: c, files: [../../home/.git-credentials]}]", "kind: Component", "r.yaml",
			`base/kustomization.yaml:1: configMapGenerator[0].files[0] entry "../../home/.git-credentials" leads outside`},
		{"component", "resources: [../shared/pod.yaml]", "kind: Component\nsecretGenerator: [{name: s, envs: [" + h.url + "]}]", "r.yaml",
			`component/kustomization.yaml:2: secretGenerator[0].envs[0] entry "` + h.url + `" is remote`},
		{"transformers", "resources: [../shared/pod.yaml]", "kind: Component", h.url + "/r",
			`transformers/replace.yaml: replacements[0].path entry "` + h.url + `/r" is remote`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			write(t, filepath.Join(h.repo, "base", "kustomization.yaml"), c.base+"\n")
			write(t, filepath.Join(h.repo, "component", "kustomization.yaml"), c.component+"\n")
			write(t, filepath.Join(h.repo, "transformers", "replace.yaml"), fmt.Sprintf(replace, c.transformer))
			_, err := Overlay(overlay, "overlay", "", "")
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error %v, want one starting %s", err, c.want)
			}
			h.untouched(t)
		})
	}
}

// TestConfinedBuild builds hostile overlays past the check, on the file
// system and network kustomize is given: a field the check would miss
// still reads no host file and fetches nothing.
func TestConfinedBuild(t *testing.T) {
	h := newHostile(t)
	for name, kustomization := range map[string]string{
		"host file by ..":     "configMapGenerator: [{name: c, files: [../../home/.git-credentials]}]",
		"host file by link":   "configMapGenerator: [{name: c, files: [creds]}]",
		"host dir by link":    "configMapGenerator: [{name: c, files: [home]}]",
		"checkout's token":    "configMapGenerator: [{name: c, files: [../.git/config]}]",
		"absolute host file":  "configMapGenerator: [{name: c, envs: [" + filepath.Join(h.host, ".git-credentials") + "]}]",
		"url in replacements": "resources: [pod.yaml]\nreplacements: [{path: " + h.url + "/latest}]",
		"url in crds":         "resources: [pod.yaml]\ncrds: [" + h.url + "/crd]",
	} {
		t.Run(name, func(t *testing.T) {
			overlay := filepath.Join(h.repo, "overlay")
			write(t, filepath.Join(overlay, "kustomization.yaml"), kustomization+"\n")
			read, err := kustomize.ReadOverlay(overlay, "overlay", h.repo)
			if err != nil {
				t.Fatal(err)
			}
			options := krusty.MakeDefaultOptions()
			options.LoadRestrictions = types.LoadRestrictionsNone
			offline()
			_, err = run(read, options)
			if err == nil {
				t.Fatal("built without error")
			}
			if strings.Contains(err.Error(), "S3CR3T") {
				t.Errorf("the error prints the host's secret: %v", err)
			}
			h.untouched(t)
		})
	}
}

// TestLoadRestrictorNone: with the flag, a kustomization reads outside its
// own dir, but never outside the repository.
func TestLoadRestrictorNone(t *testing.T) {
	h := newHostile(t)
	overlay := filepath.Join(h.repo, "overlay")
	write(t, filepath.Join(overlay, "kustomization.yaml"), "resources: [../shared/pod.yaml]\n")
	if _, err := Overlay(overlay, "overlay", "", ""); err == nil || !strings.Contains(err.Error(), "--kustomize-load-restrictor none") {
		t.Errorf("rootOnly: error %v, want the restrictor's", err)
	}
	files, err := Overlay(overlay, "overlay", "", "none")
	if err != nil || len(files) == 0 || len(files[0].File.Objects) != 1 {
		t.Fatalf("none: %d files, error %v; want the shared pod", len(files), err)
	}
	write(t, filepath.Join(overlay, "kustomization.yaml"), "resources: [../../home/.git-credentials]\n")
	if _, err := Overlay(overlay, "overlay", "", "none"); err == nil || !strings.Contains(err.Error(), "leads outside "+h.repo) {
		t.Errorf("none, outside the repository: error %v, want it refused", err)
	}
	h.untouched(t)
}

// TestRemoteForms: every entry kustomize's own parsers take for remote,
// package kustomize's recognition takes for remote too.
func TestRemoteForms(t *testing.T) {
	for _, entry := range []string{"github.com/org/repo", "GitHub.com/org/repo//x", "github.com:org/repo", "git::https://h/o/r.git",
		"GIT::ssh://h/o/r", "git@h:o/r.git", "u-1@host.example:o/r", "https://h/o/r", "HTTP://h/x.yaml", "ssh://h/o/r", "file:///tmp/r",
		"https://dev.azure.com/org/project/_git/repo/path", "http:x"} {
		if !remote(entry) || (!kustomize.IsRemote(entry) && !strings.HasPrefix(entry, "http:x")) {
			t.Errorf("%s: remote %v, kustomize.IsRemote %v; want both true", entry, remote(entry), kustomize.IsRemote(entry))
		}
	}
	for _, entry := range []string{"../base", "deployment.yaml", ".hidden/base", "app.v2/base", "k=file.txt"} {
		if remote(entry) {
			t.Errorf("%s: taken for remote", entry)
		}
	}
}

// TestBuildOptions: plugins are builtins only and helm is off, whatever
// kustomize's defaults become.
func TestBuildOptions(t *testing.T) {
	h := newHostile(t)
	overlay := filepath.Join(h.repo, "overlay")
	write(t, filepath.Join(overlay, "kustomization.yaml"), "resources: [pod.yaml]\n")
	if _, err := Overlay(overlay, "overlay", "", ""); err != nil {
		t.Fatal(err)
	}
	if transport := http.DefaultTransport; transport != (refusing{}) {
		t.Errorf("the default transport is %T after a build, want refusing", transport)
	}
}
