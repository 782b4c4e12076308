package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/modellint/modellint/lint"

	"github.com/modellint/modellint/internal/fileread"
)

// Kind is the lint.Suppression kind of a finding the baseline knows.
const Kind = "baseline"

// Version is the version of the file format. Read refuses other versions
// rather than guess what their fingerprints mean.
const Version = 1

// File is a baseline as it is stored, e.g. in .modellint-baseline.json.
type File struct {
	Version  int     `json:"version"`
	Tool     string  `json:"tool"`
	Findings []Entry `json:"findings"`
}

// Entry is one known finding. Only the fingerprint is matched; the other
// fields let a reviewer see what was accepted.
type Entry struct {
	Fingerprint string `json:"fingerprint"`
	Rule        string `json:"rule"`
	File        string `json:"file"`
	Target      string `json:"target,omitempty"`
	Path        string `json:"path,omitempty"`
	Message     string `json:"message"`
}

// New records the unsuppressed findings of result. Findings suppressed in
// the manifests or the config already say why; recording them too would
// keep them silent after that suppression is removed.
func New(result *lint.Result) *File {
	file := &File{Version: Version, Tool: "modellint", Findings: []Entry{}}
	fingerprints := lint.Fingerprints(result.Findings)
	for i, finding := range result.Findings {
		if finding.Suppressed() {
			continue
		}
		file.Findings = append(file.Findings, Entry{
			Fingerprint: fingerprints[i],
			Rule:        finding.RuleID,
			File:        finding.Location.File,
			Target:      finding.Target,
			Path:        finding.Location.Path,
			Message:     finding.Message,
		})
	}
	return file
}

// Write stores the baseline as indented JSON, in the findings' order, so
// that a re-recorded baseline diffs cleanly in review.
func (f *File) Write(w io.Writer) error {
	encoder := json.NewEncoder(w)
	encoder.SetEscapeHTML(false)
	encoder.SetIndent("", "  ")
	return encoder.Encode(f)
}

// WriteFile writes the baseline to path.
func (f *File) WriteFile(path string) error {
	var out bytes.Buffer
	if err := f.Write(&out); err != nil {
		return fmt.Errorf("write baseline %s: %w", path, err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write baseline %s: %w", path, err)
	}
	return nil
}

// maxFileBytes bounds a baseline read back: a record of 100,000 findings
// takes a few tens of MiB.
const maxFileBytes = 128 << 20

// Read loads the baseline at path. A missing, malformed or foreign file is
// an error: silently matching nothing would fail a build for findings the
// user accepted, and matching wrongly would hide new ones.
func Read(path string) (*File, error) {
	data, err := fileread.Regular(path, maxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	var file File
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&file); err != nil {
		return nil, fmt.Errorf("baseline %s: not a modellint baseline: %w", path, err)
	}
	if decoder.More() {
		return nil, fmt.Errorf("baseline %s: not a modellint baseline: data after the JSON object", path)
	}
	if file.Version != Version {
		return nil, fmt.Errorf("baseline %s: version %d, this modellint reads version %d (record it again with --write-baseline)", path, file.Version, Version)
	}
	for i, entry := range file.Findings {
		if entry.Fingerprint == "" {
			return nil, fmt.Errorf("baseline %s: findings[%d] has no fingerprint", path, i)
		}
	}
	return &file, nil
}

// Outcome says what applying a baseline did.
type Outcome struct {
	// Baselined is how many findings the baseline knew.
	Baselined int
	// Fixed is how many baseline entries matched no finding: fixed since,
	// or suppressed another way.
	Fixed int
}

// Apply marks the findings the baseline knows as suppressed (Kind), so they
// no longer count towards the exit code but stay visible in JSON, SARIF and
// JUnit, and passes the rule checks left with no unsuppressed finding.
func (f *File) Apply(result *lint.Result) Outcome {
	known := make(map[string]int, len(f.Findings))
	for _, entry := range f.Findings {
		known[entry.Fingerprint]++
	}
	var outcome Outcome
	fingerprints := lint.Fingerprints(result.Findings)
	for i := range result.Findings {
		finding := &result.Findings[i]
		if finding.Suppressed() || known[fingerprints[i]] == 0 {
			continue
		}
		known[fingerprints[i]]--
		finding.Suppression = &lint.Suppression{Kind: Kind, Reason: "known in the baseline"}
		outcome.Baselined++
	}
	for _, left := range known {
		outcome.Fixed += left
	}
	// A check whose findings are all baselined passes, as one whose
	// findings are suppressed in the manifests.
	result.PassSuppressed()
	return outcome
}
