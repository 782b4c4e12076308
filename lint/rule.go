package lint

import (
	"strings"
)

// The rule API: what a rule is and what it says about itself.

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
	// SeverityConfigured says the user's config set Severity: every
	// finding of the rule then has it, whatever the rule reports.
	SeverityConfigured bool
	Artifact           Artifact
	Needs              []Fact
	Doc                Doc
	// Fixes says whether the rule's findings carry a fix, and how safe.
	Fixes FixSafety
	// Check inspects one target and reports through the pass. Rules never
	// read files: everything they need is in the pass.
	Check func(*Pass)
}

// DocsURL is where the rule's documentation lives.
func (r *Rule) DocsURL() string {
	return "https://github.com/modellint/modellint/blob/main/docs/rules.md#" + strings.ToLower(r.ID+"-"+r.Name)
}

// IgnoreAnnotation suppresses rules on an object or its pod template:
// `modellint.dev/ignore: "MDL205,MDL208 -- reason"`.
const IgnoreAnnotation = "modellint.dev/ignore"

// Rules the engine reports itself (they have no Check).
const (
	// SuppressionRuleID is reported for a suppression without a reason.
	SuppressionRuleID = "MDL001"
	// InvalidRuleID is reported for an object with a field of the wrong type.
	InvalidRuleID = "MDL002"
	// ExpiredSuppressionRuleID is reported for a config ignore entry past
	// its expires: date that would still match a finding.
	ExpiredSuppressionRuleID = "MDL003"
)

// FindRule finds a rule by ID (case-insensitive) or name.
func FindRule(rules []*Rule, idOrName string) *Rule {
	for _, rule := range rules {
		if strings.EqualFold(rule.ID, idOrName) || rule.Name == idOrName {
			return rule
		}
	}
	return nil
}
