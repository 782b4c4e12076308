// Package lint is the engine of modellint: it loads inputs into facts, runs
// rules over them, applies suppressions and returns sorted findings. It never
// prints; lint/report renders a Result and cmd/modellint wires flags to Run.
package lint
