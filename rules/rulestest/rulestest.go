// Package rulestest runs one rule over a fixture dir and checks its findings
// against `# want` comments on the lines where they must land, the way
// golang.org/x/tools/go/analysis/analysistest checks `// want` comments.
package rulestest

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/engine"
)

// wantComment is `# want MDL205 "regexp"`, several allowed on one line.
var wantComment = lazyregexp.New(`want\s+(MDL\d{3})\s+("(?:[^"\\]|\\.)*")`)

// WantFile holds the expectations of findings that have no line (model
// dirs, images): `PATH MDL101 "regexp"`, one a line, PATH relative to the
// fixture dir.
const WantFile = "want.txt"

// NodesFile, in a fixture dir, is the cluster's nodes (kubectl get nodes
// -o yaml) the rules read, as --cluster gives them.
const NodesFile = "nodes.yaml"

// today fixes the date config ignores expire against.
const today = "2026-01-15"

type want struct {
	rule    string
	pattern *regexp.Regexp
	met     bool
}

// Run lints dir (as `modellint .` in it, with its .modellint.yaml and
// --cluster nodes.yaml when it has them) with
// only rule enabled, and checks every finding is wanted where it lands and
// every want is met. The fixture's images are not read: image rules are
// tested through scenarios.
func Run(t *testing.T, rule *lint.Rule, dir string) {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	wants := readWants(t, abs)
	t.Chdir(abs)
	options := engine.Options{Paths: []string{"."}, Rules: []*lint.Rule{rule}, Now: today}
	for _, name := range engine.ConfigFileNames {
		if _, err := os.Stat(name); err == nil {
			if options.Config, err = engine.LoadConfig(name); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	options.Cluster = Nodes(t)
	result, err := engine.Run(options)
	if err != nil {
		t.Fatal(err)
	}
	for _, finding := range result.Findings {
		where := finding.Location.File
		if finding.Location.Line > 0 {
			where += ":" + strconv.Itoa(finding.Location.Line)
		}
		if !meet(wants[where], finding) {
			t.Errorf("%s: unexpected %s finding: %s", where, finding.RuleID, finding.Message)
		}
	}
	for where, list := range wants {
		for _, w := range list {
			if !w.met {
				t.Errorf("%s: no %s finding matching %q", where, w.rule, w.pattern)
			}
		}
	}
}

// Nodes reads the NodesFile of the current dir, a fixture dir; nil when
// there is none.
func Nodes(t testing.TB) *cluster.Facts {
	t.Helper()
	if _, err := os.Stat(NodesFile); err != nil {
		return nil
	}
	facts, err := cluster.Read(NodesFile)
	if err != nil {
		t.Fatal(err)
	}
	return facts
}

func meet(wants []*want, finding lint.Finding) bool {
	for _, w := range wants {
		if w.rule == finding.RuleID && w.pattern.MatchString(finding.Message) {
			w.met = true
			return true
		}
	}
	return false
}

// readWants collects the want comments of the fixture's YAML files, keyed
// by FILE:LINE, and the lines of want.txt, keyed by PATH.
func readWants(t *testing.T, dir string) map[string][]*want {
	t.Helper()
	wants := map[string][]*want{}
	add := func(where, rule, quoted string) {
		// The quotes hold a regexp as written: only \" is unescaped.
		text := strings.ReplaceAll(quoted[1:len(quoted)-1], `\"`, `"`)
		pattern, err := regexp.Compile(text)
		if err != nil {
			t.Fatalf("%s: want %s %s: %v", where, rule, quoted, err)
		}
		wants[where] = append(wants[where], &want{rule: rule, pattern: pattern})
	}
	err := filepath.WalkDir(dir, func(file string, entry os.DirEntry, err error) error {
		if err != nil || entry.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, file)
		rel = filepath.ToSlash(rel)
		ext := strings.ToLower(filepath.Ext(file))
		if rel != WantFile && ext != ".yaml" && ext != ".yml" {
			return nil
		}
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		scanner := bufio.NewScanner(f)
		for number := 1; scanner.Scan(); number++ {
			line := scanner.Text()
			if rel == WantFile {
				path, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
				if path == "" || strings.HasPrefix(path, "#") {
					continue
				}
				for _, m := range wantComment.FindAllStringSubmatch("want "+rest, -1) {
					add(path, m[1], m[2])
				}
				continue
			}
			if comment := strings.Index(line, "# want "); comment >= 0 {
				for _, m := range wantComment.FindAllStringSubmatch(line[comment:], -1) {
					add(rel+":"+strconv.Itoa(number), m[1], m[2])
				}
			}
		}
		return scanner.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return wants
}
