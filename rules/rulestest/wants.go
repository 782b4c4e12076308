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
)

// WantFile holds the expectations that have no manifest line (model dirs,
// images): `PATH MDL101 "regexp"` for a finding, `PATH want-skip MDL109
// "regexp"` for a skip, one a line, PATH relative to the fixture dir.
const WantFile = "want.txt"

// wantComment is `# want MDL205 "regexp"`, or `# want MDL205:warning
// "regexp"` to want that severity too, several allowed on one line;
// skipComment is `# want-skip MDL212 "regexp"`.
var (
	wantComment = lazyregexp.New(`want\s+(MDL\d{3})(?::(error|warning|info))?\s+("(?:[^"\\]|\\.)*")`)
	skipComment = lazyregexp.New(`want-skip\s+(MDL\d{3})\s+("(?:[^"\\]|\\.)*")`)
)

// kindLine is the line a want-skip comment goes on.
var kindLine = lazyregexp.New(`^\s*(- )?kind:`)

type want struct {
	rule string
	// severity is the severity wanted, "" for any.
	severity string
	pattern  *regexp.Regexp
	where    string // the comment's FILE:LINE
	met      bool
}

// wants are a fixture's expectations.
type wants struct {
	// findings are keyed by FILE:LINE, or PATH for want.txt.
	findings map[string][]*want
	// skips are keyed by the target they are about (targetKey).
	skips map[string][]*want
	// separators are the `---` lines of each YAML file, which tell the
	// documents apart.
	separators map[string][]int
}

// targetKey names the target a skip is about: a model dir's PATH, or the
// YAML document (FILE#N) a workload is written in, for a want on its
// `kind:` line and the evaluation on its first line to meet.
func (w *wants) targetKey(file string, line int) string {
	if line == 0 {
		return file
	}
	document := 0
	for _, separator := range w.separators[file] {
		if separator < line {
			document++
		}
	}
	return file + "#" + strconv.Itoa(document)
}

// skipOf lists the skips wanted of an evaluation's target.
func (w *wants) skipOf(evaluation lint.Evaluation) []*want {
	return w.skips[w.targetKey(evaluation.File, evaluation.Line)]
}

// meet marks as met the first want of rule whose pattern matches message
// (and that wants its severity, if it says one); false when none does.
func meet(wants []*want, rule, severity, message string) bool {
	for _, w := range wants {
		if w.rule == rule && (w.severity == "" || w.severity == severity) && w.pattern.MatchString(message) {
			w.met = true
			return true
		}
	}
	return false
}

// readWants collects the want and want-skip comments of the fixture's YAML
// files and the lines of want.txt.
func readWants(t *testing.T, dir string) *wants {
	t.Helper()
	found := &wants{findings: map[string][]*want{}, skips: map[string][]*want{}, separators: map[string][]int{}}
	add := func(into map[string][]*want, key, where, rule, severity, quoted string) {
		// The quotes hold a regexp as written: only \" is unescaped.
		text := strings.ReplaceAll(quoted[1:len(quoted)-1], `\"`, `"`)
		pattern, err := regexp.Compile(text)
		if err != nil {
			t.Fatalf("%s: want %s %s: %v", where, rule, quoted, err)
		}
		into[key] = append(into[key], &want{rule: rule, severity: severity, pattern: pattern, where: where})
	}
	type skipAt struct {
		file        string
		line        int
		rule, regex string
	}
	var skips []skipAt
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
			where := rel + ":" + strconv.Itoa(number)
			if rel == WantFile {
				path, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
				if path == "" || strings.HasPrefix(path, "#") {
					continue
				}
				if m := skipComment.FindStringSubmatch(rest); m != nil {
					add(found.skips, path, where, m[1], "", m[2])
					continue
				}
				for _, m := range wantComment.FindAllStringSubmatch("want "+rest, -1) {
					add(found.findings, path, where, m[1], m[2], m[3])
				}
				continue
			}
			if strings.HasPrefix(line, "---") {
				found.separators[rel] = append(found.separators[rel], number)
			}
			if comment := strings.Index(line, "# want "); comment >= 0 {
				for _, m := range wantComment.FindAllStringSubmatch(line[comment:], -1) {
					add(found.findings, where, where, m[1], m[2], m[3])
				}
			}
			if comment := strings.Index(line, "# want-skip "); comment >= 0 {
				if !kindLine.MatchString(line) {
					t.Fatalf("%s: a want-skip comment goes on the kind: line of the workload skipped", where)
				}
				for _, m := range skipComment.FindAllStringSubmatch(line[comment:], -1) {
					skips = append(skips, skipAt{rel, number, m[1], m[2]})
				}
			}
		}
		return scanner.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	// Keyed once every file's separators are known.
	for _, skip := range skips {
		where := skip.file + ":" + strconv.Itoa(skip.line)
		add(found.skips, found.targetKey(skip.file, skip.line), where, skip.rule, "", skip.regex)
	}
	return found
}
