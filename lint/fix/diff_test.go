package fix

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
	"github.com/modellint/modellint/lint/manifest"
)

// diffCase is a file and edits of it, as Plan sorts them.
type diffCase struct {
	name   string
	source string
	edits  []manifest.Edit
}

func numbered(lines int, end string) string {
	var text strings.Builder
	for n := 1; n <= lines; n++ {
		fmt.Fprintf(&text, "key%d: %d%s", n, n, end)
	}
	return text.String()
}

// at is the edit replacing the first match of old in source with text.
func at(source, old, text string) manifest.Edit {
	start := strings.Index(source, old)
	if start < 0 {
		panic("no " + old)
	}
	return manifest.Edit{Start: start, End: start + len(old), Text: text}
}

// insertAt is the edit inserting text where before first starts.
func insertAt(source, before, text string) manifest.Edit {
	start := strings.Index(source, before)
	if start < 0 {
		panic("no " + before)
	}
	return manifest.Edit{Start: start, End: start, Text: text}
}

func diffCases() []diffCase {
	twenty, crlf := numbered(20, "\n"), numbered(20, "\r\n")
	noEnd := strings.TrimSuffix(numbered(5, "\n"), "\n")
	deployment := "spec:\n  containers:\n    - name: app\n      image: app:1\n      resources:\n        limits:\n          memory: 1Gi\n    - name: sidecar\n      image: proxy:1\n"
	return []diffCase{
		{"a value mid-file", twenty, []manifest.Edit{at(twenty, "10\n", "11\n")}},
		{"the first line", twenty, []manifest.Edit{at(twenty, "key1: 1", "key1: 0")}},
		{"the last line", twenty, []manifest.Edit{at(twenty, "key20: 20", "key20: 0")}},
		{"lines inserted", deployment, []manifest.Edit{insertAt(deployment, "    - name: sidecar", "      startupProbe:\n        httpGet: {path: /healthz, port: 8080}\n        failureThreshold: 60\n")}},
		{"lines appended", twenty, []manifest.Edit{{Start: len(twenty), End: len(twenty), Text: "key21: 21\n"}}},
		{"no line end at the end", noEnd, []manifest.Edit{at(noEnd, "key5: 5", "key5: 0")}},
		{"appended after no line end", noEnd, []manifest.Edit{{Start: len(noEnd), End: len(noEnd), Text: "\nkey6: 6"}}},
		{"line ends kept", crlf, []manifest.Edit{at(crlf, "key3: 3", "key3: 0"), insertAt(crlf, "key9: 9", "extra: 1\r\n")}},
		{"two edits in one line", twenty, []manifest.Edit{at(twenty, "key4", "kez4"), at(twenty, ": 4", ": 5")}},
		{"edits in lines next to each other", twenty, []manifest.Edit{at(twenty, "key4: 4", "key4: 0"), at(twenty, "key5: 5", "key5: 0"), insertAt(twenty, "key6", "new: 1\n")}},
		{"six lines apart share a hunk", twenty, []manifest.Edit{at(twenty, "key3: 3", "key3: 0"), at(twenty, "key10: 10", "key10: 0")}},
		{"seven lines apart do not", twenty, []manifest.Edit{at(twenty, "key3: 3", "key3: 0"), at(twenty, "key11: 11", "key11: 0")}},
		{"lines replaced", twenty, []manifest.Edit{at(twenty, "key7: 7\nkey8: 8\n", "seven: 7\n")}},
		{"a line removed", twenty, []manifest.Edit{at(twenty, "key12: 12\n", "")}},
		{"an insertion that ends mid-line", twenty, []manifest.Edit{insertAt(twenty, "key15", "new: 1\nkey")}},
	}
}

// TestDiffAsGit: the diff of each case is what git diff prints for the
// same change (less the function name git adds to hunk headers), and
// git apply turns the file into the fixed text with it.
func TestDiffAsGit(t *testing.T) {
	git := testenv.Tool(t, "git", "apt-get install git")
	for _, test := range diffCases() {
		t.Run(test.name, func(t *testing.T) {
			after, err := apply([]byte(test.source), test.edits)
			if err != nil {
				t.Fatal(err)
			}
			got := unifiedDiff("deploy.yaml", []byte(test.source), after, test.edits)
			if want := gitDiff(t, git, test.source, string(after)); got != want {
				t.Errorf("diff:\n%s\ngit diff:\n%s", got, want)
			}
			if applied := gitApply(t, git, test.source, got); applied != string(after) {
				t.Errorf("git apply made %q, want %q", applied, after)
			}
		})
	}
}

