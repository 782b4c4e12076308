// Package rules holds every modellint rule as a value, one file per rule
// family, in ID order. All() is the single registry that feeds the engine,
// `modellint rules`, `modellint explain`, docs/rules.md and SARIF.
package rules
