package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/modellint/modellint/internal/message"
	"github.com/modellint/modellint/lint"
)

// SelectRules returns the rules of a run: all of them (fresh copies, which
// it may change), with the config's rule settings applied, then the
// flags', which win.
func SelectRules(all []*lint.Rule, config *lint.Config, enable, disable []string) ([]*lint.Rule, error) {
	enabled := map[string]bool{}
	for _, rule := range all {
		enabled[rule.ID] = true
	}
	apply := func(source string, names []string, on bool) error {
		for i, name := range names {
			rule := lint.FindRule(all, strings.TrimSpace(name))
			if rule == nil {
				where := source
				if key, inConfig := strings.CutPrefix(source, config.Path+": "); inConfig && config.Path != "" {
					where = config.At(fmt.Sprintf("%s[%d]", key, i)) + ": " + key
				}
				return fmt.Errorf("%s: %s", where, noRule(all, name))
			}
			enabled[rule.ID] = on
		}
		return nil
	}
	// An ignore entry for a rule that does not exist suppresses nothing,
	// silently: the finding it was written for would stay red.
	for i, ignore := range config.Ignore {
		if name := strings.TrimSpace(ignore.Rule); name != "*" && lint.FindRule(all, name) == nil {
			return nil, fmt.Errorf("%s: ignore[%d].rule: %s", config.At(fmt.Sprintf("ignore[%d].rule", i)), i, noRule(all, name))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(config.Rules)) {
		settings := config.Rules[id]
		rule := lint.FindRule(all, id)
		if rule == nil {
			return nil, fmt.Errorf("%s: rules: %s", config.At("rules."+id), noRule(all, id))
		}
		if settings.Severity != "" {
			rule.Severity, _ = lint.ParseSeverity(settings.Severity)
			rule.SeverityConfigured = true
		}
		if settings.Disabled {
			enabled[rule.ID] = false
		}
	}
	steps := []struct {
		source string
		names  []string
		on     bool
	}{
		{config.Path + ": disable", config.Disable, false},
		{config.Path + ": enable", config.Enable, true},
		{"--disable", disable, false},
		{"--enable", enable, true},
	}
	for _, step := range steps {
		if err := apply(step.source, step.names, step.on); err != nil {
			return nil, err
		}
	}
	var selected []*lint.Rule
	for _, rule := range all {
		if enabled[rule.ID] {
			selected = append(selected, rule)
		}
	}
	return selected, nil
}

// OnlyRules selects exactly the named rules (--enable-only), whatever the
// config enables or disables; the config's severity overrides still apply.
func OnlyRules(all []*lint.Rule, config *lint.Config, names []string) ([]*lint.Rule, error) {
	withSeverities, err := SelectRules(all, &lint.Config{Path: config.Path, Rules: severitiesOnly(config.Rules)}, nil, nil)
	if err != nil {
		return nil, err
	}
	wanted := map[string]bool{}
	for _, name := range names {
		rule := lint.FindRule(all, strings.TrimSpace(name))
		if rule == nil {
			return nil, fmt.Errorf("--enable-only: %s", noRule(all, name))
		}
		wanted[rule.ID] = true
	}
	var selected []*lint.Rule
	for _, rule := range withSeverities {
		if wanted[rule.ID] {
			selected = append(selected, rule)
		}
	}
	return selected, nil
}

func severitiesOnly(rules map[string]lint.RuleConfig) map[string]lint.RuleConfig {
	kept := map[string]lint.RuleConfig{}
	for id, settings := range rules {
		kept[id] = lint.RuleConfig{Severity: settings.Severity}
	}
	return kept
}

// noRule says a rule ID or name is unknown, with the rule it is nearest
// to when one is close (MDL2O8: did you mean MDL208?).
func noRule(all []*lint.Rule, name string) string {
	text := "no rule " + message.Quote(name)
	if nearest := nearestRule(all, strings.TrimSpace(name)); nearest != "" {
		return text + " (did you mean " + nearest + "?)"
	}
	return text + " (modellint rules lists them)"
}

// maxNearest bounds the names nearestRule compares: rule IDs and names
// are a few dozen characters.
const maxNearest = 64

// nearestRule is the rule a misspelt ID (one character off: MDL2O8) or
// name (at most a third of its letters off) is closest to; "" when none
// is that close.
func nearestRule(all []*lint.Rule, name string) string {
	if len(name) > maxNearest {
		return "" // no rule's ID or name is that long; the distance would cost its square
	}
	// The letters typed for the digits they look like: MDL2O8, MDLI05.
	id := strings.ToUpper(name)
	id = id[:min(3, len(id))] + strings.NewReplacer("O", "0", "I", "1", "L", "1").Replace(id[min(3, len(id)):])
	best, bestDistance := "", len(name)/3+1
	var oneOff []string
	for _, rule := range all {
		if id == rule.ID {
			return rule.ID
		}
		if levenshtein.ComputeDistance(id, rule.ID) == 1 {
			oneOff = append(oneOff, rule.ID)
		}
		if d := levenshtein.ComputeDistance(name, rule.Name); d < bestDistance {
			best, bestDistance = rule.Name, d
		}
	}
	if len(oneOff) == 1 {
		return oneOff[0] // more than one is a guess
	}
	return best
}
