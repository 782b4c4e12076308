package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/unprivileged"
	"github.com/modellint/modellint/lint/report"
)

// lintArgs runs the command in-process and returns its exit code and output.
func lintArgs(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// lintEveryFormat runs the command in-process with the table on stdout
// and every format written to a file, and returns its exit code and each
// output by name: "stdout", "stderr" and the formats'.
func lintEveryFormat(t *testing.T, args ...string) (code int, outputs map[string]string) {
	t.Helper()
	reports := t.TempDir()
	formats := []string{"-f", "table"}
	for _, format := range report.Formats {
		formats = append(formats, "-f", format+"="+filepath.Join(reports, format))
	}
	code, stdout, stderr := lintArgs(t, "", append(formats, args...)...)
	outputs = map[string]string{"stdout": stdout, "stderr": stderr}
	for _, format := range report.Formats {
		written, err := os.ReadFile(filepath.Join(reports, format))
		if err != nil {
			t.Fatalf("modellint %v: %v (stderr %s)", args, err, stderr)
		}
		outputs[format] = string(written)
	}
	return code, outputs
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const examples = "../../testdata/examples"

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	badConfig := writeFile(t, dir, "bad-config/.modellint.yaml", "failon: warning\n")
	writeFile(t, dir, "bad-config/pod.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
	malformed := writeFile(t, dir, "malformed.yaml", "apiVersion: v1\nkind: [Pod\n")
	cases := []struct {
		name       string
		args       []string
		want       int
		wantStderr string
	}{
		{"findings", []string{"--no-color", examples + "/broken"}, exitFindings, ""},
		{"clean", []string{"--no-color", examples + "/fixed"}, exitClean, ""},
		{"fail-on none", []string{"--fail-on", "none", examples + "/broken"}, exitClean, ""},
		{"fail-on warning", []string{"--fail-on=warning", examples + "/fixed"}, exitClean, ""},
		{"missing path", []string{filepath.Join(dir, "nope")}, exitError, "nope: no such file or directory"},
		{"unknown flag", []string{"--frobnicate"}, exitError, "unknown flag: --frobnicate"},
		{"unknown format", []string{"-f", "xml", examples}, exitError, `--format "xml": unknown format`},
		{"two formats on stdout", []string{"-f", "json", "-f", "sarif", examples}, exitError, "only one format can go to stdout"},
		{"bad fail-on", []string{"--fail-on", "fatal", examples}, exitError, "--fail-on"},
		{"unknown rule", []string{"--disable", "MDL999", examples}, exitError, `no rule "MDL999"`},
		{"unknown config key", []string{filepath.Join(dir, "bad-config")}, exitError, badConfig + `:1:1: unknown key "failon" (did you mean failOn?)`},
		{"malformed yaml", []string{malformed}, exitError, malformed + ":2: invalid YAML"},
		{"explain", []string{"explain", "MDL205"}, exitClean, ""},
		{"explain by name", []string{"explain", "memory-limit-missing"}, exitClean, ""},
		{"explain unknown", []string{"explain", "MDL999"}, exitError, `no rule "MDL999"`},
		{"rules", []string{"rules"}, exitClean, ""},
		{"version", []string{"version"}, exitClean, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := lintArgs(t, "", c.args...)
			if code != c.want {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.want, stderr)
			}
			if c.wantStderr != "" && !strings.Contains(stderr, c.wantStderr) {
				t.Errorf("stderr %q does not contain %q", stderr, c.wantStderr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("stderr is more than one line: %q", stderr)
			}
		})
	}
}

func TestStdin(t *testing.T) {
	source, err := os.ReadFile(examples + "/broken/tf-serving.yaml")
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := lintArgs(t, string(source), "-f", "json", "-")
	if code != exitFindings {
		t.Fatalf("exit %d (stderr %q)", code, stderr)
	}
	if !strings.Contains(stdout, `"file": "<stdin>"`) {
		t.Errorf("findings do not name <stdin>: %s", stdout)
	}
}

func TestReportFilesAreDeterministic(t *testing.T) {
	dir := t.TempDir()
	var previous map[string][]byte
	for round := 0; round < 2; round++ {
		files := map[string][]byte{}
		args := []string{"-q"}
		for _, format := range []string{"json", "sarif", "junit", "table"} {
			args = append(args, "-f", format+"="+filepath.Join(dir, format))
		}
		if code, _, stderr := lintArgs(t, "", append(args, examples)...); code != exitFindings {
			t.Fatalf("exit %d (stderr %q)", code, stderr)
		}
		for _, format := range []string{"json", "sarif", "junit", "table"} {
			data, err := os.ReadFile(filepath.Join(dir, format))
			if err != nil {
				t.Fatal(err)
			}
			if len(data) == 0 {
				t.Errorf("%s report is empty", format)
			}
			files[format] = data
			if previous != nil && !bytes.Equal(previous[format], data) {
				t.Errorf("%s report differs between two runs", format)
			}
		}
		previous = files
	}
}

func TestQuietPrintsNothingWhenClean(t *testing.T) {
	code, stdout, _ := lintArgs(t, "", "-q", examples+"/fixed")
	if code != exitClean || stdout != "" {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
}

func TestConfigDiscoveredUpward(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".modellint.yaml", "failOn: none\n")
	source, err := os.ReadFile(examples + "/broken/tf-serving.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "deploy/k8s/serving.yaml", string(source))
	if code, _, stderr := lintArgs(t, "", filepath.Join(dir, "deploy", "k8s")); code != exitClean {
		t.Errorf("config two levels up not applied: exit %d (stderr %q)", code, stderr)
	}
}

// The rules page is generated; a stale page fails here. Fix: make docs.
func TestDocsRulesUpToDate(t *testing.T) {
	code, generated, stderr := lintArgs(t, "", "rules", "--markdown")
	if code != exitClean {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	committed, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	if generated != string(committed) {
		t.Error("docs/rules.md is stale: run make docs")
	}
}

var update = flag.Bool("update", false, "rewrite golden files")

func TestConfigIgnorePathIsRelativeToConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".modellint.yaml", `ignore:
  - {rule: "*", path: deploy/k8s, reason: legacy manifests owned by another team}
`)
	source, err := os.ReadFile(examples + "/broken/tf-serving.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "deploy/k8s/serving.yaml", string(source))
	code, stdout, stderr := lintArgs(t, "", "-f", "json", filepath.Join(dir, "deploy"))
	if code != exitClean {
		t.Errorf("ignore path not matched relative to the config: exit %d (stderr %q)", code, stderr)
	}
	if !strings.Contains(stdout, `"kind": "config"`) {
		t.Errorf("suppressed findings missing from JSON: %s", stdout)
	}
}

// TestNothingPassesSilently: input errors are said and the rest is linted
// into every report; an empty input, or a flag nothing uses, is said too.
func TestNothingPassesSilently(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "repo/bad.yaml", "apiVersion: v1\nkind: [Pod\n")
	writeFile(t, dir, "repo/deploy.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n    - {name: web, image: nginx:latest}\n")
	report := filepath.Join(dir, "report.json")
	junit := filepath.Join(dir, "report.xml")
	code, _, stderr := lintArgs(t, "", "--offline", "-f", "table", "-f", "json="+report, "-f", "junit="+junit, filepath.Join(dir, "repo"))
	if code != exitError || !strings.Contains(stderr, "repo/bad.yaml:2: invalid YAML") {
		t.Errorf("broken file among good ones: exit %d, stderr %q; want 2 and the file's error", code, stderr)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"inputErrors"`) || !strings.Contains(string(data), `"MDL208"`) {
		t.Errorf("JSON report lacks the input error or the other file's findings:\n%s", data)
	}
	if data, _ := os.ReadFile(junit); !strings.Contains(string(data), `<error message="invalid YAML`) {
		t.Errorf("JUnit report has no error case:\n%s", data)
	}

	empty := t.TempDir()
	cases := []struct {
		name, stdin string
		args        []string
		want        int
		wantStderr  string
	}{
		{"empty stdin", "", []string{"-"}, exitError, "<stdin>: no Kubernetes objects on standard input"},
		{"stdin without objects", "# helm template failed\n", []string{"-"}, exitError, "no Kubernetes objects on standard input"},
		{"empty dir", "", []string{empty}, exitClean, ""},
		{"empty dir, --fail-if-empty", "", []string{"--fail-if-empty", empty}, exitError, "nothing to lint in " + empty},
		{"unused --image", "", []string{"--offline", "--image", "registry.example.com/ml/bert:1", examples + "/fixed"},
			exitClean, "warning: --image registry.example.com/ml/bert:1: no container of the linted manifests runs this image"},
		{"invalid --image reference", "", []string{"--image", "Bad Ref=x.tar", examples + "/fixed"}, exitError, `"Bad Ref" is not a valid image reference`},
		{"missing --image source", "", []string{"--image", "bert:1=" + filepath.Join(dir, "none.tar"), examples + "/fixed"}, exitError,
			"none.tar: no such file or directory; SOURCE is a docker-save tarball"},
		{"unused --model", "", []string{"--offline", "--model", examples + "/fixed/models/resnet:/mnt/typo", examples + "/fixed"},
			exitClean, "warning: --model " + examples + "/fixed/models/resnet:/mnt/typo: no serving container reads a model under /mnt/typo"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := lintArgs(t, c.stdin, c.args...)
			if code != c.want || (c.wantStderr != "" && !strings.Contains(stderr, c.wantStderr)) || (c.wantStderr == "" && stderr != "") {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, c.want, c.wantStderr)
			}
		})
	}
}

