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
	if ignore := config.Ignore[0]; ignore.Expires != "2027-01-01" || ignore.Line != 6 {
		t.Errorf("ignore[0] = %+v, want it to expire on 2027-01-01 and be written on line 6", ignore)
	}
	if config.GPUResourceName() != "nvidia.com/gpu" || !config.Cluster.GPUNodesTainted {
		t.Errorf("cluster = %+v", config.Cluster)
	}
}

// TestLoadErrors: every problem of a config is its own line, at the key's
// file:line:column where there is one, in YAML's words, with the nearest
// known key for a typo.
func TestLoadErrors(t *testing.T) {
	cases := map[string]struct{ content, want string }{
		"unknown key":         {"failon: warning\n", `:1:1: unknown key "failon" (did you mean failOn?)`},
		"unknown nested key":  {"cluster: {gpuNodesTainted: true, driver: 535}\n", `:1:34: unknown key "driver" in cluster`},
		"ignore without rule": {"ignore: [{object: Deployment/x, reason: r}]\n", ":1:10: ignore[0]: rule is required"},
		"not yaml":            {"rules: [\n", ":1: did not find expected node content"},
		"string for a list":   {"# rules\ndisable: MDL208\n", ":2:1: disable: a string where the config expects a list of strings"},
		"failOn":              {"failOn: warnings\n", `:1:1: failOn: "warnings" is not a severity (want error, warning, info or none)`},
		// An expiry that does not parse would compare, as text, after
		// every date: the suppression would last for ever.
		"expires not a date": {"ignore:\n  - rule: MDL205\n    reason: r\n    expires: banana\n",
			`:4:5: ignore[0].expires: "banana" is not a date: write it as YYYY-MM-DD (e.g. 2027-06-30)`},
		"expires out of range": {"ignore:\n  - {rule: MDL205, reason: r, expires: 2027-06-30}\n  - {rule: MDL208, reason: r, expires: 2027-13-45}\n",
			`:3:31: ignore[1].expires: "2027-13-45" is not a date`},
		"expires day first":   {"ignore: [{rule: MDL205, reason: r, expires: 30/06/2027}]\n", `:1:36: ignore[0].expires: "30/06/2027" is not a date`},
		"expires no such day": {"ignore: [{rule: MDL205, reason: r, expires: \"2027-02-30\"}]\n", `:1:36: ignore[0].expires: "2027-02-30" is not a date`},
		"expires datetime": {"ignore: [{rule: MDL205, reason: r, expires: \"2027-06-30T00:00:00Z\"}]\n",
			`:1:36: ignore[0].expires: "2027-06-30T00:00:00Z" is not a date`},
		"every unknown key": {"failon: warning\nrules:\n  MDL208: {sevrity: error}\n",
			":1:1: unknown key \"failon\" (did you mean failOn?)\n{path}:3:12: unknown key \"sevrity\" in rules.MDL208 (did you mean severity?)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := writeConfig(t, t.TempDir(), c.content)
			_, err := Load(path)
			if err == nil {
				t.Fatal("no error")
			}
			want := path + strings.ReplaceAll(c.want, "{path}", path)
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error\n  %q\nwant it to start with\n  %q", err, want)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, path) {
					t.Errorf("line %q does not name the file", line)
				}
			}
		})
	}
}

// TestLoadRestrictorRefused: a repository's config may not widen what an
// overlay reads; the key names the flag that does.
func TestLoadRestrictorRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".modellint.yaml")
	if err := os.WriteFile(path, []byte("failOn: warning\nkustomize:\n  loadRestrictor: none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	want := path + ":3:3: kustomize.loadRestrictor: not read from the repository's config"
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "--kustomize-load-restrictor") {
		t.Errorf("error %v, want one starting %q and naming the flag", err, want)
	}
}
