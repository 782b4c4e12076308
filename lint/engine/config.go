package engine

import (
	"fmt"
	"maps"
	"slices"

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
	for _, id := range slices.Sorted(maps.Keys(loaded.Rules)) {
		if severity := loaded.Rules[id].Severity; severity != "" {
			if _, err := lint.ParseSeverity(severity); err != nil {
				return nil, fmt.Errorf("%s: rules.%s.severity: %w", loaded.At("rules."+id+".severity"), id, err)
			}
		}
	}
	return loaded, nil
}
