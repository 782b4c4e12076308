package lint

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modellint/modellint/internal/message"
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

// SelectRules returns the rules of a run: all of them (fresh copies, which
// it may change), with the config's rule settings applied, then the
// flags', which win.
func SelectRules(all []*Rule, config *Config, enable, disable []string) ([]*Rule, error) {
	enabled := map[string]bool{}
	for _, rule := range all {
		enabled[rule.ID] = true
	}
	apply := func(source string, names []string, on bool) error {
		for _, name := range names {
			rule := FindRule(all, strings.TrimSpace(name))
			if rule == nil {
				return fmt.Errorf("%s: no rule %s (modellint rules lists them)", source, message.Quote(name))
			}
			enabled[rule.ID] = on
		}
		return nil
	}
	for _, id := range slices.Sorted(maps.Keys(config.Rules)) {
		settings := config.Rules[id]
		rule := FindRule(all, id)
		if rule == nil {
			return nil, fmt.Errorf("%s: rules: no rule %s", config.Path, message.Quote(id))
		}
		if settings.Severity != "" {
			rule.Severity, _ = ParseSeverity(settings.Severity)
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
	var selected []*Rule
	for _, rule := range all {
		if enabled[rule.ID] {
			selected = append(selected, rule)
		}
	}
	return selected, nil
}

// OnlyRules selects exactly the named rules (--enable-only), whatever the
// config enables or disables; the config's severity overrides still apply.
func OnlyRules(all []*Rule, config *Config, names []string) ([]*Rule, error) {
	withSeverities, err := SelectRules(all, &Config{Path: config.Path, Rules: severitiesOnly(config.Rules)}, nil, nil)
	if err != nil {
		return nil, err
	}
	wanted := map[string]bool{}
	for _, name := range names {
		rule := FindRule(all, strings.TrimSpace(name))
		if rule == nil {
			return nil, fmt.Errorf("--enable-only: no rule %s (modellint rules lists them)", message.Quote(name))
		}
		wanted[rule.ID] = true
	}
	var selected []*Rule
	for _, rule := range withSeverities {
		if wanted[rule.ID] {
			selected = append(selected, rule)
		}
	}
	return selected, nil
}

func severitiesOnly(rules map[string]RuleConfig) map[string]RuleConfig {
	kept := map[string]RuleConfig{}
	for id, settings := range rules {
		kept[id] = RuleConfig{Severity: settings.Severity}
	}
	return kept
}
