package integration

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/modellint/modellint/internal/testenv"
)

type preCommitHook struct {
	ID            string `yaml:"id"`
	Name          string `yaml:"name"`
	Entry         string `yaml:"entry"`
	Language      string `yaml:"language"`
	Files         string `yaml:"files"`
	PassFilenames *bool  `yaml:"pass_filenames"`
	RequireSerial bool   `yaml:"require_serial"`
}

func readHooks(t *testing.T) map[string]preCommitHook {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []preCommitHook
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	byID := map[string]preCommitHook{}
	for _, hook := range hooks {
		byID[hook.ID] = hook
	}
	return byID
}

// TestPreCommitManifest: a golang and a system hook that lint the whole
// deployment (no filenames) when a file modellint reads is staged.
func TestPreCommitManifest(t *testing.T) {
	hooks := readHooks(t)
	for id, language := range map[string]string{"modellint": "golang", "modellint-system": "system"} {
		hook, ok := hooks[id]
		if !ok {
			t.Errorf("no hook %s", id)
			continue
		}
		if hook.Language != language || hook.Entry != "modellint" || hook.Name == "" {
			t.Errorf("hook %s: language %q, entry %q, name %q", id, hook.Language, hook.Entry, hook.Name)
		}
		if hook.PassFilenames == nil || *hook.PassFilenames {
			t.Errorf("hook %s passes filenames; a deployment is linted as a whole", id)
		}
		// pre-commit matches files with Python's re.search; these patterns
		// mean the same in Go's RE2.
		files := regexp.MustCompile(hook.Files)
		for path, want := range map[string]bool{
			"deploy/serving.yaml": true, "k8s/kustomization.yml": true, "charts/llm/templates/_helpers.tpl": true,
			"models/resnet/1/saved_model.pb": true, "models/triton/bert/config.pbtxt": true,
			"models/llm/model.safetensors": true, "models/llm/config.json": true, "models/clf.onnx": true,
			"models/resnet/1/variables/variables.index": true, "models/resnet/1/variables/variables.data-00000-of-00001": true,
			"models/resnet/1/assets/vocab.txt": true, "models/resnet/1/assets.extra/tf_serving_warmup_requests": true,
			"models/llm/pytorch_model.bin": true, "models/clf.pt": true, "models/clf.pkl": true, "models/llama.Q4_K_M.gguf": true,
			"build/image.tar": true, "dist/serving-0.1.0.tgz": true, "overlays/prod/Kustomization": true, ".modellintignore": true,
			"main.go": false, "README.md": false, "docs/yaml-notes.txt": false, "models/notes.txt": false,
		} {
			if files.MatchString(path) != want {
				t.Errorf("hook %s: files pattern matches %s: %v, want %v", id, path, !want, want)
			}
		}
	}
}

// hookRepository copies this repository's files (tracked, and new ones not
// ignored) into a fresh git repository with one commit, as pre-commit
// clones hook repositories by commit.
func hookRepository(t *testing.T) string {
	t.Helper()
	git := requireTool(t, "git", "apt-get install git")
	if _, err := os.Stat(filepath.Join(repoRoot, ".git")); errors.Is(err, fs.ErrNotExist) {
		// The one reason to skip: a source archive, not a checkout.
		testenv.Unavailable(t, repoRoot+" is not a git checkout, so the hook repository cannot be made")
	}
	listed := runCommand(t, repoRoot, nil, git, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	if listed.code != 0 {
		t.Fatalf("git ls-files in %s: exit %d: %s", repoRoot, listed.code, listed.stderr)
	}
	dir := t.TempDir()
	for _, file := range strings.Split(strings.TrimSuffix(listed.stdout, "\x00"), "\x00") {
		if info, err := os.Lstat(filepath.Join(repoRoot, file)); err != nil || !info.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		copyFile(t, filepath.Join(repoRoot, file), filepath.Join(dir, file))
	}
	commitAll(t, dir)
	return dir
}

func commitAll(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=modellint", "-c", "user.email=modellint@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "fixture"},
	} {
		if got := runCommand(t, dir, nil, "git", args...); got.code != 0 {
			t.Fatalf("git %s: %s", strings.Join(args, " "), got.stderr)
		}
	}
}

