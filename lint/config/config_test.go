package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeConfig(t *testing.T, dir, content string) string {
	t.Helper()
	path := filepath.Join(dir, ".modellint.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, `failOn: warning
rules:
  MDL208: {severity: error}
external: [Secret/hf-token, ConfigMap/serving/settings]
ignore:
  - {rule: MDL205, object: "Deployment/*", reason: capped by LimitRange, expires: "2027-01-01"}
cluster: {gpuNodesTainted: true}
probes: {minStartupSeconds: 90}
`)
	config, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if config.FailOn != "warning" || config.Rules["MDL208"].Severity != "error" || config.MinStartupSeconds() != 90 {
		t.Errorf("config = %+v", config)
	}
	if !config.IsExternal("Secret", "any", "hf-token") || !config.IsExternal("ConfigMap", "serving", "settings") ||
		config.IsExternal("ConfigMap", "other", "settings") || config.IsExternal("Secret", "", "other") {
		t.Error("IsExternal does not follow Kind/name and Kind/namespace/name")
	}
	if config.GPUResourceName() != "nvidia.com/gpu" || !config.Cluster.GPUNodesTainted {
		t.Errorf("cluster = %+v", config.Cluster)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := map[string]string{
		"unknown key":         "failon: warning\n",
		"unknown nested key":  "cluster: {gpuNodesTainted: true, driver: 535}\n",
		"ignore without rule": "ignore: [{object: Deployment/x, reason: r}]\n",
		"not yaml":            "rules: [\n",
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := writeConfig(t, t.TempDir(), content)
			_, err := Load(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), path+": ") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q should be one line starting with the file", err)
			}
		})
	}
}

func TestFindWalksUp(t *testing.T) {
	root := t.TempDir()
	want := writeConfig(t, root, "failOn: none\n")
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(deep, "x.yaml")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, start := range []string{deep, file} {
		got, err := Find(start)
		if err != nil || got != want {
			t.Errorf("Find(%s) = %q, %v; want %q", start, got, err, want)
		}
	}
}

// FuzzLoad checks that no config file makes the loader panic.
func FuzzLoad(f *testing.F) {
	f.Add("failOn: warning\nrules: {MDL208: {severity: error}}\nignore: [{rule: MDL205, reason: x}]\n")
	f.Add("external: [Secret/a]\ncluster: {gpuNodesTainted: true}\n")
	f.Add("a: &a [*a]\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content string) {
		path := filepath.Join(dir, ".modellint.yaml")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if config, err := Load(path); err == nil {
			config.IsExternal("Secret", "ns", "name")
			config.MinStartupSeconds()
		}
	})
}

func TestLoadModels(t *testing.T) {
	path := writeConfig(t, t.TempDir(), "models:\n  - {path: ./models/resnet/, mountPath: /models/resnet}\nestimates: {memoryFactor: 2}\n")
	config, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if config.Models[0] != (ModelMapping{Path: "models/resnet", MountPath: "/models/resnet"}) {
		t.Errorf("models = %+v", config.Models)
	}
	estimates := config.Estimates()
	if estimates.MemoryFactor != 2 || estimates.BaselineMiB != DefaultBaselineMiB || estimates.LoadMiBPerSecond != DefaultLoadMiBPerSecond {
		t.Errorf("estimates = %+v", estimates)
	}
	bad := writeConfig(t, t.TempDir(), "models:\n  - {path: models/resnet, mountPath: models/resnet}\n")
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "models[0]") {
		t.Errorf("relative mountPath accepted: %v", err)
	}
}

func TestParseModelMapping(t *testing.T) {
	mapping, err := ParseModelMapping("./models/resnet/:/models/resnet/")
	if err != nil || mapping != (ModelMapping{Path: "models/resnet", MountPath: "/models/resnet"}) {
		t.Errorf("got %+v, %v", mapping, err)
	}
	for _, bad := range []string{"", ":/models", "models:relative"} {
		if _, err := ParseModelMapping(bad); err == nil {
			t.Errorf("ParseModelMapping(%q) accepted", bad)
		}
	}
}
