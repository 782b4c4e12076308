package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompletion: the shell's completion (what `modellint __complete`
// answers) offers paths for PATH and after -f FMT=, directories for
// --cache-dir, rule IDs and names after explain and in the rule lists, and
// the values of --format, --fail-on, --color, --inflate and
// --kustomize-load-restrictor. The last line is cobra's directive: :0 lets
// the shell complete file names, :4 not, :6 not and no space after the
// one completion, :16 directories only. It runs in a dir holding
// reports/, report.sarif and .hidden.
func TestCompletion(t *testing.T) {
	work := t.TempDir()
	for _, dir := range []string{"reports", "deploy"} {
		if err := os.Mkdir(filepath.Join(work, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range []string{"report.sarif", ".hidden", filepath.Join("reports", "old.sarif")} {
		if err := os.WriteFile(filepath.Join(work, file), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(work)
	cases := []struct {
		name      string
		args      []string
		want      []string // lines the answer holds
		directive string
		not       []string // lines it must not hold
	}{
		{"paths", []string{"__complete", "deploy/"}, nil, ":0", nil},
		{"paths after a path", []string{"__complete", "k8s/", ""}, nil, ":0", nil},
		{"explain", []string{"__complete", "explain", "MDL20"}, []string{"MDL205\tmemory-limit-missing"}, ":4", nil},
		{"explain lower case", []string{"__complete", "explain", "mdl10"}, []string{"MDL101\tversion-dir-missing"}, ":4", nil},
		{"explain takes one", []string{"__complete", "explain", "MDL205", ""}, nil, ":4", nil},
		{"explain name", []string{"__complete", "explain", "memory-"}, []string{"memory-limit-missing\tMDL205"}, ":4", nil},
		{"disable", []string{"__complete", "--disable", "MDL2"}, []string{"MDL205\tmemory-limit-missing"}, ":4", nil},
		{"disable list", []string{"__complete", "--disable", "MDL205,MDL10"}, []string{"MDL205,MDL101\tversion-dir-missing"}, ":4", nil},
		{"enable", []string{"__complete", "--enable", ""}, []string{"MDL001\tsuppression-reason-missing"}, ":4", nil},
		{"enable-only", []string{"__complete", "--enable-only", "MDL4"}, []string{"MDL401\t"}, ":4", nil},
		{"disable name", []string{"__complete", "--disable", "memory-l"}, []string{"memory-limit-missing\tMDL205"}, ":4", nil},
		{"disable name list", []string{"__complete", "--disable", "MDL101,memory-l"}, []string{"MDL101,memory-limit-missing\tMDL205"}, ":4", nil},
		{"enable name", []string{"__complete", "--enable", "readiness"}, []string{"readiness-probe-missing\tMDL201"}, ":4", nil},
		{"enable-only name", []string{"__complete", "--enable-only", "startup-b"}, []string{"startup-budget-below-load\tMDL402"}, ":4", nil},
		{"format", []string{"__complete", "--format", ""}, []string{"table", "json", "sarif"}, ":4", nil},
		{"format file", []string{"__complete", "-f", "sarif="}, []string{"sarif=report.sarif", "sarif=reports/", "sarif=deploy/"}, ":4",
			[]string{"sarif=.hidden"}},
		{"format file prefix", []string{"__complete", "-f", "sarif=rep"}, []string{"sarif=report.sarif", "sarif=reports/"}, ":4",
			[]string{"sarif=deploy/"}},
		{"format file in a dir", []string{"__complete", "--format", "json=reports/o"}, []string{"json=reports/old.sarif"}, ":4", nil},
		{"format dir", []string{"__complete", "-f", "sarif=dep"}, []string{"sarif=deploy/"}, ":6", nil},
		{"format hidden file", []string{"__complete", "-f", "sarif=.h"}, []string{"sarif=.hidden"}, ":4", nil},
		{"fail-on", []string{"__complete", "--fail-on", ""}, []string{"error\t", "warning\t", "info\t", "none\t"}, ":4", nil},
		{"color", []string{"__complete", "--color", ""}, []string{"auto", "always", "never"}, ":4", nil},
		{"inflate", []string{"__complete", "--inflate", ""}, []string{"auto\t", "go\t", "igzip\t", "unpigz\t"}, ":4", nil},
		{"kustomize-load-restrictor", []string{"__complete", "--kustomize-load-restrictor", ""}, []string{"rootOnly\t", "none\t"}, ":4", nil},
		{"cache-dir", []string{"__complete", "--cache-dir", ""}, nil, ":16", nil},
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
			for _, line := range lines {
				for _, not := range c.not {
					if strings.HasPrefix(line, not) {
						t.Errorf("%q offered in:\n%s", not, stdout)
					}
				}
			}
			if c.name == "disable list" && strings.Contains(stdout, "MDL205,MDL205") {
				t.Errorf("an ID already listed is offered again:\n%s", stdout)
			}
			if c.name == "disable name list" && strings.Contains(stdout, "MDL101,version-dir-missing") {
				t.Errorf("the name of a rule listed by ID is offered:\n%s", stdout)
			}
		})
	}
}
