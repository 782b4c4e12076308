package lint

import (
	"fmt"

	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/manifest"

	"github.com/modellint/modellint/internal/message"
)

// The pass: what a rule reads and how it reports.

// Pass is one rule running over one target.
type Pass struct {
	Rule    *Rule
	Target  *Target
	Objects *manifest.Set
	Config  *Config
	// Cluster are the target cluster's nodes, nil when none were given.
	Cluster *cluster.Facts

	findings   []Finding
	skipReason string
	// withoutFixes drops the fixes rules attach (Options.WithoutFixes).
	withoutFixes bool
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
		Message:  findingMessage(format, args),
		Location: Location{File: file, Line: pos.Line, Column: pos.Column, Path: object.FullPath(path)},
		Target:   p.Target.Name(),
		Related:  helperCall(object, path),
	})
}

// helperCall is, for a field a Helm helper wrote, the template line that
// included the helper: the finding is placed in the helper, and the call
// tells which template (and which of its ranged objects) it is about.
func helperCall(object *manifest.Object, path string) []RelatedLocation {
	call, ok := object.CalledFrom(path)
	if !ok {
		return nil
	}
	return []RelatedLocation{{
		Location: Location{File: call.File, Line: call.Line, Column: call.Column},
		Message:  IncludedFrom,
	}}
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
		Message:  findingMessage(format, args),
		Location: Location{File: file},
		Target:   p.Target.Name(),
	})
}

// Skip marks the rule as not applicable to the target, with the reason
// (e.g. "no model-server container"). Findings reported before are kept.
func (p *Pass) Skip(reason string) { p.skipReason = reason }

// findingMessage formats a finding's message, bounded: a rule may quote a
// manifest's value (an image name of megabytes) that must not become a
// report line of megabytes.
func findingMessage(format string, args []any) string {
	return message.Cap(fmt.Sprintf(format, args...), message.MaxFinding)
}
