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

// stdinName is how findings name the document read from "-".
const stdinName = "<stdin>"

// fixOutcome is what runFixes did: done says the run ends with code;
// else the caller lints again what the fixes left, standard input being
// stdin when the fixes read it (the fixed document, also on stdout).
type fixOutcome struct {
	done  bool
	code  int
	stdin []byte
}

// runFixes plans the fixes of a result. With --diff it prints them and
// says the exit code; with --fix it writes them and says how many, and
// the caller lints again. A file the fixes may not touch (a symbolic
// link, outside the PATHs, changed since it was linted) is named on a
// line of its own, and then nothing is written or shown: exit 2. The
// document read from "-" (its text is stdinSource) is fixed on stdout:
// --diff shows its diff, --fix writes it whole, fixed.
func runFixes(flags fixFlags, result *lint.Result, stdinSource []byte, stdout, stderr io.Writer) (fixOutcome, error) {
	result.Hold()
	var paths []string
	for _, path := range flags.paths() {
		if path != "-" {
			paths = append(paths, path)
		}
	}
	fromStdin := len(paths) < len(flags.paths())
	if len(paths) == 0 && !fromStdin {
		paths = []string{"."}
	}
	roots, err := fix.OpenRoots(paths)
	if err != nil {
		return fixOutcome{done: true, code: exitError}, err
	}
	defer roots.Close()
	var files, streamed []lint.Finding
	for _, finding := range result.Findings {
		if finding.Fix != nil && len(finding.Fix.Edits) > 0 && finding.Fix.Edits[0].File == stdinName {
			streamed = append(streamed, finding)
		} else {
			files = append(files, finding)
		}
	}
	changes, err := fix.Plan(files, flags.unsafe, roots)
	var stdinFile *fix.File
	if err == nil && fromStdin {
		stdinFile, err = fix.PlanStream(stdinName, stdinSource, streamed, flags.unsafe)
	}
	var refused *fix.RefusedError
	if errors.As(err, &refused) {
		for _, line := range refused.Lines {
			printError(stderr, errors.New(line))
		}
		printError(stderr, errors.New(refusedSummary(flags)))
		return fixOutcome{done: true, code: exitError}, nil
	}
	if err != nil {
		return fixOutcome{done: true, code: exitError}, err
	}
	edited := changes.Files
	if stdinFile != nil {
		edited = append(edited[:len(edited):len(edited)], stdinFile)
	}
	changed, fixed := 0, len(changes.Moved)
	for _, file := range edited {
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
		moves, err := fix.MovesDiff(changes.Moves)
		if err != nil {
			return fixOutcome{done: true, code: exitError}, err
		}
		fmt.Fprint(stdout, moves)
		printSuggestions(stderr, result.Findings, flags.unsafe)
		if changed > 0 || len(changes.Moves) > 0 {
			return fixOutcome{done: true, code: exitFindings}, nil
		}
		return fixOutcome{done: true, code: exitClean}, nil
	}
	if err := changes.Write(); err != nil {
		return fixOutcome{done: true, code: exitError}, err
	}
	fmt.Fprintf(stderr, "modellint: %s\n", fixSummary(fixed, changed, len(changes.Moves)))
	outcome := fixOutcome{}
	if stdinFile != nil {
		outcome.stdin = stdinFile.After
	} else if fromStdin {
		outcome.stdin = stdinSource
	}
	return outcome, nil
}

// fixSummary says what --fix did: "fixed 2 findings in 1 file", "fixed 1
// finding: moved 3 paths".
func fixSummary(findings, files, moves int) string {
	text := "fixed " + plural(findings, "finding")
	switch {
	case files > 0 && moves > 0:
		return text + " in " + plural(files, "file") + " and moved " + plural(moves, "path")
	case moves > 0:
		return text + ": moved " + plural(moves, "path")
	}
	return text + " in " + plural(files, "file")
}

// printSuggestions prints, for --diff, the fixes it cannot show as a diff:
// a finding's suggestion, the YAML to write by hand (the field is in
// rendered output, or written in a way no edit keeps), after the line it
// is for. They go to stderr: stdout is a patch, and a suggestion is not.
func printSuggestions(stderr io.Writer, findings []lint.Finding, unsafe bool) {
	withUnsafe := 0
	for _, finding := range findings {
		switch {
		case finding.Suppressed() || finding.Fix == nil:
			continue
		case finding.Fix.Applicable(true):
			if !finding.Fix.Applicable(unsafe) {
				withUnsafe++
			}
			continue
		case finding.Fix.Suggestion == "":
			continue
		}
		suggestion := strings.TrimRight(finding.Fix.Suggestion, "\n")
		if message.EscapeLines(suggestion) != suggestion {
			continue // a control character a hostile file put in a value
		}
		where := finding.Location.String()
		if finding.Location.Path != "" {
			where += " (" + finding.Location.Path + ")"
		}
		fmt.Fprintf(stderr, "modellint: %s %s: no diff for this fix; %s, by hand:\n%s\n",
			message.Line(where), finding.RuleID, message.Line(finding.Fix.Description), suggestion)
	}
	if withUnsafe > 0 {
		noun := "fix"
		if withUnsafe > 1 {
			noun = "fixes"
		}
		fmt.Fprintf(stderr, "modellint: %d more %s with --unsafe-fixes (they change behaviour beyond the finding)\n", withUnsafe, noun)
	}
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
