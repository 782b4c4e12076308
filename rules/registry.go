package rules

import (
	"sort"
	"strings"

	"github.com/modellint/modellint/lint"
)

// All returns every rule, sorted by ID. Callers may modify the returned
// values (severity overrides): each call returns fresh copies.
func All() []*lint.Rule {
	families := [][]*lint.Rule{metaRules, modelRules, manifestRules, imageRules, crossRules}
	var all []*lint.Rule
	for _, family := range families {
		for _, rule := range family {
			copied := *rule
			all = append(all, &copied)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return all
}

// Lookup finds a rule by ID (case-insensitive) or name.
func Lookup(rules []*lint.Rule, idOrName string) *lint.Rule {
	for _, rule := range rules {
		if strings.EqualFold(rule.ID, idOrName) || rule.Name == idOrName {
			return rule
		}
	}
	return nil
}
