package lint

import (
	"fmt"
	"strings"

	"github.com/modellint/modellint/lint/manifest"
)

// Artifact is what a rule looks at.
type Artifact string

const (
	ArtifactMeta     Artifact = "meta"
	ArtifactModel    Artifact = "model"
	ArtifactManifest Artifact = "manifest"
	ArtifactImage    Artifact = "image"
	ArtifactCross    Artifact = "cross"
)

// Fact is a kind of input a rule needs. A rule whose facts are absent for a
// target is reported as skipped, never as passed.
type Fact string

const (
	FactManifest Fact = "manifest"
	FactModel    Fact = "model"
	FactImage    Fact = "image"
)

// Doc is a rule's documentation, printed by `modellint explain` and
// generated into docs/rules.md.
type Doc struct {
	Summary    string   // one line: what the rule checks
	Why        string   // the real failure it prevents
	Bad        string   // a manifest or layout that triggers it
	Good       string   // the same, fixed
	Fix        string   // what to do, in a sentence or two
	References []string // URLs
}

// Rule is one check. Rules are plain values; the engine runs them and
// lint/report prints what they find.
type Rule struct {
	ID       string // public and permanent, e.g. MDL205
	Name     string // kebab-case, e.g. memory-limit-missing
	Severity Severity
	Artifact Artifact
	Needs    []Fact
	Doc      Doc
	// Check inspects one target and reports through the pass. Rules never
	// read files: everything they need is in the pass.
	Check func(*Pass)
}

// DocsURL is where the rule's documentation lives.
func (r *Rule) DocsURL() string {
	return "https://github.com/modellint/modellint/blob/main/docs/rules.md#" + strings.ToLower(r.ID+"-"+r.Name)
}

// Target is what a rule evaluates: one workload (pod template) with the facts
// known about it.
type Target struct {
	Workload *manifest.Workload
}

// Name identifies the target in reports, without line numbers.
func (t *Target) Name() string { return t.Workload.Name() }

// File is the file the target was read from.
func (t *Target) File() string { return t.Workload.Object.File.Path }

// Pass is one rule running over one target.
type Pass struct {
	Rule    *Rule
	Target  *Target
	Objects *manifest.Set
	Config  *Config

	findings   []Finding
	skipReason string
}

// Workload is the target's workload.
func (p *Pass) Workload() *manifest.Workload { return p.Target.Workload }

// Report records a finding at a field path of the target's object, with the
// rule's severity.
func (p *Pass) Report(path, format string, args ...any) {
	p.ReportSeverity(p.Rule.Severity, path, format, args...)
}

// ReportSeverity records a finding with an explicit severity, for rules whose
// doc names a milder case (e.g. a tag without digest is info).
func (p *Pass) ReportSeverity(severity Severity, path, format string, args ...any) {
	object := p.Target.Workload.Object
	pos := object.Locate(path)
	p.findings = append(p.findings, Finding{
		RuleID:   p.Rule.ID,
		RuleName: p.Rule.Name,
		Severity: severity,
		Message:  fmt.Sprintf(format, args...),
		Location: Location{File: object.File.Path, Line: pos.Line, Column: pos.Column, Path: object.FullPath(path)},
		Target:   p.Target.Name(),
	})
}

// Skip marks the rule as not applicable to the target, with the reason
// (e.g. "no model-server container"). Findings reported before are kept.
func (p *Pass) Skip(reason string) { p.skipReason = reason }
