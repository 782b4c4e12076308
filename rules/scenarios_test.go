package rules_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/rules"
)

var update = flag.Bool("update", false, "rewrite the expected.json files of testdata/scenarios")

// scenarioDir holds one directory per scenario: manifests, an optional
// .modellint.yaml, an optional options.yaml (see scenarioOptions), and
// expected.json.
const scenarioDir = "../testdata/scenarios"

// scenarioToday fixes the date config ignores expire against.
const scenarioToday = "2026-01-15"

// expectedFinding is a finding as expected.json spells it, with the file
// relative to the scenario directory.
type expectedFinding struct {
	Rule        string              `json:"rule"`
	Severity    string              `json:"severity"`
	File        string              `json:"file"`
	Line        int                 `json:"line,omitempty"`
	Column      int                 `json:"column,omitempty"`
	Path        string              `json:"path,omitempty"`
	Target      string              `json:"target"`
	Message     string              `json:"message"`
	Suppression *lint.Suppression   `json:"suppression,omitempty"`
	Image       *lint.ImageLocation `json:"image,omitempty"`
	// Related is the template line that included the helper the finding
	// is placed in.
	Related []lint.RelatedLocation `json:"related,omitempty"`
}

// expectedResult is the content of expected.json: what a run found and
// could not read. Which rules skipped which targets is not recorded (each
// rule's fixture checks its skips, see TestRuleFixtures), so a new rule
// changes no golden file unless it fires.
type expectedResult struct {
	Findings []expectedFinding `json:"findings"`
	// InputErrors are the inputs the run could not read; WalkNotes what the
	// directory walk left out or followed, and why.
	InputErrors []lint.InputError `json:"inputErrors,omitempty"`
	WalkNotes   []string          `json:"walkNotes,omitempty"`
	Unused      []string          `json:"unused,omitempty"`
}

func TestScenarios(t *testing.T) {
	entries, err := os.ReadDir(scenarioDir)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	registry := &scenarioRegistry{parent: t}
	for _, entry := range entries {
		if !entry.IsDir() {
			continue
		}
		ran++
		name := entry.Name()
		t.Run(name, func(t *testing.T) {
			dir, err := filepath.Abs(filepath.Join(scenarioDir, name))
			if err != nil {
				t.Fatal(err)
			}
			images := loadScenarioImages(t, dir, registry)
			if images == nil {
				compareScenario(t, dir, runScenario(t, dir, engine.ImageOptions{}, nil))
				return
			}
			// The same expected.json holds whichever way the images are read.
			bySource := map[string]expectedResult{}
			for _, source := range images.sources() {
				t.Run(source, func(t *testing.T) {
					options, normalize := images.options(t, source)
					got := runScenario(t, dir, options, normalize)
					if *update {
						bySource[source] = got
						return
					}
					compareScenario(t, dir, got)
				})
			}
			if *update {
				updateFromSources(t, dir, images.sources(), bySource)
			}
		})
	}
	if ran == 0 {
		t.Fatal("no scenarios found")
	}
}

