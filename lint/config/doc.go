// Package config reads .modellint.yaml: the rule settings, thresholds,
// cluster facts and artifact mappings of a run. It depends on nothing of the
// engine, so its parser can be fuzzed without building the whole linter.
package config
