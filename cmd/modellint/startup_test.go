package main

import (
	"testing"

	"github.com/modellint/modellint/internal/lazyregexp"
)

// TestExpressionsCompile: every regular expression of the packages
// modellint links compiles. They compile on first use, not at start-up,
// so one that does not would otherwise fail only the run that reaches it.
func TestExpressionsCompile(t *testing.T) {
	if err := lazyregexp.Check(); err != nil {
		t.Fatal(err)
	}
}
