// Package lint is modellint's rule API: what a rule is (Rule), what it
// reads (Pass, Target, Bundle) and what it reports (Diagnostic, Finding,
// Fix, Result). lint/engine drives the rules; lint/report prints.
package lint
