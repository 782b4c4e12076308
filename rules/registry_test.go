package rules

import (
	"regexp"
	"slices"
	"testing"

	"github.com/modellint/modellint/lint"
)

// kebabCase is a rule name as users write it in suppressions.
var kebabCase = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ruleID is MDL and three digits; the first digit is the artifact.
var ruleID = regexp.MustCompile(`^MDL([0-4])[0-9][0-9]$`)

// artifactOfRange is the artifact each ID range is for (RULES.md).
var artifactOfRange = map[byte]lint.Artifact{
	'0': lint.ArtifactMeta, '1': lint.ArtifactModel, '2': lint.ArtifactManifest, '3': lint.ArtifactImage, '4': lint.ArtifactCross,
}

// neededFact is the fact a rule of each artifact cannot do without.
var neededFact = map[lint.Artifact]lint.Fact{
	lint.ArtifactMeta: lint.FactManifest, lint.ArtifactModel: lint.FactModel, lint.ArtifactManifest: lint.FactManifest,
	lint.ArtifactImage: lint.FactImage, lint.ArtifactCross: lint.FactManifest,
}

// TestRegistry checks the registry as analysis.Validate checks analyzers:
// IDs unique, in order and in their artifact's range; names kebab-case and
// unique; each rule needs its artifact's fact; engine-reported rules (no
// Check) are the meta rules only.
func TestRegistry(t *testing.T) {
	names := map[string]bool{}
	for i, rule := range registry {
		match := ruleID.FindStringSubmatch(rule.ID)
		switch {
		case match == nil:
			t.Errorf("%s: not an ID of the form MDLnnn", rule.ID)
			continue
		case i > 0 && registry[i-1].ID >= rule.ID:
			t.Errorf("%s follows %s: the registry is in ID order, each ID once", rule.ID, registry[i-1].ID)
		}
		if want := artifactOfRange[match[1][0]]; rule.Artifact != want {
			t.Errorf("%s: artifact %s, but the %sxx range is for %s", rule.ID, rule.Artifact, match[1], want)
		}
		if !kebabCase.MatchString(rule.Name) || names[rule.Name] {
			t.Errorf("%s: name %q is not kebab-case or not unique", rule.ID, rule.Name)
		}
		names[rule.Name] = true
		if !slices.Contains(rule.Needs, neededFact[rule.Artifact]) {
			t.Errorf("%s: a %s rule needs %s facts, but Needs is %v", rule.ID, rule.Artifact, neededFact[rule.Artifact], rule.Needs)
		}
		if (rule.Check == nil) != (rule.Artifact == lint.ArtifactMeta) {
			t.Errorf("%s: only meta rules are reported by the engine without a Check", rule.ID)
		}
	}
}
