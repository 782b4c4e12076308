package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
)

// findValidator returns the path of an external validator: the one named by
// the environment variable, else the command found on PATH. When neither
// exists the test is skipped, or fails if validators are required.
func findValidator(t *testing.T, envVar, command, install string) string {
	t.Helper()
	if path := os.Getenv(envVar); path != "" {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s=%s: %v", envVar, path, err)
		}
		return path
	}
	if path, err := exec.LookPath(command); err == nil {
		return path
	}
	testenv.Unavailable(t, command+" is not installed ("+install+"), and "+envVar+" does not name it")
	return ""
}

// multitoolBinary finds the native SARIF Multitool behind npm's wrapper
// script. The wrapper runs the binary through a shell, which would split the
// ";" in --rule-kind, so the test runs the binary itself.
func multitoolBinary(t *testing.T, path string) string {
	t.Helper()
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if filepath.Ext(resolved) != ".js" {
		return resolved
	}
	dir := filepath.Dir(resolved)
	platform := "sarif-multitool-" + runtime.GOOS
	if runtime.GOOS == "windows" {
		platform = "sarif-multitool-win32"
	}
	candidates := []string{
		filepath.Join(dir, "Sarif.Multitool"),
		filepath.Join(dir, "node_modules", "@microsoft", platform, "Sarif.Multitool"),
		filepath.Join(dir, "..", platform, "Sarif.Multitool"),
	}
	for _, candidate := range candidates {
		if info, err := os.Stat(candidate); err == nil && !info.IsDir() {
			return candidate
		}
	}
	t.Fatalf("%s is npm's wrapper, and the Sarif.Multitool binary is not in any of %s; set %s to the binary",
		path, strings.Join(candidates, ", "), multitoolEnv)
	return ""
}
