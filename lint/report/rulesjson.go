package report

import (
	"encoding/json"
	"io"

	"github.com/modellint/modellint/lint"
)

// jsonRule is a rule as `modellint rules -f json` lists it: what a script
// or an editor plug-in needs to name, filter and explain the findings.
type jsonRule struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Severity   lint.Severity  `json:"severity"`
	Artifact   lint.Artifact  `json:"artifact"`
	Needs      []lint.Fact    `json:"needs"`
	Fixes      lint.FixSafety `json:"fixes,omitempty"`
	Summary    string         `json:"summary"`
	Why        string         `json:"why"`
	Fix        string         `json:"fix"`
	References []string       `json:"references"`
	URL        string         `json:"url"`
}

// RulesJSON writes the rules as a JSON array, in ID order, for scripts.
func RulesJSON(w io.Writer, rules []*lint.Rule) error {
	list := make([]jsonRule, 0, len(rules))
	for _, rule := range rules {
		list = append(list, jsonRule{
			ID: rule.ID, Name: rule.Name, Severity: rule.Severity, Artifact: rule.Artifact,
			Needs: nonNil(rule.Needs), Fixes: rule.Fixes,
			Summary: rule.Doc.Summary, Why: rule.Doc.Why, Fix: rule.Doc.Fix,
			References: nonNil(rule.Doc.References), URL: rule.DocsURL(),
		})
	}
	encoder := json.NewEncoder(w)
	encoder.SetIndent("", "  ")
	encoder.SetEscapeHTML(false)
	return encoder.Encode(list)
}

// nonNil writes an empty list as [] rather than null.
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
