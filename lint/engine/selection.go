package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"

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
		for _, name := range names {
			rule := lint.FindRule(all, strings.TrimSpace(name))
			if rule == nil {
				return fmt.Errorf("%s: no rule %s (modellint rules lists them)", source, message.Quote(name))
			}
			enabled[rule.ID] = on
		}
		return nil
	}
	for _, id := range slices.Sorted(maps.Keys(config.Rules)) {
		settings := config.Rules[id]
		rule := lint.FindRule(all, id)
		if rule == nil {
			return nil, fmt.Errorf("%s: rules: no rule %s", config.Path, message.Quote(id))
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
			return nil, fmt.Errorf("--enable-only: no rule %s (modellint rules lists them)", message.Quote(name))
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
