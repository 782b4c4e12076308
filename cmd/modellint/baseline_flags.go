package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/baseline"
)

// baselineFlags hold --baseline and --write-baseline.
type baselineFlags struct {
	read  string
	write string
}

// addBaselineFlags defines the baseline flags.
func addBaselineFlags(set *pflag.FlagSet, flags *baselineFlags) {
	set.StringVar(&flags.read, "baseline", "", "count only findings not in this baseline file; known ones are reported as suppressed (kind baseline)")
	set.StringVar(&flags.write, "write-baseline", "", "record the current findings in this file and accept them for this run")
}

// applyBaseline writes or applies a baseline to the result. Writing wins
// over reading: --write-baseline re-records the baseline from what is found
// now, so fixed findings leave it and new ones join it.
func applyBaseline(flags baselineFlags, result *lint.Result, stderr io.Writer) error {
	if flags.write != "" || flags.read != "" {
		result.Hold()
	}
	switch {
	case flags.write != "":
		recorded := baseline.New(result)
		if err := recorded.WriteFile(flags.write); err != nil {
			return err
		}
		recorded.Apply(result)
		fmt.Fprintf(stderr, "modellint: recorded %s in the baseline %s\n",
			countOf(len(recorded.Findings), "finding", "findings"), flags.write)
	case flags.read != "":
		known, err := baseline.Read(flags.read)
		if err != nil {
			return err
		}
		outcome := known.Apply(result)
		message := fmt.Sprintf("modellint: %s in the baseline %s, not counted", countOf(outcome.Baselined, "finding", "findings"), flags.read)
		if outcome.Fixed > 0 {
			message += fmt.Sprintf("; %s no longer found (re-record with --write-baseline to drop them)",
				countOf(outcome.Fixed, "baseline entry", "baseline entries"))
		}
		fmt.Fprintln(stderr, message)
	}
	return nil
}

func countOf(n int, singular, plural string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, singular)
	}
	return fmt.Sprintf("%d %s", n, plural)
}
