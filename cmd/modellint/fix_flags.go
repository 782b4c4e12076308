package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/modellint/modellint/internal/message"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/fix"
)

// fixFlags are --fix, --diff and --unsafe-fixes.
type fixFlags struct {
	apply, diff, unsafe bool
	// paths are the PATH arguments once the command line is parsed: the
	// roots --fix writes inside.
	paths func() []string
}

func addFixFlags(set *pflag.FlagSet, flags *fixFlags) {
	set.BoolVar(&flags.apply, "fix", false, "apply the findings' safe fixes to the files they point at (never to rendered Helm or Kustomize output), then lint again and report what remains")
	set.BoolVar(&flags.diff, "diff", false, "print the fixes --fix would apply as a unified diff, change nothing, and exit 1 when there is one")
	set.BoolVar(&flags.unsafe, "unsafe-fixes", false, "with --fix or --diff, also the fixes that change behaviour beyond the finding (see modellint explain)")
	inGroup(set, "Fixes", "fix", "diff", "unsafe-fixes")
	flags.paths = set.Args
}

// runFixes plans the fixes of a result. With --diff it prints them and
// says the exit code; with --fix it writes them and says how many, and
// the caller lints again. A file the fixes may not touch (a symbolic
// link, outside the PATHs, changed since it was linted) is named on a
// line of its own, and then nothing is written or shown: exit 2.
func runFixes(flags fixFlags, result *lint.Result, stdout, stderr io.Writer) (done bool, code int, err error) {
	paths := flags.paths()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	roots, err := fix.OpenRoots(paths)
	if err != nil {
		return true, exitError, err
	}
	defer roots.Close()
	changes, err := fix.Plan(result.Findings, flags.unsafe, roots)
	var refused *fix.RefusedError
	if errors.As(err, &refused) {
		for _, line := range refused.Lines {
			printError(stderr, errors.New(line))
		}
		printError(stderr, errors.New(refusedSummary(flags)))
		return true, exitError, nil
	}
	if err != nil {
		return true, exitError, err
	}
	changed, fixed := 0, len(changes.Moves)
	for _, file := range changes.Files {
		if !bytes.Equal(file.Before, file.After) {
			changed++
			fixed += len(file.Fixed)
			if flags.diff {
				printDiff(stdout, stderr, file.Diff(), file.Path)
			}
		}
		for _, skipped := range file.Skipped {
			printError(stderr, fmt.Errorf("%s %s: not fixed: another fix edits the same lines; run --fix again", skipped.Location, skipped.RuleID))
		}
	}
	if flags.diff {
		fmt.Fprint(stdout, fix.DescribeMoves(changes.Moves))
		if changed > 0 || len(changes.Moves) > 0 {
			return true, exitFindings, nil
		}
		return true, exitClean, nil
	}
	if err := changes.Write(); err != nil {
		return true, exitError, err
	}
	fmt.Fprintf(stderr, "modellint: fixed %s in %s\n", plural(fixed, "finding"), plural(changed, "file"))
	return false, 0, nil
}

// refusedSummary ends the lines of a refusal: what the run did about it.
func refusedSummary(flags fixFlags) string {
	if flags.diff {
		return "no diff: --diff shows what --fix would write, and it would write nothing"
	}
	return "nothing was written: --fix writes every fix of a run or none"
}

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// printDiff prints a file's diff, unless a line of it holds a control
// character (an escape sequence in a comment of a hostile file): escaped,
// the diff would no longer apply, and raw it would reach the terminal or
// the CI log, so it is named on stderr instead. Tabs and the line ends of
// a CRLF file are kept.
func printDiff(stdout, stderr io.Writer, diff, path string) {
	plain := strings.NewReplacer("\t", " ", "\r\n", "\n").Replace(diff)
	if message.EscapeLines(plain) != plain {
		printError(stderr, fmt.Errorf("%s: the diff holds control characters, so it is not printed; --fix applies it", path))
		return
	}
	fmt.Fprint(stdout, diff)
}
