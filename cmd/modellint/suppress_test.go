package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSuppressExpiresInvalid: an expires: date that does not parse is a
// config error, exit 2, on one line naming the file and the entry's line;
// it never becomes a suppression that lasts for ever.
func TestSuppressExpiresInvalid(t *testing.T) {
	source, err := os.ReadFile(examples + "/broken/tf-serving.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, expires := range []string{"banana", "2027-13-45", "30/06/2027"} {
		t.Run(expires, func(t *testing.T) {
			dir := t.TempDir()
			config := writeFile(t, dir, ".modellint.yaml",
				"ignore:\n  - rule: \"*\"\n    reason: legacy manifests owned by another team\n    expires: "+expires+"\n")
			writeFile(t, dir, "deploy/serving.yaml", string(source))
			code, _, stderr := lintArgs(t, "", filepath.Join(dir, "deploy"))
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			want := config + `:4:5: ignore[0].expires: "` + expires + `" is not a date: write it as YYYY-MM-DD`
			if code != exitError || len(lines) != 1 || !strings.Contains(lines[0], want) {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", code, stderr, want)
			}
		})
	}
}

// TestSuppressExpired: past its date, a config ignore entry no longer
// suppresses, and the run says which entry expired (MDL003).
func TestSuppressExpired(t *testing.T) {
	source, err := os.ReadFile(examples + "/broken/tf-serving.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, dir, ".modellint.yaml", "ignore:\n  - rule: MDL205\n    reason: capped by the LimitRange\n    expires: 2020-01-31\n")
	writeFile(t, dir, "deploy/serving.yaml", string(source))
	code, stdout, stderr := lintArgs(t, "", "--offline", filepath.Join(dir, "deploy"))
	if code != exitFindings || !strings.Contains(stdout, "MDL205") ||
		!strings.Contains(stdout, "MDL003") || !strings.Contains(stdout, "expired on 2020-01-31") {
		t.Errorf("exit %d, stdout %s, stderr %q; want 1 with MDL205 reported again and MDL003 naming the entry", code, stdout, stderr)
	}
}
