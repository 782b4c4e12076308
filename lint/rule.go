package lint

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/model"
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
// known about it, or a model directory or image linted on its own.
type Target struct {
	// Workload is the pod template; nil for a model dir or image on its own.
	Workload *manifest.Workload
	// Model holds the facts of a model directory: the target itself for a
	// model dir, or the model linked to the workload.
	Model *model.Model
	// Baked is set on a model dir read from inside an image.
	Baked *BakedModel
	// Images holds image facts by the reference the manifest writes; an
	// image linted on its own is under its source path.
	Images map[string]*image.Image
	// Bundles are what runs in each container (bundle.go), or in the image
	// of an image target.
	Bundles []*Bundle
	// Links tie the workload's serving containers to model dirs (link.go).
	Links []*Link
	// ImagesMissing says why some of the workload's images have no facts
	// (--offline, registry unreachable), for the rules' skip reasons.
	ImagesMissing string
}

// Name identifies the target in reports, without line numbers.
func (t *Target) Name() string {
	switch {
	case t.Workload != nil:
		return t.Workload.Name()
	case t.Model != nil:
		return "model " + t.Model.Dir
	}
	return "image " + t.imageSource()
}

// File is the file or directory the target was read from.
func (t *Target) File() string {
	switch {
	case t.Workload != nil:
		return t.Workload.Object.File.Path
	case t.Model != nil:
		return t.Model.Dir
	}
	return t.imageSource()
}

// imageSource names an image target by its first source, in order.
func (t *Target) imageSource() string {
	if sources := slices.Sorted(maps.Keys(t.Images)); len(sources) > 0 {
		return sources[0]
	}
	return ""
}

// Line is where the target starts in its file (0 for directories and images).
func (t *Target) Line() int {
	if t.Workload != nil {
		return t.Workload.Object.Locate("").Line
	}
	return 0
}

// appliesTo reports whether the rule is about this kind of target: model
// rules judge model directories; manifest, image and cross rules judge
// workloads (image rules also an image linted on its own).
func (r *Rule) appliesTo(t *Target) bool {
	switch r.Artifact {
	case ArtifactModel:
		return t.Workload == nil && t.Model != nil
	case ArtifactImage:
		return t.Workload != nil || (t.Model == nil && len(t.Images) > 0)
	}
	return t.Workload != nil
}

// missingFacts names the facts the rule needs that the target lacks.
func (t *Target) missingFacts(rule *Rule) string {
	var missing []string
	for _, fact := range rule.Needs {
		present := false
		switch fact {
		case FactManifest:
			present = t.Workload != nil
		case FactModel:
			present = t.Model != nil
			if !present && t.Workload != nil {
				return "no model dir is linked to a serving container (-v lists each server's model path and why it " +
					"is not linked; map one with --model DIR:MOUNTPATH, the " + ModelPathAnnotation + " annotation or models: in .modellint.yaml)"
			}
		case FactImage:
			present = len(t.Images) > 0
			if !present && t.ImagesMissing != "" {
				return t.ImagesMissing
			}
		}
		if !present {
			missing = append(missing, string(fact))
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return "needs " + strings.Join(missing, " and ") + " facts, which this run does not have"
}

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
// doc names a milder case (e.g. a tag without digest is info). On a target
// without a workload (a model dir, an image) it points at the target's file.
func (p *Pass) ReportSeverity(severity Severity, path, format string, args ...any) {
	if p.Target.Workload == nil {
		p.ReportFileSeverity(severity, p.Target.File(), format, args...)
		return
	}
	object := p.Target.Workload.Object
	file, pos := object.Where(path) // for rendered input, the template, values file or patch line
	p.findings = append(p.findings, Finding{
		RuleID:   p.Rule.ID,
		RuleName: p.Rule.Name,
		Severity: severity,
		Message:  fmt.Sprintf(format, args...),
		Location: Location{File: file, Line: pos.Line, Column: pos.Column, Path: object.FullPath(path)},
		Target:   p.Target.Name(),
	})
}

// ReportImage records a finding about an image: at a manifest field when the
// target is a workload, else at the image's source; the image location
// (reference, layer, in-image path) goes with it for SARIF and JSON.
func (p *Pass) ReportImage(severity Severity, path string, where ImageLocation, format string, args ...any) {
	before := len(p.findings)
	if p.Target.Workload != nil {
		p.ReportSeverity(severity, path, format, args...)
	} else {
		p.ReportFileSeverity(severity, p.Target.File(), format, args...)
	}
	for i := before; i < len(p.findings); i++ {
		location := where
		p.findings[i].Image = &location
	}
}

// ReportFile records a finding about a file or directory rather than a
// manifest field: a model file, a version dir, a path inside an image.
func (p *Pass) ReportFile(file, format string, args ...any) {
	p.ReportFileSeverity(p.Rule.Severity, file, format, args...)
}

// ReportFileSeverity is ReportFile with an explicit severity.
func (p *Pass) ReportFileSeverity(severity Severity, file, format string, args ...any) {
	p.findings = append(p.findings, Finding{
		RuleID:   p.Rule.ID,
		RuleName: p.Rule.Name,
		Severity: severity,
		Message:  fmt.Sprintf(format, args...),
		Location: Location{File: file},
		Target:   p.Target.Name(),
	})
}

// Skip marks the rule as not applicable to the target, with the reason
// (e.g. "no model-server container"). Findings reported before are kept.
func (p *Pass) Skip(reason string) { p.skipReason = reason }
