package engine

import (
	"fmt"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/config"
)

// ConfigFileNames are the names a config file is found by.
var ConfigFileNames = config.FileNames

// FindConfig and ParseModelMapping are lint/config's.
var (
	FindConfig        = config.Find
	ParseModelMapping = config.ParseModelMapping
)

// LoadConfig reads a config file strictly, with the rule severities it
// overrides checked against the engine's names.
func LoadConfig(path string) (*lint.Config, error) {
	loaded, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	for id, rule := range loaded.Rules {
		if rule.Severity != "" {
			if _, err := lint.ParseSeverity(rule.Severity); err != nil {
				return nil, fmt.Errorf("%s: rules.%s.severity: %w", path, id, err)
			}
		}
	}
	return loaded, nil
}
