package integration

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIntegrationsAgree runs one repository through the CLI, the Action's
// script and the GitLab job's script: failOn in its .modellint.yaml decides
// the exit code in all three, and MODELLINT_FAIL_ON, when set, wins in all
// three.
func TestIntegrationsAgree(t *testing.T) {
	gitlab := readTemplate(t)[".modellint"]
	bin := modellintBinDir(t)
	for _, c := range []struct {
		name     string
		failOn   string // MODELLINT_FAIL_ON
		wantCode int
	}{
		{"config failOn none", "", 0},
		{"MODELLINT_FAIL_ON=error", "error", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo := t.TempDir()
			copyFile(t, brokenExample, filepath.Join(repo, "deploy", "tf-serving.yaml"))
			if err := os.WriteFile(filepath.Join(repo, ".modellint.yaml"), []byte("failOn: none\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			base := []string{withPath(bin), "NO_COLOR=1", "MODELLINT_OFFLINE=1", "MODELLINT_FAIL_ON=" + c.failOn}

			cli := runCommand(t, repo, base, filepath.Join(bin, "modellint"), "deploy/")

			action := runCommand(t, repo, append(base, "GITHUB_OUTPUT="+filepath.Join(t.TempDir(), "out"),
				"RUNNER_TEMP="+t.TempDir(), "MODELLINT_PATH=deploy/", "MODELLINT_ANNOTATIONS=false", "MODELLINT_SUMMARY=false"),
				"bash", filepath.Join(repoRoot, "scripts", "action-lint.sh"))

			env := append([]string{}, base...)
			for variable, value := range gitlab.Variables {
				if variable != "MODELLINT_FAIL_ON" {
					env = append(env, variable+"="+value)
				}
			}
			job := runCommand(t, repo, append(env, "MODELLINT_PATH=deploy/"), "sh", "-c", gitlabScript(gitlab))

			for name, got := range map[string]result{"CLI": cli, "Action": action, "GitLab": job} {
				if got.code != c.wantCode {
					t.Errorf("%s: exit %d, want %d\n%s%s", name, got.code, c.wantCode, got.stdout, got.stderr)
				}
			}
		})
	}
}
