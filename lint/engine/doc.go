// Package engine runs modellint's rules: it discovers and loads the inputs,
// links models and images to the workloads, builds each container's
// Bundle, runs every rule through a lint.Pass, applies suppressions and
// returns a sorted lint.Result.
package engine
