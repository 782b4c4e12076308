package engine

import (
	"github.com/modellint/modellint/internal/message"
	"github.com/modellint/modellint/internal/redact"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// reporter turns a rule's diagnostics on one target into findings: it
// places each at its file, line and column and fills in the rule.
type reporter struct {
	rule     *lint.Rule
	target   *lint.Target
	findings []lint.Finding
	skip     string
	// withoutFixes drops the fixes rules attach (Options.WithoutFixes).
	withoutFixes bool
	// secrets are the values no finding may print (see secrets.go).
	secrets *redact.Set
	texts   *texts
}

// newPass is the pass a target's rules share, reporting through r.
func newPass(r *reporter, set *manifest.Set, config *lint.Config, c *checker) *lint.Pass {
	return &lint.Pass{Target: r.target, Objects: set, Config: config, Cluster: c.nodes,
		Report: r.report, Skip: func(reason string) { r.skip = reason }, FixesCounted: r.withoutFixes}
}

func (r *reporter) report(d lint.Diagnostic) {
	finding := lint.Finding{
		RuleID:     r.rule.ID,
		RuleName:   r.rule.Name,
		Severity:   d.Severity,
		Message:    d.Message,
		Target:     r.target.Name(),
		Fix:        r.fix(d.Fix),
		NeverReady: d.NeverReady,
	}
	workload := r.target.Workload
	switch {
	case d.File == "" && workload != nil:
		object := workload.Object
		finding.Location = fieldLocation(object, d.Path)
		finding.Related = helperCall(object, d.Path)
		if source, ok := object.WrittenBy(d.Path); ok {
			finding.Related = append(helperCall(source.Object, source.Path), composedInto(workload, d.Path))
		}
		finding.Related = append(finding.Related, causeLocation(d.Cause, workload)...)
	case d.File != "":
		finding.Location = lint.Location{File: d.File, Line: d.Line}
		finding.Related = append(finding.Related, causeLocation(d.Cause, workload)...)
	default:
		finding.Location = lint.Location{File: r.target.File()}
	}
	if d.Image != (lint.ImageLocation{}) {
		where := d.Image
		finding.Image = &where
	}
	// Hidden before the message is capped, so that no cut leaves a part of
	// a secret. A rule may quote a manifest's value (an image name of
	// megabytes) that must not become a report line of megabytes.
	redactFinding(&finding, r.secrets)
	finding.Message = message.Cap(finding.Message, message.MaxFinding)
	if r.rule.SeverityConfigured {
		finding.Severity = r.rule.Severity // a rule reports some findings above or below its default
	}
	severityKnown(&finding, workload, d.Path)
	r.texts.share(&finding)
	r.findings = append(r.findings, finding)
}

// causeLocation is the related location of a diagnostic's cause: a field
// of the target's object, or of the object the cause names.
func causeLocation(cause *lint.Cause, workload *manifest.Workload) []lint.RelatedLocation {
	if cause == nil || workload == nil {
		return nil
	}
	object := cause.Object
	if object == nil {
		object = workload.Object
	}
	return []lint.RelatedLocation{{Location: fieldLocation(object, cause.Path), Message: cause.Message}}
}

// fieldLocation is where a field of an object was written: for rendered
// input the template, values file or patch line; for a field another
// object wrote into a composed pod, that object's field.
func fieldLocation(object *manifest.Object, path string) lint.Location {
	file, pos := object.Where(path)
	location := lint.Location{File: file, Line: pos.Line, Column: pos.Column, Path: object.FullPath(path)}
	if source, ok := object.WrittenBy(path); ok {
		location.Path = source.Object.FullPath(source.Path)
	}
	return location
}

// fix gives a rule's fix the rule's safety, and drops what --fix may not
// apply: moves of a model in an image, and every fix's contents when
// nothing reads them (the table still counts what --fix would fix).
func (r *reporter) fix(fix *lint.Fix) *lint.Fix {
	if fix == nil {
		return nil
	}
	safety := r.rule.Fixes
	if safety == lint.FixNone {
		safety = lint.FixSafe
	}
	moves := fix.Moves
	if r.target.Baked != nil {
		moves = nil
	}
	if r.withoutFixes {
		// Not a copy per finding: the shared mark, or nothing.
		if len(fix.Edits)+len(moves) == 0 && fix != lint.FixableOnly(fix.Safety) {
			return nil
		}
		return lint.FixableOnly(safety)
	}
	fixed := *fix
	fixed.Safety, fixed.Moves = safety, moves
	return &fixed
}

// composedInto is, for a field that another object wrote into a composed
// pod (a ServingRuntime's image in an InferenceService's predictor), the
// line of the object the pod is composed for.
func composedInto(workload *manifest.Workload, path string) lint.RelatedLocation {
	object := workload.Object
	file, pos := object.Doc.Where(object.FullPath(object.Written(path)))
	return lint.RelatedLocation{
		Location: lint.Location{File: file, Line: pos.Line, Column: pos.Column, Path: object.FullPath(object.Written(path))},
		Message:  "composed into the pod of " + workload.Name(),
	}
}

// helperCall is, for a field a Helm helper wrote, the template line that
// included the helper: the finding is placed in the helper, and the call
// tells which template (and which of its ranged objects) it is about.
func helperCall(object *manifest.Object, path string) []lint.RelatedLocation {
	call, ok := object.CalledFrom(path)
	if !ok {
		return nil
	}
	message := lint.IncludedFrom
	if call.Note != "" {
		message = call.Note
	}
	return []lint.RelatedLocation{{
		Location: lint.Location{File: call.File, Line: call.Line, Column: call.Column},
		Message:  message,
	}}
}
