package lint

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modellint/modellint/lint/manifest"
)

// Options configure one lint run.
type Options struct {
	// Paths are files or directories; "-" reads manifests from Stdin.
	Paths  []string
	Stdin  io.Reader
	Config *Config
	// Rules are the enabled rules, with severities already overridden.
	Rules []*Rule
	// Now is today's date (YYYY-MM-DD) for expiring config ignores.
	Now string
}

// Status of one rule on one target.
type Status string

const (
	StatusPass Status = "pass"
	StatusFail Status = "fail"
	StatusSkip Status = "skip"
)

// Evaluation records that a rule ran on a target, and how it ended.
type Evaluation struct {
	RuleID string `json:"rule"`
	Target string `json:"target"`
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"` // why it was skipped
}

// Result is everything a run produced, in a deterministic order.
type Result struct {
	Rules       []*Rule
	Files       []string // manifest files read, in order
	Findings    []Finding
	Evaluations []Evaluation
	// Notes say what was not linted and why (shown at -v).
	Notes []string
}

// Run lints the inputs. An error means the run could not complete (an
// unreadable or malformed input) and is reported as exit 2.
func Run(options Options) (*Result, error) {
	config := options.Config
	if config == nil {
		config = &Config{}
	}
	result := &Result{Rules: options.Rules}
	files, err := loadInputs(options.Paths, options.Stdin)
	if err != nil {
		return nil, err
	}
	set, err := manifest.NewSet(files)
	if err != nil {
		return nil, err
	}
	for _, file := range files {
		result.Files = append(result.Files, file.Path)
		for _, reason := range file.Skipped {
			result.Notes = append(result.Notes, fmt.Sprintf("%s: %s: skipped", file.Path, reason))
		}
		for _, object := range file.Objects {
			if !manifest.IsWorkloadKind(object) {
				pos := object.Locate("")
				result.Notes = append(result.Notes, fmt.Sprintf("%s:%d: %s (%s): no pod template, only used for references", file.Path, pos.Line, object.ID(), object.APIVersion))
			}
		}
	}
	if len(files) == 0 {
		result.Notes = append(result.Notes, "no manifest files found")
	}

	for _, workload := range set.Workloads {
		target := &Target{Workload: workload}
		for _, rule := range options.Rules {
			if rule.Check == nil {
				continue // reported by the engine itself (MDL001)
			}
			result.evaluate(rule, target, set, config)
		}
	}
	result.reportInvalid(set.Invalid, options.Rules)
	suppressor := newSuppressor(config, set, options.Now)
	result.Findings = suppressor.apply(result.Findings)
	result.passSuppressed()
	result.sort()
	return result, nil
}

func (r *Result) evaluate(rule *Rule, target *Target, set *manifest.Set, config *Config) {
	pos := target.Workload.Object.Locate("")
	evaluation := Evaluation{RuleID: rule.ID, Target: target.Name(), File: target.File(), Line: pos.Line}
	if missing := missingFacts(rule); missing != "" {
		evaluation.Status, evaluation.Reason = StatusSkip, missing
		r.Evaluations = append(r.Evaluations, evaluation)
		return
	}
	pass := &Pass{Rule: rule, Target: target, Objects: set, Config: config}
	rule.Check(pass)
	switch {
	case len(pass.findings) > 0:
		evaluation.Status = StatusFail
	case pass.skipReason != "":
		evaluation.Status, evaluation.Reason = StatusSkip, pass.skipReason
	default:
		evaluation.Status = StatusPass
	}
	r.Findings = append(r.Findings, pass.findings...)
	r.Evaluations = append(r.Evaluations, evaluation)
}