// TestExamplesLintedTogether: the broken and the fixed example in one run
// report what each does alone; the fixed one's ConfigMap, claim and model
// dir do not satisfy the broken one's references.
func TestExamplesLintedTogether(t *testing.T) {
	errorsOf := func(paths ...string) string {
		_, stdout, _ := lintArgs(t, "", append([]string{"--offline", "-f", "json"}, paths...)...)
		var report struct {
			Findings []struct{ Rule, Severity, Message string }
		}
		if err := json.Unmarshal([]byte(stdout), &report); err != nil {
			t.Fatal(err)
		}
		var rules []string
		for _, finding := range report.Findings {
			rules = append(rules, finding.Severity+" "+finding.Rule)
		}
		return strings.Join(rules, "\n")
	}
	alone := errorsOf(examples + "/broken")
	together := errorsOf(examples+"/broken", examples+"/fixed")
	if alone != together || !strings.Contains(alone, "MDL209") || !strings.Contains(alone, "MDL403") {
		t.Errorf("broken alone:\n%s\nbroken with fixed:\n%s", alone, together)
	}
}

// TestUnwritableReportFailsFirst: a report that cannot be written is exit
// 2 before anything is linted or printed.
func TestUnwritableReportFailsFirst(t *testing.T) {
	if unprivileged.Rerun(t) {
		return // root writes into any dir: checked as nobody
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	code, stdout, stderr := lintArgs(t, "", "--offline", "-f", "table", "-f", "sarif="+filepath.Join(dir, "out.sarif"), examples+"/broken")
	if code != exitError || stdout != "" || !strings.Contains(stderr, "cannot write") || !strings.Contains(stderr, "--user") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestReportIntoMissingDirFailsFirst(t *testing.T) {
	code, stdout, stderr := lintArgs(t, "", "--offline", "-f", "table", "-f", "sarif="+filepath.Join(t.TempDir(), "no", "such", "out.sarif"), examples+"/broken")
	if code != exitError || stdout != "" || !strings.Contains(stderr, "cannot write") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestConfigPerPath: the first PATH's config applies; a later PATH with its
// own is said, not silently ignored.
func TestConfigPerPath(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a/.modellint.yaml", "failOn: none\n")
	writeFile(t, dir, "a/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
	writeFile(t, dir, "b/.modellint.yaml", "failOn: warning\n")
	writeFile(t, dir, "b/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
	_, _, stderr := lintArgs(t, "", filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	if !strings.Contains(stderr, filepath.Join(dir, "b")+" has its own config "+filepath.Join(dir, "b", ".modellint.yaml")+", but this run uses "+filepath.Join(dir, "a", ".modellint.yaml")) {
		t.Errorf("stderr %q", stderr)
	}
}