// TestDiffAppliesRandomEdits: random edits of a manifest-like file give
// a diff git apply turns the file into the fixed text with.
func TestDiffAppliesRandomEdits(t *testing.T) {
	git := testenv.Tool(t, "git", "apt-get install git")
	random := rand.New(rand.NewPCG(3, 4))
	texts := []string{"", "x", "new: 1\n", "a: 1\nb: 2\n", "\n", "  - item\n"}
	for round := range 40 {
		source := numbered(5+random.IntN(30), "\n")
		if random.IntN(4) == 0 {
			source = strings.TrimSuffix(source, "\n")
		}
		var edits []manifest.Edit
		for offset := 0; ; {
			offset += random.IntN(60)
			if offset > len(source) {
				break
			}
			end := min(len(source), offset+random.IntN(3)*random.IntN(12))
			edits = append(edits, manifest.Edit{Start: offset, End: end, Text: texts[random.IntN(len(texts))]})
			offset = end + 1
		}
		after, err := apply([]byte(source), edits)
		if err != nil {
			t.Fatal(err)
		}
		diff := unifiedDiff("deploy.yaml", []byte(source), after, edits)
		if (diff == "") != (source == string(after)) {
			t.Fatalf("round %d: diff %q for %q → %q", round, diff, source, after)
		}
		if diff == "" {
			continue
		}
		if applied := gitApply(t, git, source, diff); applied != string(after) {
			t.Fatalf("round %d: git apply made %q, want %q; diff:\n%s", round, applied, after, diff)
		}
	}
}

// TestDiffFormat pins one diff without git: two hunks, three lines of
// context, the counts left out of a one-line range.
func TestDiffFormat(t *testing.T) {
	source := numbered(20, "\n")
	edits := []manifest.Edit{at(source, "key1: 1", "key1: 0"), insertAt(source, "key16", "new: 1\n")}
	after, _ := apply([]byte(source), edits)
	want := "--- a/deploy.yaml\n+++ b/deploy.yaml\n" +
		"@@ -1,4 +1,4 @@\n-key1: 1\n+key1: 0\n key2: 2\n key3: 3\n key4: 4\n" +
		"@@ -13,6 +13,7 @@\n key13: 13\n key14: 14\n key15: 15\n+new: 1\n key16: 16\n key17: 17\n key18: 18\n"
	if got := unifiedDiff("deploy.yaml", []byte(source), after, edits); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if got := unifiedDiff("deploy.yaml", []byte(source), []byte(source), []manifest.Edit{at(source, "key2", "key2")}); got != "" {
		t.Errorf("an edit that changes nothing: %q", got)
	}
}

var functionContext = regexp.MustCompile(`(?m)^(@@ [^@]* @@).*$`)

// gitDiff is git's diff of the change, from its --- line, without the
// function names of hunk headers.
func gitDiff(t *testing.T, git, before, after string) string {
	dir := t.TempDir()
	writeTree(t, map[string]string{filepath.Join(dir, "a", "deploy.yaml"): before, filepath.Join(dir, "b", "deploy.yaml"): after})
	out, _ := runGit(t, git, dir, "", "diff", "--no-index", "--no-color", "--no-prefix", "-U3", "a/deploy.yaml", "b/deploy.yaml")
	out = out[strings.Index(out, "--- "):]
	return functionContext.ReplaceAllString(out, "$1")
}

// gitApply applies diff to a file holding before and returns what it holds.
func gitApply(t *testing.T, git, before, diff string) string {
	dir := t.TempDir()
	path := filepath.Join(dir, "deploy.yaml")
	writeTree(t, map[string]string{path: before})
	if out, err := runGit(t, git, dir, diff, "apply", "--whitespace=nowarn", "-"); err != nil {
		t.Fatalf("git apply: %v\n%s\ndiff:\n%s", err, out, diff)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func runGit(t *testing.T, git, dir, stdin string, args ...string) (string, error) {
	t.Helper()
	command := exec.Command(git, args...)
	command.Dir, command.Stdin = dir, strings.NewReader(stdin)
	// The user's git config (diff.noprefix, a diff driver) is not read.
	command.Env = append(slices.Clone(os.Environ()), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir)
	var out bytes.Buffer
	command.Stdout, command.Stderr = &out, &out
	err := command.Run()
	return out.String(), err
}
