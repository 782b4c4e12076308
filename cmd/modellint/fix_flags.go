package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/fix"
)

// fixFlags are --fix, --diff and --unsafe-fixes.
type fixFlags struct {
	apply, diff, unsafe bool
}

func addFixFlags(set *pflag.FlagSet, flags *fixFlags) {
	set.BoolVar(&flags.apply, "fix", false, "apply the findings' safe fixes to the files they point at (never to rendered Helm or Kustomize output), then lint again and report what remains")
	set.BoolVar(&flags.diff, "diff", false, "print the fixes --fix would apply as a unified diff, change nothing, and exit 1 when there is one")
	set.BoolVar(&flags.unsafe, "unsafe-fixes", false, "with --fix or --diff, also the fixes that change behaviour beyond the finding (see modellint explain)")
	inGroup(set, "Fixes", "fix", "diff", "unsafe-fixes")
}

// runFixes plans the fixes of a result. With --diff it prints them and
// says the exit code; with --fix it writes them and says how many, and
// the caller lints again.
func runFixes(flags fixFlags, result *lint.Result, stdout, stderr io.Writer) (done bool, code int, err error) {
	files, err := fix.Plan(result.Findings, flags.unsafe)
	if err != nil {
		return true, exitError, err
	}
	changed, fixed := 0, 0
	for _, file := range files {
		if diff := file.Diff(); diff != "" {
			changed++
			fixed += len(file.Fixed)
			if flags.diff {
				fmt.Fprint(stdout, diff)
			}
		}
		for _, skipped := range file.Skipped {
			fmt.Fprintf(stderr, "modellint: %s %s: not fixed: another fix edits the same lines; run --fix again\n", skipped.Location, skipped.RuleID)
		}
	}
	moves := fix.Moves(result.Findings, flags.unsafe)
	fixed += len(moves)
	if flags.diff {
		fmt.Fprint(stdout, fix.DescribeMoves(moves))
		if changed > 0 || len(moves) > 0 {
			return true, exitFindings, nil
		}
		return true, exitClean, nil
	}
	for _, file := range files {
		if err := file.Write(); err != nil {
			return true, exitError, fmt.Errorf("%s: %w", file.Path, err)
		}
	}
	if err := fix.ApplyMoves(moves); err != nil {
		return true, exitError, err
	}
	fmt.Fprintf(stderr, "modellint: fixed %s in %s\n", plural(fixed, "finding"), plural(changed, "file"))
	return false, 0, nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
