package integration

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type gitlabJob struct {
	Extends string `yaml:"extends"`
	Stage   string `yaml:"stage"`
	Image   struct {
		Name       string   `yaml:"name"`
		Entrypoint []string `yaml:"entrypoint"`
	} `yaml:"image"`
	Variables map[string]string `yaml:"variables"`
	Script    []string          `yaml:"script"`
	Cache     struct {
		Key          string   `yaml:"key"`
		FallbackKeys []string `yaml:"fallback_keys"`
		Paths        []string `yaml:"paths"`
		When         string   `yaml:"when"`
	} `yaml:"cache"`
	Artifacts struct {
		When     string   `yaml:"when"`
		ExpireIn string   `yaml:"expire_in"`
		Paths    []string `yaml:"paths"`
		Reports  struct {
			CodeQuality string `yaml:"codequality"`
			JUnit       string `yaml:"junit"`
		} `yaml:"reports"`
	} `yaml:"artifacts"`
}

type componentSpec struct {
	Spec struct {
		Inputs map[string]struct {
			Description string   `yaml:"description"`
			Default     *string  `yaml:"default"`
			Options     []string `yaml:"options"`
		} `yaml:"inputs"`
	} `yaml:"spec"`
}

// readYAMLDocuments decodes every document of a YAML file, strictly.
func readYAMLDocuments(t *testing.T, path string) []*yaml.Node {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var documents []*yaml.Node
	decoder := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var document yaml.Node
		err := decoder.Decode(&document)
		if errors.Is(err, io.EOF) {
			return documents
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		documents = append(documents, &document)
	}
}

func decodeNode(t *testing.T, node *yaml.Node, into any) {
	t.Helper()
	if err := node.Decode(into); err != nil {
		t.Fatalf("line %d: %v", node.Line, err)
	}
}

// inputReferences are the $[[ inputs.NAME ]] a component interpolates.
var componentInput = regexp.MustCompile(`\$\[\[\s*inputs\.([a-z-]+)\s*\]\]`)

// checkJob holds a job to what GitLab needs to show the reports: a shell
// (the image's entrypoint cleared), the reports the script writes, and
// artifacts kept when the job fails.
func checkJob(t *testing.T, name string, job gitlabJob) {
	t.Helper()
	if job.Image.Name == "" || len(job.Image.Entrypoint) != 1 || job.Image.Entrypoint[0] != "" {
		t.Errorf("%s: image %q with entrypoint %q; the entrypoint must be [\"\"] for GitLab's shell", name, job.Image.Name, job.Image.Entrypoint)
	}
	if len(job.Script) == 0 {
		t.Fatalf("%s: no script", name)
	}
	script := job.Script[len(job.Script)-1] // the modellint command, after any guard
	formats := map[string]string{}
	for _, match := range regexp.MustCompile(`--format (\w+)=(\S+)`).FindAllStringSubmatch(script, -1) {
		formats[match[1]] = match[2]
	}
	if job.Artifacts.Reports.CodeQuality == "" || formats["gitlab"] != job.Artifacts.Reports.CodeQuality {
		t.Errorf("%s: codequality report %q, the script writes %q", name, job.Artifacts.Reports.CodeQuality, formats["gitlab"])
	}
	if job.Artifacts.Reports.JUnit == "" || formats["junit"] != job.Artifacts.Reports.JUnit {
		t.Errorf("%s: junit report %q, the script writes %q", name, job.Artifacts.Reports.JUnit, formats["junit"])
	}
	sarifKept := false
	for _, path := range job.Artifacts.Paths {
		sarifKept = sarifKept || path == formats["sarif"]
	}
	if formats["sarif"] == "" || !sarifKept {
		t.Errorf("%s: the SARIF file %q is not kept as an artifact (%v)", name, formats["sarif"], job.Artifacts.Paths)
	}
	if job.Artifacts.When != "always" {
		t.Errorf("%s: artifacts.when = %q; a failing job's reports are lost unless it is always", name, job.Artifacts.When)
	}
	// The layer cache: GitLab caches only paths in the project, so the
	// script must put it where cache: paths says.
	cacheDir := regexp.MustCompile(`--cache-dir (\S+)`).FindStringSubmatch(script)
	if cacheDir == nil || len(job.Cache.Paths) != 1 || strings.TrimSuffix(job.Cache.Paths[0], "/") != cacheDir[1] {
		t.Errorf("%s: cache paths %v, the script caches layers in %v", name, job.Cache.Paths, cacheDir)
	}
	if job.Cache.Key == "" || job.Cache.When != "always" {
		t.Errorf("%s: cache key %q, when %q; want a key, and the cache saved when the job fails on findings too", name, job.Cache.Key, job.Cache.When)
	}
	// MDL208 flags :latest; the job must not run what it tells users not to.
	if strings.HasSuffix(job.Image.Name, ":latest") || strings.Contains(job.Image.Name, ":latest ") {
		t.Errorf("%s: image %q defaults to :latest", name, job.Image.Name)
	}
}