// TestScenariosOnOneCPU: every scenario gives its expected.json with the
// targets' rules run one after another on one CPU, in the order the
// workers take them, as with them spread over every CPU (TestScenarios):
// what a run finds does not depend on the schedule, whatever the targets
// (plain, Helm and CRD workloads, images started through wrapper scripts,
// baked models). Images are read from one source here; TestScenarios reads
// every source.
func TestScenariosOnOneCPU(t *testing.T) {
	if *update {
		t.Skip("-update rewrites expected.json from TestScenarios")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	eachScenario(t, func(t *testing.T, dir string, images engine.ImageOptions, normalize func(string) string) {
		compareScenario(t, dir, runScenario(t, dir, images, normalize))
	})
}

// eachScenario runs test on every scenario in a subtest of its name, with
// its images (if any) read from their first source.
func eachScenario(t *testing.T, test func(t *testing.T, dir string, images engine.ImageOptions, normalize func(string) string)) {
	entries, err := os.ReadDir(scenarioDir)
	if err != nil {
		t.Fatal(err)
	}
	registry := &scenarioRegistry{parent: t}
	for _, entry := range entries {
		if !entry.IsDir() {
			continue
		}
		t.Run(entry.Name(), func(t *testing.T) {
			dir, err := filepath.Abs(filepath.Join(scenarioDir, entry.Name()))
			if err != nil {
				t.Fatal(err)
			}
			var options engine.ImageOptions
			var normalize func(string) string
			if images := loadScenarioImages(t, dir, registry); images != nil {
				options, normalize = images.options(t, images.sources()[0])
			}
			test(t, dir, options, normalize)
		})
	}
}

// updateFromSources rewrites expected.json with the result every image
// source gave, and only when they all gave the same: a golden written from
// one source would hide a source that reads the images differently.
func updateFromSources(t *testing.T, dir string, sources []string, bySource map[string]expectedResult) {
	t.Helper()
	var agreeing [][]string // sources grouped by the result they gave
	results := map[string][]byte{}
	for _, source := range sources {
		got, ok := bySource[source]
		if !ok {
			t.Errorf("no result read from the %s source, so expected.json is left as it is", source)
			return
		}
		results[source] = scenarioJSON(t, got)
		found := false
		for i, group := range agreeing {
			if bytes.Equal(results[group[0]], results[source]) {
				agreeing[i], found = append(group, source), true
				break
			}
		}
		if !found {
			agreeing = append(agreeing, []string{source})
		}
	}
	if len(agreeing) == 1 {
		compareScenario(t, dir, bySource[sources[0]])
		return
	}
	first := agreeing[0]
	for _, group := range agreeing[1:] {
		t.Errorf("the image sources disagree, so expected.json is left as it is: %s differs from %s\n%s",
			strings.Join(group, ", "), strings.Join(first, ", "), diffLines(string(results[first[0]]), string(results[group[0]])))
	}
}

// scenarioJSON is a result as expected.json writes it.
func scenarioJSON(t *testing.T, got expectedResult) []byte {
	t.Helper()
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}

// compareScenario checks a result against expected.json, or rewrites it
// with -update.
func compareScenario(t *testing.T, dir string, got expectedResult) {
	t.Helper()
	data := scenarioJSON(t, got)
	expectedPath := filepath.Join(dir, "expected.json")
	if *update {
		if err := os.WriteFile(expectedPath, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(expectedPath)
	if err != nil {
		t.Fatalf("%v (run `go test ./rules -update` to create it)", err)
	}
	if !bytes.Equal(want, data) {
		t.Errorf("findings differ from %s (run `go test ./rules -update` and review the diff)\n%s",
			expectedPath, diffLines(string(want), string(data)))
	}
}

// runScenario lints a scenario from inside its directory, as a user running
// `modellint .` there would, so file names and config path patterns read the
// same as in the user's terminal.
func runScenario(t *testing.T, dir string, images engine.ImageOptions, normalize func(string) string) expectedResult {
	t.Helper()
	return toExpected(lintScenario(t, dir, images, nil), normalize)
}

// lintScenario runs the linter in a scenario directory; adjust, when not
// nil, changes the options last (extra --model links, say).
func lintScenario(t *testing.T, dir string, images engine.ImageOptions, adjust func(*engine.Options)) *lint.Result {
	t.Helper()
	t.Chdir(dir)
	options := engine.Options{Paths: []string{"."}, Rules: rules.All(), Now: scenarioToday, Image: images}
	applyScenarioOptions(t, &options)
	for _, name := range engine.ConfigFileNames {
		if _, err := os.Stat(name); err != nil {
			continue
		}
		config, err := engine.LoadConfig(name)
		if err != nil {
			t.Fatal(err)
		}
		options.Config = config
		break
	}
	if adjust != nil {
		adjust(&options)
	}
	dropped := manifest.RetiredReads()
	result, err := engine.Run(options)
	if err != nil {
		t.Fatal(err)
	}
	// A workload's document and its file's source are dropped once linted:
	// nothing may read them after that (it would find nothing).
	if reads := manifest.RetiredReads() - dropped; reads != 0 {
		t.Errorf("%d reads of a dropped document or source", reads)
	}
	// The same run with every workload's fields dropped until it is linted,
	// as in a run of more than 48 MiB of manifests, finds the same.
	options.DeepSleepPast = 1
	deep, err := engine.Run(options)
	if err != nil {
		t.Fatalf("with the files sleeping deeply: %v", err)
	}
	if got, want := toExpected(deep, nil), toExpected(result, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("with the files sleeping deeply:\n%+v\nwithout:\n%+v", got, want)
	}
	// A tree of namespaces in files of their own is linted a few
	// namespaces at a time past 8 MiB: every part of the result is the
	// same, with a namespace a batch and with namespaces together up to an
	// eighth of the tree.
	// Made by parts as the reports read them, the findings are the same
	// too.
	options.DeepSleepPast = 0
	for _, past := range []int64{1, filesSize(t, options.Paths)} {
		options.BatchesPast = past
		if !engine.LintsInBatches(options) {
			continue
		}
		for _, inParts := range []bool{false, true} {
			options.FindingsInParts = inParts
			redone := engine.BatchesRedone()
			batched, err := engine.Run(options)
			if err != nil {
				t.Fatalf("in batches: %v", err)
			}
			if engine.BatchesRedone() != redone {
				t.Errorf("in batches from %d bytes: linted whole after all", past)
			}
			if batched.InParts() != inParts {
				t.Errorf("in batches from %d bytes: findings in parts %v, want %v", past, batched.InParts(), inParts)
			}
			// Each part is made again at each read.
			if inParts && !reflect.DeepEqual(slices.Collect(batched.EachFinding()), slices.Collect(batched.EachFinding())) {
				t.Errorf("in batches from %d bytes: the parts differ from one read to the next", past)
			}
			batched.Hold()
			got, want := *batched, *result
			got.Secrets, want.Secrets = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("in batches from %d bytes (findings in parts %v):\n%+v\nwhole:\n%+v", past, inParts, got, want)
			}
		}
	}
	options.FindingsInParts = false
	return result
}

// filesSize is the size of the files under paths.
func filesSize(t *testing.T, paths []string) int64 {
	var size int64
	for _, path := range paths {
		err := filepath.WalkDir(path, func(_ string, entry fs.DirEntry, err error) error {
			if err != nil || entry.IsDir() {
				return err
			}
			info, err := entry.Info()
			size += info.Size()
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return size
}

// toExpected turns a result into expected.json's form.
func toExpected(result *lint.Result, normalize func(string) string) expectedResult {
	if normalize == nil {
		normalize = func(s string) string { return s }
	}
	got := expectedResult{Findings: []expectedFinding{}, InputErrors: result.InputErrors, Unused: result.Unused}
	for _, note := range result.Notes {
		// (": document N: …: skipped" is about a file's content, not the walk.)
		walk := strings.HasSuffix(note, ": skipped") || strings.HasSuffix(note, ": excluded") || strings.HasSuffix(note, ": followed")
		if walk && !strings.Contains(note, ": document ") {
			got.WalkNotes = append(got.WalkNotes, note)
		}
	}
	for _, finding := range result.Findings {
		got.Findings = append(got.Findings, expectedFinding{
			Rule:        finding.RuleID,
			Severity:    finding.Severity.String(),
			File:        finding.Location.File,
			Line:        finding.Location.Line,
			Column:      finding.Location.Column,
			Path:        finding.Location.Path,
			Target:      finding.Target,
			Message:     normalize(finding.Message),
			Suppression: finding.Suppression,
			Image:       normalizeImage(finding.Image, normalize),
			Related:     finding.Related,
		})
	}
	return got
}

// diffLines shows the lines that differ, enough to see what changed.
func diffLines(want, got string) string {
	wantLines, gotLines := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out strings.Builder
	shown := 0
	for i := 0; i < len(wantLines) || i < len(gotLines); i++ {
		var w, g string
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if w == g {
			continue
		}
		out.WriteString("line " + strconv.Itoa(i+1) + ":\n  - " + w + "\n  + " + g + "\n")
		if shown++; shown == 10 {
			out.WriteString("  ...\n")
			break
		}
	}
	return out.String()
}
