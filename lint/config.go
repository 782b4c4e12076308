package lint

import (
	"fmt"

	"github.com/modellint/modellint/lint/config"
)

// The run's settings are lint/config's types; the engine names them here
// so that rules read lint.Config as they read every other engine value.
type (
	Config         = config.Config
	ModelMapping   = config.ModelMapping
	EstimateConfig = config.EstimateConfig
	ClusterConfig  = config.ClusterConfig
	ImageMapping   = config.ImageMapping
	RuleConfig     = config.RuleConfig
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
func LoadConfig(path string) (*Config, error) {
	loaded, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	for id, rule := range loaded.Rules {
		if rule.Severity != "" {
			if _, err := ParseSeverity(rule.Severity); err != nil {
				return nil, fmt.Errorf("%s: rules.%s.severity: %w", path, id, err)
			}
		}
	}
	return loaded, nil
}