// hookRun lints a user's repository with one hook from hookRepo, the way
// a user adopts a hook: a .pre-commit-config.yaml pinning the hook
// repository's commit, then `pre-commit run --all-files`. The hook's
// environment is installed once and reused for each deployment.
type hookRun struct {
	preCommit, repo string
	env             []string
}

func newHookRun(t *testing.T, hookRepo, hook string, env ...string) *hookRun {
	t.Helper()
	preCommit := requireTool(t, "pre-commit", "apt-get install pre-commit")
	rev := runCommand(t, hookRepo, nil, "git", "rev-parse", "HEAD")
	repo := t.TempDir()
	config := "repos:\n  - repo: " + hookRepo + "\n    rev: " + strings.TrimSpace(rev.stdout) + "\n    hooks:\n      - id: " + hook + "\n"
	if err := os.WriteFile(filepath.Join(repo, ".pre-commit-config.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("a deployment\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env = append([]string{"PRE_COMMIT_HOME=" + t.TempDir(), "NO_COLOR=1"}, env...)
	return &hookRun{preCommit: preCommit, repo: repo, env: env}
}

// lint commits manifest as the repository's deployment and runs the hook.
func (h *hookRun) lint(t *testing.T, manifest string) result {
	t.Helper()
	copyFile(t, manifest, filepath.Join(h.repo, "deploy", "tf-serving.yaml"))
	commitAll(t, h.repo)
	return runCommand(t, h.repo, h.env, h.preCommit, "run", "--all-files", "--color", "never")
}

// checkHook runs the hook on the broken deployment (it must fail and show
// the findings) and on the fixed one (it must pass).
func checkHook(t *testing.T, run *hookRun) {
	t.Helper()
	broken := run.lint(t, brokenExample)
	if broken.code != 1 || !strings.Contains(broken.stdout, "Failed") || !strings.Contains(broken.stdout, "MDL205") {
		t.Errorf("broken deployment: exit %d, want 1 with the findings:\n%s%s", broken.code, broken.stdout, broken.stderr)
	}
	fixed := run.lint(t, fixedExample)
	if fixed.code != 0 || !strings.Contains(fixed.stdout, "Passed") {
		t.Errorf("fixed deployment: exit %d, want 0:\n%s%s", fixed.code, fixed.stdout, fixed.stderr)
	}
}

func TestPreCommitSystemHook(t *testing.T) {
	checkHook(t, newHookRun(t, hookRepository(t), "modellint-system", withPath(modellintBinDir(t))))
}

// TestPreCommitGolangHook: pre-commit builds the hook from the hook
// repository with the local Go (`go install ./...`), offline: modules come
// from the module cache and no toolchain is downloaded.
func TestPreCommitGolangHook(t *testing.T) {
	skipShort(t, "pre-commit's go install of the hook")
	checkHook(t, newHookRun(t, hookRepository(t), "modellint", goEnv(t)...))
}

// TestPreCommitRunsOnModelFile: staging only a model file runs the hook
// (a grown variables shard can break the deployment's memory limit).
func TestPreCommitRunsOnModelFile(t *testing.T) {
	run := newHookRun(t, hookRepository(t), "modellint-system", withPath(modellintBinDir(t)))
	copyFile(t, fixedExample, filepath.Join(run.repo, "deploy", "tf-serving.yaml"))
	commitAll(t, run.repo)
	shard := filepath.Join(run.repo, "models", "resnet", "1", "variables", "variables.data-00000-of-00001")
	if err := os.MkdirAll(filepath.Dir(shard), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shard, []byte("weights"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := runCommand(t, run.repo, nil, "git", "add", shard); got.code != 0 {
		t.Fatal(got.stderr)
	}
	got := runCommand(t, run.repo, run.env, run.preCommit, "run", "--color", "never")
	if strings.Contains(got.stdout, "no files to check") || !(strings.Contains(got.stdout, "Passed") || strings.Contains(got.stdout, "Failed")) {
		t.Errorf("staging a model file did not run the hook:\n%s%s", got.stdout, got.stderr)
	}
}
