package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHostileValues feeds a value of megabytes to each path that echoes a
// value in a message: a config value or key, a flag, a manifest quantity
// and image, a cluster's node kind, a kustomize entry. Every error line
// stays about 1 KiB, every report line about 2 KiB, and a value is quoted
// at most 80 bytes of it.
func TestHostileValues(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Config files are read up to 4 MiB, manifests up to 32 MiB, and one
	// argument or environment value is at most 128 KiB.
	configValue := strings.Repeat("x", 3<<20)
	value := strings.Repeat("x", 10<<20)
	argument := strings.Repeat("x", 100<<10)
	plain := write("plain.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
	pod := func(container string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n  containers:\n  - {name: c, " + container + "}\n"
	}
	cases := []struct {
		name string
		args []string
		env  string
		exit int
		// quoted says the value must appear quoted, at most 80 bytes of it.
		quoted bool
	}{
		{"config failOn", []string{"-c", write("failon.yaml", "failOn: \""+configValue+"\"\n"), plain}, "", exitError, true},
		{"config model.maxSize", []string{"-c", write("maxsize.yaml", "model: {maxSize: \"1"+strings.Repeat("0", 3<<20)+"\"}\n"), plain}, "", exitError, true},
		{"config rule severity", []string{"-c", write("severity.yaml", "rules: {MDL205: {severity: \""+configValue+"\"}}\n"), plain}, "", exitError, true},
		{"config rule name", []string{"-c", write("disable.yaml", "disable: [\""+configValue+"\"]\n"), plain}, "", exitError, true},
		{"--format", []string{"-f", argument, plain}, "", exitError, true},
		{"--color", []string{"--color", argument, plain}, "", exitError, true},
		{"--model", []string{"--model", ":" + argument, plain}, "", exitError, true},
		{"--enable", []string{"--enable", argument, plain}, "", exitError, true},
		{"MODELLINT_COLOR", []string{plain}, "MODELLINT_COLOR=" + argument, exitError, true},
		{"explain", []string{"explain", argument}, "", exitError, true},
		{"node kind", []string{"--cluster", write("nodes.yaml", "apiVersion: v1\nkind: \""+value+"\"\n"), plain}, "", exitError, true},
		{"manifest quantity", []string{"-f", "github", write("quantity.yaml", pod("image: example.com/serve:1, resources: {limits: {memory: \"1"+strings.Repeat("0", 10<<20)+"\"}}"))}, "", exitFindings, true},
		// 5 MB: the decoded manifest holds an image name several times over.
		{"manifest image", []string{"-f", "github", write("image.yaml", pod("image: \""+value[:5<<20]+"\""))}, "", exitFindings, false},
		{"kustomize entry", []string{write("overlay/kustomization.yaml", "resources: [\""+value+"\"]\n")[:len(dir)+len("/overlay")]}, "", exitError, false},
	}
	quotedRun := regexp.MustCompile(`"x{81,}`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				name, envValue, _ := strings.Cut(c.env, "=")
				t.Setenv(name, envValue)
			}
			args := c.args
			if args[0] != "explain" {
				args = append([]string{"--no-color"}, args...)
			}
			output := runHostile(t, args, c.exit)
			limit := 1100
			if c.exit != exitError {
				limit = 2200
			}
			for _, line := range strings.Split(strings.TrimSpace(output), "\n") {
				if len(line) > limit {
					t.Errorf("line of %d bytes, want at most %d: %.200s…", len(line), limit, line)
				}
			}
			if c.quoted && (!strings.Contains(output, `"…`) || quotedRun.MatchString(output)) {
				t.Errorf("the value is not quoted at most 80 bytes: %.300s", output)
			}
		})
	}
}
