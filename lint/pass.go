package lint

import (
	"fmt"

	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/manifest"
)

// The pass: what a rule reads and how it reports.

// Pass is one rule running over one target. The engine fills it in and
// supplies Report and Skip, as go/analysis's checker supplies an
// analyzer's Pass.Report.
type Pass struct {
	Rule    *Rule
	Target  *Target
	Objects *manifest.Set
	Config  *Config
	// Cluster are the target cluster's nodes, nil when none were given.
	Cluster *cluster.Facts

	// Report records a diagnostic; the engine places it and makes it a
	// Finding of the rule.
	Report func(Diagnostic)
	// Skip marks the rule as not applicable to the target, with the reason
	// (e.g. "no model-server container"). Diagnostics reported before are kept.
	Skip func(reason string)
	// FixesCounted says the run keeps no fix's edits, only whether a
	// finding has a fix (no --fix, no report that shows them): a rule may
	// attach FixableOnly(its Fixes) where its fix applies, without making
	// the edits.
	FixesCounted bool
}

// Diagnostic is what a rule reports about its target.
type Diagnostic struct {
	// Severity is the finding's; Reportf and ReportFilef give the rule's
	// own, and a rule whose doc names a milder case sets it.
	Severity Severity
	// Path is the field path in the target's object the finding points at
	// ("" for the object itself); for a target without a workload (a model
	// dir, an image) the finding points at the target's file.
	Path string
	// File, when set, is the file or directory the finding is about
	// instead of a field: a model file, a version dir, a path in an image.
	File string
	// Line places a File finding on a line of it (an entry of a server's
	// model config file); 0 for the file as a whole.
	Line int
	// Cause is a field that made the server read File (the flag naming a
	// config file), or that a field finding is judged against (the Server
	// a Model is placed on), shown as a related location.
	Cause *Cause
	// Message says what is wrong, the numbers behind it and what to do.
	Message string
	// Image locates the finding inside an image (reference, layer,
	// in-image path), besides the manifest line a user edits.
	Image ImageLocation
	// Fix resolves the finding (see EditFix and MoveFix).
	Fix *Fix
	// NeverReady says what the finding describes keeps the pod from ever
	// becoming Ready (a probe that cannot pass, a pod never created or
	// started), whatever the start estimate; reports draw it instead of
	// the estimated Ready.
	NeverReady bool
}

// Cause is a field a finding relates to, and what it is.
type Cause struct {
	// Object is the object Path is in, nil for the target's.
	Object  *manifest.Object
	Path    string
	Message string
}

// Workload is the target's workload.
func (p *Pass) Workload() *manifest.Workload { return p.Target.Workload }

// Reportf reports a finding at a field path of the target's object, with
// the rule's severity.
func (p *Pass) Reportf(path, format string, args ...any) {
	p.Report(Diagnostic{Severity: p.Rule.Severity, Path: path, Message: fmt.Sprintf(format, args...)})
}

// ReportFilef reports a finding about a file or directory rather than a
// manifest field, with the rule's severity.
func (p *Pass) ReportFilef(file, format string, args ...any) {
	p.Report(Diagnostic{Severity: p.Rule.Severity, File: file, Message: fmt.Sprintf(format, args...)})
}