// missingFacts names the facts a rule needs that this run does not have.
// Only manifests are loaded so far; model and image facts come from their
// own loaders.
func missingFacts(rule *Rule) string {
	var missing []string
	for _, fact := range rule.Needs {
		if fact != FactManifest {
			missing = append(missing, string(fact))
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return "needs " + strings.Join(missing, " and ") + " facts, which this run does not have"
}

// reportInvalid turns objects the API server would reject into MDL002
// findings: the run goes on, and the object is not silently passed.
func (r *Result) reportInvalid(invalid []*manifest.InvalidError, rules []*Rule) {
	var rule *Rule
	for _, candidate := range rules {
		if candidate.ID == InvalidRuleID {
			rule = candidate
		}
	}
	if rule == nil {
		return
	}
	for _, problem := range invalid {
		object := problem.Object
		pos := object.Locate(problem.Path)
		r.Findings = append(r.Findings, Finding{
			RuleID: rule.ID, RuleName: rule.Name, Severity: rule.Severity,
			Message: problem.Message + ": the API server rejects the object, so nothing of it is deployed; " +
				"fix the value (modellint does not check the rest of this object until then)",
			Location: Location{File: object.File.Path, Line: pos.Line, Column: pos.Column, Path: object.FullPath(problem.Path)},
			Target:   object.ID(),
		})
	}
}

// passSuppressed turns failed evaluations whose findings were all
// suppressed into passes: a user who accepted a finding wants a green case.
func (r *Result) passSuppressed() {
	failing := map[string]bool{}
	for _, finding := range r.Findings {
		if !finding.Suppressed() {
			failing[finding.RuleID+"\x00"+finding.Target] = true
		}
	}
	for i := range r.Evaluations {
		evaluation := &r.Evaluations[i]
		if evaluation.Status == StatusFail && !failing[evaluation.RuleID+"\x00"+evaluation.Target] {
			evaluation.Status, evaluation.Reason = StatusPass, "findings suppressed"
		}
	}
}

func (r *Result) sort() {
	sort.SliceStable(r.Findings, func(i, j int) bool { return findingLess(r.Findings[i], r.Findings[j]) })
	sort.SliceStable(r.Evaluations, func(i, j int) bool {
		a, b := r.Evaluations[i], r.Evaluations[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		return a.RuleID < b.RuleID
	})
}

func findingLess(a, b Finding) bool {
	if a.Location.File != b.Location.File {
		return a.Location.File < b.Location.File
	}
	if a.Location.Line != b.Location.Line {
		return a.Location.Line < b.Location.Line
	}
	if a.Location.Column != b.Location.Column {
		return a.Location.Column < b.Location.Column
	}
	if a.RuleID != b.RuleID {
		return a.RuleID < b.RuleID
	}
	if a.Location.Path != b.Location.Path {
		return a.Location.Path < b.Location.Path
	}
	return a.Message < b.Message
}

// Count returns the number of unsuppressed findings at or above severity.
func (r *Result) Count(atLeast Severity) int {
	n := 0
	for _, finding := range r.Findings {
		if !finding.Suppressed() && finding.Severity >= atLeast {
			n++
		}
	}
	return n
}

// manifestExtensions are the file names a directory walk picks up.
var manifestExtensions = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// skippedDirs are never walked into.
var skippedDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true}

func loadInputs(paths []string, stdin io.Reader) ([]*manifest.File, error) {
	var files []*manifest.File
	seen := map[string]bool{}
	load := func(path string, source []byte) error {
		file, err := manifest.Load(path, source)
		if err != nil {
			return err
		}
		files = append(files, file)
		return nil
	}
	for _, path := range paths {
		if path == "-" {
			if stdin == nil {
				return nil, fmt.Errorf("-: no standard input")
			}
			source, err := io.ReadAll(io.LimitReader(stdin, manifest.MaxFileSize+1))
			if err != nil {
				return nil, fmt.Errorf("<stdin>: %w", err)
			}
			if err := load("<stdin>", source); err != nil {
				return nil, err
			}
			continue
		}
		info, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
		}
		if !info.IsDir() {
			name := displayPath(path)
			if seen[name] {
				continue
			}
			seen[name] = true
			source, err := readManifest(path, info)
			if err == nil {
				err = load(name, source)
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		err = filepath.WalkDir(path, func(file string, entry fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("%s: %w", displayPath(file), unwrapPathError(err))
			}
			if entry.IsDir() {
				if file != path && skippedDirs[entry.Name()] {
					return filepath.SkipDir
				}
				return nil
			}
			if !entry.Type().IsRegular() || !manifestExtensions[strings.ToLower(filepath.Ext(file))] {
				return nil
			}
			name := displayPath(file)
			if seen[name] {
				return nil
			}
			seen[name] = true
			info, err := entry.Info()
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			source, err := readManifest(file, info)
			if err != nil {
				return err
			}
			return load(name, source)
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// readManifest reads a file after checking its size, so a huge file is an
// error before it is in memory.
func readManifest(path string, info fs.FileInfo) ([]byte, error) {
	if info.Size() > manifest.MaxFileSize {
		return nil, fmt.Errorf("%s: file is %d MiB, more than the %d MiB a manifest may hold", displayPath(path), info.Size()>>20, manifest.MaxFileSize>>20)
	}
	source, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", displayPath(path), unwrapPathError(err))
	}
	return source, nil
}

func unwrapPathError(err error) error {
	if pathErr, ok := err.(*fs.PathError); ok {
		return pathErr.Err
	}
	return err
}

// displayPath is how a file is named in reports: relative to the working
// directory when it is inside it, with forward slashes.
func displayPath(path string) string {
	if filepath.IsAbs(path) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
				path = rel
			}
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}
