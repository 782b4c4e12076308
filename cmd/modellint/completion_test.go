package main

import (
	"strings"
	"testing"
)

// TestCompletion: the shell's completion (what `modellint __complete`
// answers) offers paths for PATH, rule IDs after explain and in the rule
// lists, and the values of --format, --fail-on and --color. The last line
// is cobra's directive: :0 lets the shell complete file names, :4 not.
func TestCompletion(t *testing.T) {
	cases := []struct {
		name      string
		args      []string
		want      []string // lines the answer holds
		directive string
	}{
		{"paths", []string{"__complete", "deploy/"}, nil, ":0"},
		{"paths after a path", []string{"__complete", "k8s/", ""}, nil, ":0"},
		{"explain", []string{"__complete", "explain", "MDL20"}, []string{"MDL205\tmemory-limit-missing"}, ":4"},
		{"explain lower case", []string{"__complete", "explain", "mdl10"}, []string{"MDL101\tversion-dir-missing"}, ":4"},
		{"explain takes one", []string{"__complete", "explain", "MDL205", ""}, nil, ":4"},
		{"disable", []string{"__complete", "--disable", "MDL2"}, []string{"MDL205\tmemory-limit-missing"}, ":4"},
		{"disable list", []string{"__complete", "--disable", "MDL205,MDL10"}, []string{"MDL205,MDL101\tversion-dir-missing"}, ":4"},
		{"enable", []string{"__complete", "--enable", ""}, []string{"MDL001\tsuppression-reason-missing"}, ":4"},
		{"enable-only", []string{"__complete", "--enable-only", "MDL4"}, []string{"MDL401\t"}, ":4"},
		{"format", []string{"__complete", "--format", ""}, []string{"table", "json", "sarif"}, ":4"},
		{"format file", []string{"__complete", "-f", "sarif="}, nil, ":0"},
		{"fail-on", []string{"__complete", "--fail-on", ""}, []string{"error\t", "warning\t", "info\t", "none\t"}, ":4"},
		{"color", []string{"__complete", "--color", ""}, []string{"auto", "always", "never"}, ":4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := lintArgs(t, "", c.args...)
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if code != exitClean || lines[len(lines)-1] != c.directive {
				t.Fatalf("exit %d, directive %q (want %q):\n%s\nstderr %s", code, lines[len(lines)-1], c.directive, stdout, stderr)
			}
			for _, want := range c.want {
				found := false
				for _, line := range lines {
					found = found || strings.HasPrefix(line, want)
				}
				if !found {
					t.Errorf("no %q in:\n%s", want, stdout)
				}
			}
			if c.name == "disable list" && strings.Contains(stdout, "MDL205,MDL205") {
				t.Errorf("an ID already listed is offered again:\n%s", stdout)
			}
		})
	}
}
