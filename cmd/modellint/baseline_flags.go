package main

import (
	"io"

	"github.com/spf13/pflag"

	"github.com/modellint/modellint/lint"
)

// baselineFlags hold --baseline and --write-baseline.
type baselineFlags struct{}

// addBaselineFlags defines the baseline flags.
func addBaselineFlags(set *pflag.FlagSet, flags *baselineFlags) {}

// applyBaseline writes or applies a baseline to the result.
func applyBaseline(flags baselineFlags, result *lint.Result, stderr io.Writer) error { return nil }