func TestGitLabComponent(t *testing.T) {
	path := filepath.Join(repoRoot, "ci", "gitlab", "templates", "modellint.yml")
	documents := readYAMLDocuments(t, path)
	if len(documents) != 2 {
		t.Fatalf("%s: %d YAML documents, want 2 (spec, then the job)", path, len(documents))
	}
	var spec componentSpec
	decodeNode(t, documents[0], &spec)
	var jobs map[string]gitlabJob
	decodeNode(t, documents[1], &jobs)
	if len(jobs) != 1 {
		t.Fatalf("%d jobs, want 1", len(jobs))
	}
	data, _ := os.ReadFile(path)
	_, body, _ := strings.Cut(string(data), "\n---\n")
	used := map[string]bool{}
	for _, match := range componentInput.FindAllStringSubmatch(body, -1) {
		used[match[1]] = true
		if _, ok := spec.Spec.Inputs[match[1]]; !ok {
			t.Errorf("the job uses input %s, which spec.inputs does not declare", match[1])
		}
	}
	for name, input := range spec.Spec.Inputs {
		if !used[name] {
			t.Errorf("input %s is declared but never used", name)
		}
		if input.Description == "" {
			t.Errorf("input %s needs a description", name)
		}
		// The image is required: no image is published, and a default
		// would have to be a tag that moves.
		if (input.Default == nil) != (name == "image") {
			t.Errorf("input %s: default %v; every input but image needs one, and image must have none", name, input.Default)
		}
		if input.Default != nil && strings.HasSuffix(*input.Default, ":latest") {
			t.Errorf("input %s defaults to %q, a tag MDL208 flags", name, *input.Default)
		}
	}
	for name, job := range jobs {
		if !componentInput.MatchString(name) {
			t.Errorf("job name %q is not the job-name input", name)
		}
		for variable, value := range job.Variables {
			if !componentInput.MatchString(value) {
				t.Errorf("variable %s = %q is not set from an input", variable, value)
			}
		}
		if componentInput.MatchString(strings.Join(job.Script, "\n")) {
			t.Error("the script interpolates an input; pass it through variables so it is never run as code")
		}
		checkJob(t, "component", job)
	}
}

func readTemplate(t *testing.T) map[string]gitlabJob {
	t.Helper()
	documents := readYAMLDocuments(t, filepath.Join(repoRoot, "ci", "gitlab", "modellint.gitlab-ci.yml"))
	if len(documents) != 1 {
		t.Fatalf("the template has %d documents, want 1", len(documents))
	}
	var jobs map[string]gitlabJob
	decodeNode(t, documents[0], &jobs)
	return jobs
}

