package engine

import (
	"strings"

	"github.com/modellint/modellint/lint"
)

// missingFacts names the facts the rule needs that the target lacks.
func missingFacts(t *lint.Target, rule *lint.Rule) string {
	var missing []string
	for _, fact := range rule.Needs {
		present := false
		switch fact {
		case lint.FactManifest:
			present = t.Workload != nil
		case lint.FactModel:
			// A KAITO preset's model is known by its catalog entry.
			present = t.Model != nil || t.Workload != nil && t.Workload.Preset != nil
			if !present && t.Workload != nil {
				return lint.SkipNoModelLinked
			}
		case lint.FactImage:
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
