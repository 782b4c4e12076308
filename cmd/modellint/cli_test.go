package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHelpGolden: --help at 80 columns, flags grouped by topic, wrapped at
// word boundaries, booleans without a value. Regenerate with -update.
func TestHelpGolden(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	t.Setenv("XDG_CACHE_HOME", "/home/user/.cache") // the --cache-dir default shown
	code, stdout, stderr := lintArgs(t, "", "--help")
	if code != exitClean || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	golden := filepath.Join("testdata", "help-80.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(want) {
		t.Errorf("--help differs from %s (go test ./cmd/modellint -run TestHelpGolden -update):\n%s", golden, stdout)
	}
	for i, line := range strings.Split(stdout, "\n") {
		if len([]rune(line)) > 80 {
			t.Errorf("line %d is %d columns: %q", i+1, len([]rune(line)), line)
		}
	}
	if strings.Contains(stdout, "[=true|false]") {
		t.Error("a boolean flag shows a value")
	}
}

// TestCommandLineHabits: what users of other Go CLIs type works.
func TestCommandLineHabits(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		want   int
		stdout string
	}{
		{"help", []string{"help"}, exitClean, "Usage:\n  modellint [flags] [PATH ...]"},
		{"help rules", []string{"help", "rules"}, exitClean, "modellint rules [flags]"},
		{"rules --help", []string{"rules", "--help"}, exitClean, "--markdown"},
		{"explain --help", []string{"explain", "--help"}, exitClean, "modellint explain RULE"},
		{"--version", []string{"--version"}, exitClean, "modellint dev\n"},
		{"-V", []string{"-V"}, exitClean, "modellint dev\n"},
		{"completion bash", []string{"completion", "bash"}, exitClean, "__start_modellint"},
		{"completion zsh", []string{"completion", "zsh"}, exitClean, "#compdef modellint"},
		{"completion fish", []string{"completion", "fish"}, exitClean, "complete -c modellint"},
		{"completion powershell", []string{"completion", "powershell"}, exitClean, "Register-ArgumentCompleter"},
		{"config", []string{"config", examples + "/fixed"}, exitClean, "# config file: none found"},
		{"enable-only", []string{"--offline", "--fail-on", "warning", "--enable-only", "MDL205,image-tag-mutable", "-f", "json", examples + "/broken"}, exitFindings, `"rule": "MDL205"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := lintArgs(t, "", c.args...)
			if code != c.want || !strings.Contains(stdout, c.stdout) {
				t.Errorf("exit %d (want %d), stdout lacks %q:\n%s\nstderr: %s", code, c.want, c.stdout, stdout, stderr)
			}
		})
	}
	// --enable-only runs nothing else.
	_, stdout, _ := lintArgs(t, "", "--offline", "--enable-only", "MDL205", "-f", "json", examples+"/broken")
	if strings.Contains(stdout, `"rule": "MDL208"`) || strings.Contains(stdout, `"rule": "MDL209"`) {
		t.Errorf("--enable-only MDL205 ran other rules:\n%s", stdout)
	}
}

// TestEnvironmentFlags: MODELLINT_<FLAG> sets any flag; the command line wins.
func TestEnvironmentFlags(t *testing.T) {
	t.Setenv("MODELLINT_OFFLINE", "1")
	t.Setenv("MODELLINT_FAIL_ON", "none")
	if code, _, stderr := lintArgs(t, "", examples+"/broken"); code != exitClean {
		t.Errorf("MODELLINT_FAIL_ON=none: exit %d, want 0 (%s)", code, stderr)
	}
	if code, _, _ := lintArgs(t, "", "--fail-on", "error", examples+"/broken"); code != exitFindings {
		t.Errorf("--fail-on error over MODELLINT_FAIL_ON=none: exit %d, want 1", code)
	}
	t.Setenv("MODELLINT_DISABLE", "MDL999")
	if code, _, stderr := lintArgs(t, "", examples+"/broken"); code != exitError || !strings.Contains(stderr, `no rule "MDL999"`) {
		t.Errorf("MODELLINT_DISABLE=MDL999: exit %d, stderr %q", code, stderr)
	}
	t.Setenv("MODELLINT_DISABLE", "")
	t.Setenv("MODELLINT_COLOR", "sometimes")
	if code, _, stderr := lintArgs(t, "", examples+"/broken"); code != exitError || !strings.Contains(stderr, `MODELLINT_COLOR "sometimes"`) {
		t.Errorf("MODELLINT_COLOR=sometimes: exit %d, stderr %q", code, stderr)
	}
}

// TestColorModes: always colors even a pipe; never and TERM=dumb do not.
func TestColorModes(t *testing.T) {
	_, stdout, _ := lintArgs(t, "", "--offline", "--color", "always", examples+"/broken")
	if !strings.Contains(stdout, "\x1b[") {
		t.Error("--color always printed no color")
	}
	_, stdout, _ = lintArgs(t, "", "--offline", "--color", "never", examples+"/broken")
	if strings.Contains(stdout, "\x1b[") {
		t.Error("--color never printed color")
	}
}

// TestTableWidth: the table wraps its message column to COLUMNS and fills it.
func TestTableWidth(t *testing.T) {
	for _, columns := range []int{80, 100} {
		t.Setenv("COLUMNS", strconv.Itoa(columns))
		_, stdout, _ := lintArgs(t, "", "--offline", examples+"/broken")
		widest := 0
		for _, line := range strings.Split(stdout, "\n") {
			widest = max(widest, len([]rune(line)))
		}
		if widest > columns || widest < columns-15 {
			t.Errorf("COLUMNS=%d: widest line %d columns", columns, widest)
		}
	}
}

// TestMarkdownLinks: in GitHub Actions the summary links each finding to
// its file at the commit.
func TestMarkdownLinks(t *testing.T) {
	t.Setenv("GITHUB_SERVER_URL", "https://github.com")
	t.Setenv("GITHUB_REPOSITORY", "org/repo")
	t.Setenv("GITHUB_SHA", "0123abc")
	t.Chdir(examples)
	_, stdout, _ := lintArgs(t, "", "--offline", "-f", "markdown", "broken")
	if !strings.Contains(stdout, "](https://github.com/org/repo/blob/0123abc/broken/tf-serving.yaml#L") || !strings.Contains(stdout, "docs/rules.md#mdl205-memory-limit-missing)") {
		t.Errorf("summary without file or rule links:\n%s", stdout)
	}
}

// TestProgressLine: no rate before a second has passed (a cached layer is
// counted at once), 100% at the end, then the line is cleared and, at -v,
// a summary stays.
func TestProgressLine(t *testing.T) {
	if got := progressLine("app:1", 700<<30, 1<<40, time.Millisecond); strings.Contains(got, "/s") {
		t.Errorf("rate after 1 ms: %q", got)
	}
	if got := progressLine("app:1", 512<<20, 1<<30, 2*time.Second); got != "reading app:1   50%  512.0 MiB / 1.0 GiB  256.0 MiB/s" {
		t.Errorf("line = %q", got)
	}
	var out strings.Builder
	clock := time.Unix(0, 0)
	p := &layerProgress{out: &out, now: func() time.Time { return clock }, verbose: true}
	p.Start("app:1", 1<<20)
	p.Add(1 << 19)
	clock = clock.Add(3 * time.Second)
	p.Done()
	if !strings.Contains(out.String(), "100%") || !strings.HasSuffix(out.String(), "\r\x1b[Kmodellint: read app:1: 1.0 MiB in 3.0s\n") {
		t.Errorf("output %q", out.String())
	}
}

// TestNotesWhereRead: the notes on objects no rule reads are in the
// reports that show notes (JSON, SARIF, the table at -v), and a run whose
// reports show none leaves them out.
func TestNotesWhereRead(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "settings.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n")
	const note = "ConfigMap/settings (v1): no pod template, only used for references"
	for _, format := range []string{"json", "sarif", "table -v"} {
		args := append([]string{"--offline", "--no-color", "-f"}, strings.Fields(format)...)
		if code, stdout, stderr := lintArgs(t, "", append(args, dir)...); code != exitClean || !strings.Contains(stdout, note) {
			t.Errorf("-f %s: exit %d, stderr %q, no note %q in\n%s", format, code, stderr, note, stdout)
		}
	}
}