func TestGitLabTemplate(t *testing.T) {
	jobs := readTemplate(t)
	hidden, ok := jobs[".modellint"]
	if !ok {
		t.Fatal("no hidden job .modellint to extend")
	}
	checkJob(t, ".modellint", hidden)
	if hidden.Image.Name != "$MODELLINT_IMAGE" {
		t.Errorf(".modellint: image %q, want $MODELLINT_IMAGE (set by the user, pinned)", hidden.Image.Name)
	}
	if job := jobs["modellint"]; job.Extends != ".modellint" || job.Stage == "" {
		t.Errorf("job modellint: extends %q, stage %q", job.Extends, job.Stage)
	}
	var component map[string]gitlabJob
	decodeNode(t, readYAMLDocuments(t, filepath.Join(repoRoot, "ci", "gitlab", "templates", "modellint.yml"))[1], &component)
	for _, job := range component {
		if last := len(hidden.Script) - 1; job.Script[len(job.Script)-1] != hidden.Script[last] {
			t.Errorf("the template and the component run different commands:\n%s\n%s", hidden.Script[last], job.Script[len(job.Script)-1])
		}
	}
}

// TestGitLabTemplateImageUnset: the template's MODELLINT_IMAGE has no
// default (no image is published), and without it GitLab runs the job in
// the runner's default image: the job fails at once and names the
// variable, rather than with "modellint: not found".
func TestGitLabTemplateImageUnset(t *testing.T) {
	job := readTemplate(t)[".modellint"]
	dir := t.TempDir()
	copyFile(t, brokenExample, filepath.Join(dir, "deploy", "tf-serving.yaml"))
	env := []string{"PATH=" + t.TempDir()} // no modellint
	for variable, value := range job.Variables {
		env = append(env, variable+"="+value)
	}
	got := runCommand(t, dir, env, "sh", "-c", gitlabScript(job))
	if got.code != 1 || !strings.Contains(got.stderr, "set MODELLINT_IMAGE to a modellint image") || strings.Contains(got.stderr, "not found") {
		t.Errorf("exit %d, want 1 with a message naming MODELLINT_IMAGE:\n%s%s", got.code, got.stdout, got.stderr)
	}
}

// gitlabScript is a job's script as a GitLab runner runs it: each line in
// turn, the job failing at the first that fails.
func gitlabScript(job gitlabJob) string {
	return "set -e\n" + strings.Join(job.Script, "\n")
}

// TestGitLabScript runs the template's script with sh, as a GitLab runner
// does in the modellint image, with the template's variables, and checks
// the exit codes and the reports GitLab collects.
func TestGitLabScript(t *testing.T) {
	job := readTemplate(t)[".modellint"]
	for name, test := range map[string]struct {
		manifest string
		wantCode int
	}{"broken": {brokenExample, 1}, "fixed": {fixedExample, 0}} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			copyFile(t, test.manifest, filepath.Join(dir, "deploy", "tf-serving.yaml"))
			env := []string{withPath(modellintBinDir(t)), "NO_COLOR=1"}
			for variable, value := range job.Variables {
				env = append(env, variable+"="+value)
			}
			env = append(env, "MODELLINT_PATH=deploy/", "MODELLINT_ARGS=--no-color --disable MDL208")
			got := runCommand(t, dir, env, "sh", "-c", gitlabScript(job))
			if got.code != test.wantCode {
				t.Fatalf("exit %d, want %d:\n%s%s", got.code, test.wantCode, got.stdout, got.stderr)
			}
			var issues []map[string]any
			data, err := os.ReadFile(filepath.Join(dir, job.Artifacts.Reports.CodeQuality))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &issues); err != nil || issues == nil {
				t.Errorf("Code Quality report is not a JSON array: %v\n%s", err, data)
			}
			if (len(issues) > 0) != (test.wantCode == 1) {
				t.Errorf("%d Code Quality issues for exit %d", len(issues), test.wantCode)
			}
			for _, file := range append([]string{job.Artifacts.Reports.JUnit}, job.Artifacts.Paths...) {
				if info, err := os.Stat(filepath.Join(dir, file)); err != nil || info.Size() == 0 {
					t.Errorf("%s was not written: %v", file, err)
				}
			}
		})
	}
}
